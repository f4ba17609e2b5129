/** Every REST route docs/api.md lists for key holders has a client method. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_ROUTES } from "../../src/client";

test("the client's route table is the key holders' routes of docs/api.md", () => {
  const api = readFileSync(join(import.meta.dir, "..", "..", "docs", "api.md"), "utf8");
  // The first table's rows: "| `METHOD /v1/...` | scope | ...", MCP being JSON-RPC rather than REST.
  const documented = [...api.matchAll(/^\| `((?:GET|POST|DELETE|PATCH|PUT) \/v1\/(?!admin\/|mcp)[^`]*)` \|/gm)].map((m) => m[1]!);
  expect(documented.length).toBeGreaterThan(5);
  const client: string[] = [...new Set(Object.values(CLIENT_ROUTES))];
  expect(client.sort()).toEqual([...new Set(documented)].sort());
});
