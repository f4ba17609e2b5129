import { afterAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json";
import { connectMcp, resultJson } from "../helpers/mcp";
import { parseSse } from "../helpers/answers";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { cleanup, request, runCli, startServer, tempDir } from "./binary";

afterAll(cleanup, 30_000);

const modes = process.env.TEST_DATABASE_URL ? (["embedded", "postgres"] as const) : (["embedded"] as const);
const post = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The shipped binary, every layer once: CLI, serve, REST, MCP, answers, shutdown. */
describe("smoke: the shipped binary", () => {
  test("--version", async () => {
    expect((await runCli(["--version"])).stdout.trim()).toBe(pkg.version);
  });

  for (const mode of modes) {
    test(`[${mode}] serve: teach, search, context, answer, MCP, SIGTERM`, async () => {
      const databaseUrl = mode === "postgres" ? await createPostgresDatabase() : undefined;
      const server = await startServer(databaseUrl ? { databaseUrl } : { dataDir: tempDir() });
      try {
        const key = server.secret!;
        expect((await request(server.url, "/readyz")).status).toBe(200);
        const taught = await request(server.url, "/v1/memory/facts", { key, ...post({ facts: [{ text: "Ada's manager is Grace." }] }) });
        expect(taught.status).toBe(202);
        const found = await request(server.url, "/v1/memory/search", { key, ...post({ query: "who manages Ada" }) });
        expect(found.json.data.facts[0].fact_text).toBe("Ada's manager is Grace.");
        const context = await request(server.url, "/v1/memory/context", { key, ...post({ query: "Ada" }) });
        expect(context.json.data.rendered).toContain("Ada's manager is Grace.");
        const answer = parseSse((await request(server.url, "/v1/answers", { key, ...post({ input: "Who is Ada's manager?" }) })).text);
        expect(answer.at(-2)?.event).toBe("answer.completed");
        const client = await connectMcp(server.url, key);
        expect((await client.listTools()).tools).toHaveLength(6);
        const viaMcp = resultJson(await client.callTool({ name: "search_memory", arguments: { query: "who manages Ada" } }));
        expect(viaMcp).toEqual(found.json.data);
        await client.close();
        expect(await server.stop("SIGTERM")).toBe(0);
      } finally {
        await server.stop("SIGKILL").catch(() => 0);
        if (databaseUrl) await dropPostgresDatabase(databaseUrl);
      }
    }, 90_000);
  }
});
