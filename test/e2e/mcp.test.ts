/**
 * The MCP tool server of the compiled `dist/memoryd`, driven end to end by the official SDK
 * client, with the answer worker talking to a fake Anthropic API (ANTHROPIC_BASE_URL). Embedded
 * mode always; PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pkg from "../../package.json";
import { awayFromWindowEdge } from "../helpers/app";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";
import { connectMcp, resultJson, rpc } from "../helpers/mcp";
import { cleanup, ensureBinary, startServer, tempDir, waitReady, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);

type Kind = "embedded" | "postgres";
const KINDS: Kind[] = process.env.TEST_DATABASE_URL ? ["embedded", "postgres"] : ["embedded"];

beforeAll(async () => {
  await ensureBinary();
}, 300_000);
afterAll(async () => {
  await cleanup();
});

for (const kind of KINDS) {
  describe(`MCP tool server of dist/memoryd [${kind}]`, () => {
    let fake: FakeAnthropic;
    let server: ServerHandle;
    let secret: string;
    let databaseUrl: string | undefined;
    const clients: Client[] = [];

    beforeAll(async () => {
      fake = createFakeAnthropic();
      if (kind === "postgres") databaseUrl = await createPostgresDatabase();
      server = await startServer({
        ...(databaseUrl ? { databaseUrl } : { dataDir: join(tempDir("memoryd-e2e-mcp-"), "data") }),
        env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, MEMORYD_LOG_LEVEL: "warn" },
      });
      await waitReady(server.url);
      if (!server.secret) throw new Error(`no bootstrap key printed:\n${server.stdout()}`);
      secret = server.secret;
    });
    afterAll(async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await server?.stop();
      await fake?.stop();
      if (databaseUrl) await dropPostgresDatabase(databaseUrl);
    });

    const connect = async (): Promise<Client> => {
      const client = await connectMcp(server.url, secret);
      clients.push(client);
      return client;
    };
    const tool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      expect(result.structuredContent).toEqual(resultJson(result));
      return result.structuredContent;
    };

    test("initialize and tools/list: the bootstrap key sees all six tools", async () => {
      const client = await connect();
      expect(client.getServerVersion()).toEqual({ name: "memoryd", version: pkg.version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["ask_worker", "get_memory_context", "search_memory", "teach_memory", "wait_for_answer", "whoami"]);
      for (const t of tools) {
        expect(t.description!.length).toBeGreaterThan(40);
        expect(t.inputSchema.type).toBe("object");
        expect(typeof t.annotations?.readOnlyHint).toBe("boolean");
      }
      expect(await tool(client, "whoami")).toEqual({
        key_name: "bootstrap",
        key_prefix: expect.any(String),
        scopes: ["memory.read", "memory.write", "answers.write"],
        key_audience: "internal",
        rate_limit: { requests_per_window: 120, window_seconds: 60 },
      });
    });

    test("teach_memory, then search_memory and get_memory_context find the facts at once", async () => {
      const client = await connect();
      const taught = await tool(client, "teach_memory", {
        facts: [{ text: "The billing service runs on Postgres 16." }, { text: "Priya prefers async standups." }],
      });
      expect(taught).toEqual({ accepted_fact_count: 2, created: 2, superseded: 0, skipped: 0 });
      const found = await tool(client, "search_memory", { query: "what does billing run on?" });
      expect(found.facts[0]).toMatchObject({ fact_text: "The billing service runs on Postgres 16.", origin: "ingested" });
      const packet = await tool(client, "get_memory_context", { query: "billing database" });
      expect(packet.packet_version).toBe(1);
      expect(packet.rendered).toContain("The billing service runs on Postgres 16.");
      const rest = await fetch(`${server.url}/v1/memory/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "what does billing run on?" }),
      });
      expect(((await rest.json()) as { data: unknown }).data).toEqual(found);
    });

    test("ask_worker completes with the model's text, grounded in memory", async () => {
      const client = await connect();
      await tool(client, "teach_memory", { facts: [{ text: "The billing service runs on Postgres 16." }] });
      fake.enqueue({ text: "Billing runs on Postgres 16, per memory." });
      const answer = await tool(client, "ask_worker", { input: "Which database does billing use?", timeout_seconds: 60 });
      expect(answer).toEqual({
        answer_id: expect.stringMatching(/^ans_/),
        status: "completed",
        output_text: "Billing runs on Postgres 16, per memory.",
        conversation_id: expect.any(String),
        usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
        sources: expect.any(Array),
      });
      expect(answer.sources.map((s: { fact_text: string }) => s.fact_text)).toContain("The billing service runs on Postgres 16.");
      const sent = fake.requests.at(-1)!;
      expect(sent.path).toBe("/v1/messages");
      // ANTHROPIC_API_KEY reached the model call (this SDK sends it as a bearer token).
      expect(`${sent.headers["x-api-key"] ?? ""} ${sent.headers.authorization ?? ""}`).toContain("sk-test");
      expect(JSON.stringify(sent.body.system)).toContain("The billing service runs on Postgres 16.");
      expect(await tool(client, "wait_for_answer", { answer_id: answer.answer_id, timeout_seconds: 0 })).toEqual(answer);
    });

    test("ask_worker waiting rules: a timed-out wait, then wait_for_answer; timeout 0 queues; idempotency_key replays", async () => {
      const client = await connect();
      fake.enqueue({ text: "Slowly, surely.", chunks: 3, delayMs: 900 });
      const timedOut = await tool(client, "ask_worker", { input: "Can you take your time?", timeout_seconds: 1 });
      expect(timedOut).toEqual({ wait_timed_out: true, answer_id: expect.stringMatching(/^ans_/) });
      const done = await tool(client, "wait_for_answer", { answer_id: timedOut.answer_id, timeout_seconds: 60 });
      expect(done).toMatchObject({ answer_id: timedOut.answer_id, status: "completed", output_text: "Slowly, surely.", sources: expect.any(Array) });

      fake.enqueue({ text: "Queued and done." });
      const args = { input: "Is this queued?", idempotency_key: "e2e-1", timeout_seconds: 0 };
      const queued = await tool(client, "ask_worker", args);
      expect(queued).toEqual({ answer_id: expect.stringMatching(/^ans_/), status: "queued" });
      const replayed = await tool(client, "ask_worker", { ...args, timeout_seconds: 60 });
      expect(replayed).toMatchObject({ answer_id: queued.answer_id, status: "completed", output_text: "Queued and done." });
      const runs = fake.requests.filter((r) => JSON.stringify(r.body.messages).includes("Is this queued?"));
      expect(runs).toHaveLength(1);
      const reused = await client.callTool({ name: "ask_worker", arguments: { ...args, input: "Something else?" } });
      expect(reused.isError).toBe(true);
      expect(resultJson(reused)).toMatchObject({ error: "idempotency_key_reused", http_status: 409 });
    });

    test("tool errors come back as results: validation_error names the field", async () => {
      const client = await connect();
      const result = await client.callTool({ name: "search_memory", arguments: { query: "" } });
      expect(result.isError).toBe(true);
      const body = resultJson(result);
      expect(body).toMatchObject({ error: "validation_error", http_status: 422 });
      expect(body.message).toContain("query");
    });

    test("HTTP level: a bad key is 401 (SDK client and raw), GET is 405, a foreign Origin is 403", async () => {
      const failed = await connectMcp(server.url, "ak_test_000000000000000000000000000000000000").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(StreamableHTTPError);
      expect((failed as StreamableHTTPError).code).toBe(401);
      const raw = await rpc(server.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { key: "ak_test_wrong" });
      expect(raw.status).toBe(401);
      expect(raw.json).toEqual({ error: { code: "api_key_invalid", message: expect.any(String) } });
      const missing = await rpc(server.url, { jsonrpc: "2.0", id: 1, method: "ping" });
      expect(missing.status).toBe(401);
      const get = await rpc(server.url, undefined, { method: "GET", key: secret });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      const evil = await rpc(server.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { key: secret, headers: { origin: "http://evil.example" } });
      expect(evil.status).toBe(403);
    });

    // Last: it spends the bootstrap key's window.
    test("HTTP level: over the rate limit is 429 rate_limited", async () => {
      await awayFromWindowEdge(20);
      const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
      let over: Awaited<ReturnType<typeof rpc>> | undefined;
      for (let i = 0; i < 130 && !over; i += 10) {
        const results = await Promise.all(Array.from({ length: 10 }, () => rpc(server.url, ping, { key: secret })));
        over = results.find((r) => r.status !== 200);
      }
      expect(over?.status).toBe(429);
      expect(over?.json.error.code).toBe("rate_limited");
      expect(over?.headers.get("retry-after")).toBeTruthy();
      const sdk = await connectMcp(server.url, secret).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((sdk as StreamableHTTPError).code).toBe(429);
    });
  });
}
