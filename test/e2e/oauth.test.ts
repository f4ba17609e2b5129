/**
 * MCP authorization as a person meets it: the MCP SDK client (OAuthClientProvider) against the
 * compiled binary, its authorization URL opened in a real browser (Debian's Chromium through
 * playwright-core), the consent page filled in and allowed, the browser redirected to the
 * application's loopback callback (so the page's CSP lets the form lead there), then the code
 * exchanged by the SDK and the tools listed with the granted scopes.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium, type Browser } from "playwright-core";
import { MemoryOAuthProvider } from "../helpers/oauth";
import { cleanup, startServer, tempDir, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let server: ServerHandle;
let browser: Browser;
let callback: ReturnType<typeof Bun.serve>;
const received: URL[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  server = await startServer({ dataDir: join(tempDir(), "data") });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  // The application's redirect target: it records what the browser brings back.
  callback = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      received.push(new URL(request.url));
      return new Response("<p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
});

afterAll(async () => {
  await browser?.close();
  callback?.stop(true);
  await server?.stop();
  await cleanup();
});

test("a person allows an MCP client in the browser and the client calls tools with what was granted", async () => {
  expect(server.secret).toMatch(/^ak_test_/);
  const provider = new MemoryOAuthProvider(`http://127.0.0.1:${callback.port}/callback`);
  const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider });
  await expect(new Client({ name: "browser-flow", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

  const page = await browser.newPage();
  await page.goto(provider.authorizationUrl!.href);
  await page.getByRole("heading", { name: /Allow Test Connector/ }).waitFor();
  await page.getByLabel(/answers\.write/).uncheck();
  await page.getByLabel("API key of the workspace").fill(server.secret!);
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.port === String(callback.port));
  const back = received.find((url) => url.pathname === "/callback")!;
  expect(back.searchParams.get("state")).toBe("state-123");
  expect(back.searchParams.get("iss")).toBe(server.url);
  await page.close();

  await transport.finishAuth(back.searchParams.get("code")!);
  const client = new Client({ name: "browser-flow", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider }));
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  expect(tools).toEqual(["get_memory_context", "search_memory", "teach_memory", "whoami"]);
  expect(provider.saved?.scope).toBe("memory.read memory.write");
  await client.close();
});
