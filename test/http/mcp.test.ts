/**
 * The MCP tool server over a real listening socket, driven by real clients: the official SDK
 * `Client` + `StreamableHTTPClientTransport` (the way users configure theirs: URL plus an auth
 * header) and raw JSON-RPC over fetch for what a well-behaved client never sends.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pkg from "../../package.json";
import { revokeKey } from "../../src/auth/keys";
import { changeCredits, findWorkspace } from "../../src/auth/workspaces";
import { captureFacts } from "../../src/capture/pipeline";
import type { Scope } from "../../src/schema/auth";
import { awayFromWindowEdge, call, makeKey, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { connectMcp, resultJson, rpc, servedOverHttp } from "../helpers/mcp";

setDefaultTimeout(60_000);

const READ_TOOLS = ["whoami", "search_memory", "get_memory_context"];
const ALL_TOOLS = ["whoami", "search_memory", "get_memory_context", "teach_memory", "ask_worker", "wait_for_answer"];
const PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25"];

const initializeBody = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-test", version: "1.0.0" } },
});

describeEachDb("MCP tool server (SDK client + raw JSON-RPC)", (get) => {
  const served = servedOverHttp(get);

  const connect = async (key: TestKey): Promise<Client> => served.closeLater(await connectMcp(served.base, key.secret));

  /** A successful tool call: not an error, and its text is exactly its structuredContent. */
  const tool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    expect(result.content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(result.structuredContent).toEqual(resultJson(result));
    return result.structuredContent;
  };

  /** A tool call that fails inside the tool: `isError` with `{error, message, http_status}`. */
  const toolError = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: expect.any(String) }]);
    const body = resultJson(result);
    expect(Object.keys(body).sort()).toEqual(["error", "http_status", "message"]);
    expect(typeof body.message).toBe("string");
    expect(body.message.length).toBeGreaterThan(0);
    return body;
  };

  const rest = (key: TestKey, method: string, path: string, body?: unknown) => call(served.harness.app, method, path, { key: key.secret, body });
  const teachRest = (key: TestKey, texts: string[], extra: Record<string, unknown> = {}) =>
    rest(key, "POST", "/v1/memory/facts", { facts: texts.map((text) => ({ text })), ...extra });
  const answerCount = async (workspace: string): Promise<number> => {
    const ws = await findWorkspace(get().db, workspace);
    const rows = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM answers WHERE workspace_id = ${ws.id}`;
    return rows[0]?.n ?? 0;
  };
  /** Waits (watching the table, not spending the key's rate limit) until a run is final. */
  const settled = async (answerId: string, timeoutMs = 20_000): Promise<void> => {
    const started = Date.now();
    for (;;) {
      const rows = await get().db.sql<{ status: string }>`SELECT status FROM answers WHERE id = ${answerId}`;
      if (rows[0]?.status === "completed" || rows[0]?.status === "failed") return;
      if (Date.now() - started > timeoutMs) throw new Error(`answer ${answerId} still ${rows[0]?.status}`);
      await Bun.sleep(25);
    }
  };

  // -------------------------------------------------------------------------------------------
  // The SDK client

  test("initialize: the SDK client connects and sees memoryd with the tools capability", async () => {
    const client = await connect(await makeKey(get().db));
    expect(client.getServerVersion()).toEqual({ name: "memoryd", version: pkg.version });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(await client.ping()).toEqual({});
  });

  test("tools/list shows exactly what the key's scopes allow, each tool fully described", async () => {
    const cases: [Scope[], string[]][] = [
      [["memory.read"], READ_TOOLS],
      [
        ["memory.read", "memory.write"],
        [...READ_TOOLS, "teach_memory"],
      ],
      [["answers.write"], ["whoami", "ask_worker", "wait_for_answer"]],
      [["memory.write"], ["whoami", "teach_memory"]],
      [["memory.read", "memory.write", "answers.write"], ALL_TOOLS],
    ];
    for (const [scopes, expected] of cases) {
      const client = await connect(await makeKey(get().db, { scopes }));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort());
      for (const t of tools) {
        expect(typeof t.description).toBe("string");
        expect(t.description!.length).toBeGreaterThan(40);
        expect(t.inputSchema.type).toBe("object");
        expect(typeof t.annotations?.readOnlyHint).toBe("boolean");
      }
    }
    const client = await connect(await makeKey(get().db));
    const byName = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    expect(Object.keys(byName.get("ask_worker")!.inputSchema.properties ?? {}).sort()).toEqual([
      "agent_slug",
      "conversation_id",
      "end_user",
      "idempotency_key",
      "input",
      "timeout_seconds",
    ]);
    expect(Object.keys(byName.get("search_memory")!.inputSchema.properties ?? {}).sort()).toEqual(["agent", "as_of", "end_user", "limit", "query"]);
    const teachItem = (byName.get("teach_memory")!.inputSchema.properties as { facts: { items: { properties: Record<string, unknown> } } }).facts.items;
    expect(Object.keys(teachItem.properties).sort()).toEqual(["expires_at", "observed_at", "text"]);
    for (const name of ["whoami", "search_memory", "get_memory_context", "wait_for_answer"]) {
      expect(byName.get(name)!.annotations!.readOnlyHint).toBe(true);
    }
    for (const name of ["teach_memory", "ask_worker"]) expect(byName.get(name)!.annotations!.readOnlyHint).toBe(false);
  });

  test("inputSchema: arguments the server defaults (limit, token_budget, agent_slug, timeout_seconds) are not required", async () => {
    // A client or model that honours `required` must be able to call search_memory with just a
    // query, as the descriptions promise ("default 20", "default 60", ...).
    const client = await connect(await makeKey(get().db));
    const required = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, [...(t.inputSchema.required ?? [])].sort()]));
    expect(required).toEqual({
      whoami: [],
      search_memory: ["query"],
      get_memory_context: ["query"],
      teach_memory: ["facts"],
      ask_worker: ["input"],
      wait_for_answer: ["answer_id"],
    });
  });

  test("whoami: the key's identity and rate limit, the same as GET /v1/whoami", async () => {
    const key = await makeKey(get().db, { scopes: ["memory.read"], audience: "external" });
    const client = await connect(key);
    const me = await tool(client, "whoami");
    expect(me).toEqual({
      key_name: "test key",
      key_prefix: key.prefix,
      scopes: ["memory.read"],
      key_audience: "external",
      rate_limit: { requests_per_window: 120, window_seconds: 60 },
    });
    expect((await rest(key, "GET", "/v1/whoami")).json.data).toEqual(me);
  });

  test("search_memory and get_memory_context return exactly what the REST endpoints' data holds", async () => {
    const key = await makeKey(get().db);
    // The decision is taught last: among short statements holding the same query words ("billing";
    // "database" is matched by meaning only), the newer goes first (memory/index/freshness.ts).
    await teachRest(key, ["The billing service deploys on Tuesdays.", "Priya prefers async standups.", "We decided to use Postgres for the billing service."]);
    await teachRest(key, ["Loves dark roast coffee for billing calls"], { end_user: { id: "cust-42", name: "Dana" } });
    const client = await connect(key);
    const inputs: Record<string, unknown>[] = [
      { query: "which database for billing?" },
      { query: "billing", limit: 1 },
      { query: "billing coffee", end_user: { id: "cust-42" } },
      { query: "the of and" },
    ];
    for (const input of inputs) {
      const viaTool = await tool(client, "search_memory", input);
      const viaRest = await rest(key, "POST", "/v1/memory/search", input);
      expect(viaRest.status).toBe(200);
      expect(viaTool).toEqual(viaRest.json.data);
    }
    const found = await tool(client, "search_memory", { query: "which database for billing?" });
    expect(found.facts[0].fact_text).toBe("We decided to use Postgres for the billing service.");

    const contexts: Record<string, unknown>[] = [
      { query: "billing" },
      { query: "billing", token_budget: 100 },
      { query: "what does Dana like?", end_user: { id: "cust-42", name: "Dana" } },
    ];
    for (const input of contexts) {
      const viaTool = await tool(client, "get_memory_context", input);
      const viaRest = await rest(key, "POST", "/v1/memory/context", input);
      expect(viaRest.status).toBe(200);
      expect(viaTool).toEqual(viaRest.json.data);
    }
    const packet = await tool(client, "get_memory_context", { query: "billing" });
    expect(packet.packet_version).toBe(1);
    expect(packet.rendered).toContain("<workspace_memory>");
    expect(packet.rendered).toContain("We decided to use Postgres for the billing service.");
  });

  test("teach_memory returns what POST /v1/memory/facts returns, and its facts are searchable at once", async () => {
    const viaMcp = await makeKey(get().db);
    const viaRestKey = await makeKey(get().db);
    const client = await connect(viaMcp);
    const calls: Record<string, unknown>[] = [
      { facts: [{ text: "Acme's renewal date is May 1." }, { text: "The deploy window is Tuesday morning." }] },
      { facts: [{ text: "Acme's renewal date is June 3." }, { text: "The deploy window is Tuesday morning." }] },
      { facts: [{ text: "Prefers email over phone calls." }], end_user: { id: "emp-7", name: "Ana" } },
    ];
    const results = [];
    for (const input of calls) {
      const taught = await tool(client, "teach_memory", input);
      const viaRest = await rest(viaRestKey, "POST", "/v1/memory/facts", input);
      expect(viaRest.status).toBe(202);
      expect(taught).toEqual(viaRest.json.data);
      results.push(taught);
    }
    expect(results).toEqual([
      { accepted_fact_count: 2, created: 2, superseded: 0, skipped: 0 },
      { accepted_fact_count: 2, created: 0, superseded: 1, skipped: 1 },
      { accepted_fact_count: 1, created: 1, superseded: 0, skipped: 0 },
    ]);
    const found = await rest(viaMcp, "POST", "/v1/memory/search", { query: "Acme renewal" });
    const texts = found.json.data.facts.map((f: { fact_text: string }) => f.fact_text);
    expect(texts).toContain("Acme's renewal date is June 3.");
    expect(texts).not.toContain("Acme's renewal date is May 1.");
    const aboutAna = await tool(client, "search_memory", { query: "email", end_user: { id: "emp-7" } });
    expect(aboutAna.facts).toEqual([expect.objectContaining({ fact_text: "Prefers email over phone calls.", subject: "Ana" })]);
  });

  test("ask_worker completes with the model's text and returns what GET /v1/answers/:id?include=sources holds", async () => {
    const key = await makeKey(get().db);
    await teachRest(key, ["The billing service runs on Postgres 16."]);
    const client = await connect(key);
    served.fake.enqueue({ text: "Billing runs on Postgres 16." });
    const answer = await tool(client, "ask_worker", { input: "What does billing run on?", conversation_id: "mcp-thread", timeout_seconds: 30 });
    expect(answer).toEqual({
      answer_id: expect.stringMatching(/^ans_/),
      status: "completed",
      output_text: "Billing runs on Postgres 16.",
      conversation_id: "mcp-thread",
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
      sources: expect.any(Array),
    });
    expect(answer.sources.map((s: { fact_text: string }) => s.fact_text)).toContain("The billing service runs on Postgres 16.");
    const viaRest = await rest(key, "GET", `/v1/answers/${answer.answer_id}?include=sources`);
    expect(viaRest.status).toBe(200);
    expect(answer).toEqual(viaRest.json.data);
    expect(await tool(client, "wait_for_answer", { answer_id: answer.answer_id })).toEqual(viaRest.json.data);
    expect(JSON.stringify(served.fake.requests.at(-1)?.body.system)).toContain("The billing service runs on Postgres 16.");
  });

  test("a run that fails comes back whole: status failed with its error code, and sources", async () => {
    const key = await makeKey(get().db);
    const client = await connect(key);
    served.fake.enqueue({ error: { status: 400, type: "invalid_request_error", message: "served.fake says no" } });
    const failed = await tool(client, "ask_worker", { input: "Will this fail?", timeout_seconds: 30 });
    expect(failed).toMatchObject({ status: "failed", output_text: "", error: { code: expect.any(String), message: expect.any(String) } });
    expect(failed.sources).toEqual(expect.any(Array));
    expect(failed).toEqual((await rest(key, "GET", `/v1/answers/${failed.answer_id}?include=sources`)).json.data);
  });

  // -------------------------------------------------------------------------------------------
  // Errors decided inside a tool

  test("validation_error: 422, and the message names the offending field", async () => {
    const client = await connect(await makeKey(get().db));
    const cases: [string, Record<string, unknown>, string][] = [
      ["search_memory", {}, "query"],
      ["search_memory", { query: "x", limit: 0 }, "limit"],
      ["get_memory_context", { query: "x", token_budget: 5 }, "token_budget"],
      ["teach_memory", { facts: [] }, "facts"],
      ["teach_memory", { facts: [{ text: "   " }] }, "facts[0].text"],
      ["ask_worker", { input: "hi", timeout_seconds: 121 }, "timeout_seconds"],
      ["ask_worker", { input: "hi", idempotency_key: "" }, "idempotency_key"],
      ["ask_worker", { input: "hi", agent_slug: "nope", timeout_seconds: 0 }, "agent_slug"],
      ["wait_for_answer", {}, "answer_id"],
    ];
    for (const [name, args, field] of cases) {
      const error = await toolError(client, name, args);
      expect(error).toMatchObject({ error: "validation_error", http_status: 422 });
      expect(error.message).toContain(field);
    }
  });

  test("scope_missing: 403 for a tool the key may not use, even though it is unlisted", async () => {
    const reader = await connect(await makeKey(get().db, { scopes: ["memory.read"] }));
    for (const [name, args] of [
      ["teach_memory", { facts: [{ text: "Nope." }] }],
      ["ask_worker", { input: "hi" }],
      ["wait_for_answer", { answer_id: "ans_x" }],
    ] as const) {
      const error = await toolError(reader, name, args);
      expect(error).toMatchObject({ error: "scope_missing", http_status: 403 });
    }
    const asker = await connect(await makeKey(get().db, { scopes: ["answers.write"] }));
    expect(await toolError(asker, "search_memory", { query: "x" })).toMatchObject({ error: "scope_missing", http_status: 403 });
    expect(await toolError(asker, "get_memory_context", { query: "x" })).toMatchObject({ error: "scope_missing", http_status: 403 });
  });

  test("out_of_credits: 402 at zero credits, with nothing queued", async () => {
    const key = await makeKey(get().db);
    await changeCredits(get().db, key.workspace, "set", 0);
    const client = await connect(key);
    for (const timeout_seconds of [0, 5]) {
      const error = await toolError(client, "ask_worker", { input: "Anyone there?", timeout_seconds });
      expect(error).toMatchObject({ error: "out_of_credits", http_status: 402 });
    }
    expect(await answerCount(key.workspace)).toBe(0);
  });

  test("conversation_busy: 409 while the conversation's previous message is still answering", async () => {
    const key = await makeKey(get().db);
    const client = await connect(key);
    served.fake.enqueue({ text: "slow answer", chunks: 3, delayMs: 500 });
    const first = await tool(client, "ask_worker", { input: "Take your time?", conversation_id: "busy", timeout_seconds: 0 });
    expect(first).toEqual({ answer_id: expect.stringMatching(/^ans_/), status: "queued" });
    const busy = await toolError(client, "ask_worker", { input: "Another?", conversation_id: "busy", timeout_seconds: 0 });
    expect(busy).toMatchObject({ error: "conversation_busy", http_status: 409 });
    expect(busy.message).toContain("busy");
    const done = await tool(client, "wait_for_answer", { answer_id: first.answer_id, timeout_seconds: 30 });
    expect(done).toMatchObject({ status: "completed", output_text: "slow answer" });
    served.fake.enqueue({ text: "now free" });
    const after = await tool(client, "ask_worker", { input: "Now?", conversation_id: "busy", timeout_seconds: 30 });
    expect(after).toMatchObject({ status: "completed", output_text: "now free", conversation_id: "busy" });
  });

  test("not_found: 404 for another workspace's answer and for an unknown id", async () => {
    const owner = await makeKey(get().db);
    served.fake.enqueue({ text: "mine" });
    const mine = await tool(await connect(owner), "ask_worker", { input: "Whose answer is this?", timeout_seconds: 30 });
    expect(mine.status).toBe("completed");
    const stranger = await connect(await makeKey(get().db));
    for (const answer_id of [mine.answer_id, "ans_does_not_exist"]) {
      const error = await toolError(stranger, "wait_for_answer", { answer_id, timeout_seconds: 0 });
      expect(error).toMatchObject({ error: "not_found", http_status: 404 });
    }
  });

  test("idempotency_key: same arguments -> the same answer_id and one run; a different question -> idempotency_key_reused", async () => {
    const key = await makeKey(get().db);
    const client = await connect(key);
    served.fake.enqueue({ text: "The roadmap has three themes.", chunks: 2, delayMs: 300 });
    const args = { input: "Summarise the roadmap?", idempotency_key: "req-1", timeout_seconds: 0 };
    const first = await tool(client, "ask_worker", args);
    expect(first).toEqual({ answer_id: expect.stringMatching(/^ans_/), status: "queued" });
    const again = await tool(client, "ask_worker", args);
    expect(again.answer_id).toBe(first.answer_id);
    const finished = await tool(client, "ask_worker", { ...args, timeout_seconds: 30 });
    expect(finished).toMatchObject({ answer_id: first.answer_id, status: "completed", output_text: "The roadmap has three themes." });
    expect(await tool(client, "ask_worker", { ...args, timeout_seconds: 5 })).toEqual(finished);
    expect(await answerCount(key.workspace)).toBe(1);
    expect(served.fake.requests.filter((r) => JSON.stringify(r.body.messages).includes("Summarise the roadmap?"))).toHaveLength(1);
    const reused = await toolError(client, "ask_worker", { ...args, input: "Something else entirely?" });
    expect(reused).toMatchObject({ error: "idempotency_key_reused", http_status: 409 });
    const otherConversation = await toolError(client, "ask_worker", { ...args, conversation_id: "elsewhere" });
    expect(otherConversation).toMatchObject({ error: "idempotency_key_reused", http_status: 409 });
    expect(await answerCount(key.workspace)).toBe(1);
  });

  // -------------------------------------------------------------------------------------------
  // Waiting rules

  test("ask_worker that runs out of time returns {wait_timed_out, answer_id}; the run goes on and wait_for_answer returns it whole", async () => {
    const key = await makeKey(get().db);
    await teachRest(key, ["The quarterly report is due on Friday."]);
    const client = await connect(key);
    served.fake.enqueue({ text: "It is due on Friday.", chunks: 3, delayMs: 1000 });
    const started = Date.now();
    const timedOut = await tool(client, "ask_worker", { input: "When is the quarterly report due?", timeout_seconds: 1 });
    const elapsed = Date.now() - started;
    expect(timedOut).toEqual({ wait_timed_out: true, answer_id: expect.stringMatching(/^ans_/) });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2_900);
    // a short fresh wait also times out while the model is still talking
    expect(await tool(client, "wait_for_answer", { answer_id: timedOut.answer_id, timeout_seconds: 0 })).toEqual(timedOut);
    const answer = await tool(client, "wait_for_answer", { answer_id: timedOut.answer_id, timeout_seconds: 30 });
    expect(answer).toMatchObject({ answer_id: timedOut.answer_id, status: "completed", output_text: "It is due on Friday." });
    expect(answer.sources.map((s: { fact_text: string }) => s.fact_text)).toContain("The quarterly report is due on Friday.");
    expect(answer).toEqual((await rest(key, "GET", `/v1/answers/${answer.answer_id}?include=sources`)).json.data);
  });

  test("timeout_seconds 0 returns {answer_id, status: queued} at once; the run still completes", async () => {
    const key = await makeKey(get().db);
    const client = await connect(key);
    served.fake.enqueue({ text: "Eventually.", chunks: 2, delayMs: 800 });
    const started = Date.now();
    const queued = await tool(client, "ask_worker", { input: "Are you quick?", timeout_seconds: 0 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(queued).toEqual({ answer_id: expect.stringMatching(/^ans_/), status: "queued" });
    await settled(queued.answer_id);
    const answer = await tool(client, "wait_for_answer", { answer_id: queued.answer_id, timeout_seconds: 0 });
    expect(answer).toMatchObject({ answer_id: queued.answer_id, status: "completed", output_text: "Eventually.", sources: [] });
  });

  // -------------------------------------------------------------------------------------------
  // Audience

  test("external keys never receive sensitive, team or agent-inferred facts through search_memory or get_memory_context", async () => {
    const internal = await makeKey(get().db);
    const external = await makeKey(get().db, { workspace: internal.workspace, scopes: ["memory.read"], audience: "external" });
    await teachRest(internal, [
      "The staging database password is hunter2-zebra.",
      "Our team decided the zebra launch is in March.",
      "Zebra boxes ship from Lyon.",
    ]);
    const ws = await findWorkspace(get().db, internal.workspace);
    await captureFacts(get().db, ws.id, [{ text: "Zebra crates are probably fragile.", origin: "agent_inferred" }]);

    const inside = await connect(internal);
    const insideSeen = (await tool(inside, "search_memory", { query: "zebra", limit: 100 })).facts.map((f: { fact_text: string }) => f.fact_text);
    expect(insideSeen.sort()).toEqual([
      "Our team decided the zebra launch is in March.",
      "The staging database password is hunter2-zebra.",
      "Zebra boxes ship from Lyon.",
      "Zebra crates are probably fragile.",
    ]);

    const outside = await connect(external);
    const hidden = ["hunter2", "March", "fragile"];
    for (const query of ["zebra", "password", "team launch March", "fragile crates", "the of and"]) {
      const found = await tool(outside, "search_memory", { query, limit: 100 });
      for (const fact of found.facts) {
        for (const word of hidden) expect(fact.fact_text).not.toContain(word);
        expect(fact.origin).not.toBe("agent_inferred");
        expect(["profile_fact", "preference", "decision", "observation"]).toContain(fact.kind);
      }
      const packet = await tool(outside, "get_memory_context", { query, token_budget: 5000 });
      for (const word of hidden) expect(packet.rendered).not.toContain(word);
      for (const fact of packet.facts) for (const word of hidden) expect(fact.fact_text).not.toContain(word);
    }
    const zebra = await tool(outside, "search_memory", { query: "zebra", limit: 100 });
    expect(zebra.facts.map((f: { fact_text: string }) => f.fact_text)).toEqual(["Zebra boxes ship from Lyon."]);
  });

  // -------------------------------------------------------------------------------------------
  // HTTP level and raw JSON-RPC

  test("the SDK client sees HTTP 401 for a bad key", async () => {
    const bad = connectMcp(served.base, "ak_test_000000000000000000000000000000000000");
    const error = await bad.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
  });

  test("missing, wrong, revoked and expired keys: HTTP 401 with {error:{code,message}} before any JSON-RPC", async () => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const missing = await rpc(served.base, ping);
    const wrong = await rpc(served.base, ping, { key: "ak_test_not_a_real_key_at_all_0000000000" });
    const garbage = await rpc(served.base, ping, { key: "nonsense" });
    const revokedKey = await makeKey(get().db);
    expect((await rpc(served.base, ping, { key: revokedKey.secret })).status).toBe(200);
    await revokeKey(get().db, revokedKey.id);
    const revoked = await rpc(served.base, ping, { key: revokedKey.secret });
    const expiredKey = await makeKey(get().db, { expiresAt: new Date(Date.now() - 60_000).toISOString() });
    const expired = await rpc(served.base, ping, { key: expiredKey.secret });
    const cases: [typeof missing, string][] = [
      [missing, "api_key_invalid"],
      [wrong, "api_key_invalid"],
      [garbage, "api_key_invalid"],
      [revoked, "api_key_revoked"],
      [expired, "api_key_expired"],
    ];
    for (const [res, code] of cases) {
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.json).toEqual({ error: { code, message: expect.any(String) } });
    }
  });

  test("over the rate limit: HTTP 429 rate_limited", async () => {
    await awayFromWindowEdge(20);
    const key = await makeKey(get().db);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const statuses: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const results = await Promise.all(Array.from({ length: 30 }, () => rpc(served.base, ping, { key: key.secret })));
      statuses.push(...results.map((r) => r.status));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const over = await rpc(served.base, ping, { key: key.secret });
    expect(over.status).toBe(429);
    expect(over.json).toEqual({ error: { code: "rate_limited", message: expect.any(String), details: expect.any(Object) } });
    expect(over.headers.get("retry-after")).toBeTruthy();
    const viaSdk = await connectMcp(served.base, key.secret).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((viaSdk as StreamableHTTPError).code).toBe(429);
  });

  test("unknown method -> -32601; unknown tool -> -32602", async () => {
    const key = await makeKey(get().db);
    const unknownMethod = await rpc(served.base, { jsonrpc: "2.0", id: 7, method: "resources/list" }, { key: key.secret });
    expect(unknownMethod.status).toBe(200);
    expect(unknownMethod.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
    const made = await rpc(served.base, { jsonrpc: "2.0", id: 8, method: "made/up" }, { key: key.secret });
    expect(made.json).toMatchObject({ jsonrpc: "2.0", id: 8, error: { code: -32601 } });
    const unknownTool = await rpc(
      served.base,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "delete_everything", arguments: {} } },
      { key: key.secret },
    );
    expect(unknownTool.status).toBe(200);
    expect(unknownTool.json).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32602 } });
    expect(unknownTool.json.error.message).toContain("delete_everything");
  });

  test("tools/call over raw JSON-RPC: content text plus structuredContent", async () => {
    const key = await makeKey(get().db, { scopes: ["memory.read"] });
    const res = await rpc(served.base, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } }, { key: key.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const result = res.json.result;
    expect(result.isError ?? false).toBe(false);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent.key_prefix).toBe(key.prefix);
  });

  test("malformed JSON and non-JSON-RPC bodies: a clear JSON-RPC error with a 4xx, never a 500", async () => {
    const key = await makeKey(get().db);
    for (const body of ["{not json", "", "null", "42", '{"hello":"world"}', '{"jsonrpc":"2.0","id":1}']) {
      const res = await rpc(served.base, body, { key: key.secret });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.json).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number), message: expect.any(String) } });
    }
    const malformed = await rpc(served.base, "{not json", { key: key.secret });
    expect(malformed.json.error.code).toBe(-32700);
  });

  test("a JSON-RPC batch with two initialize requests: 400 with a JSON-RPC error", async () => {
    const key = await makeKey(get().db);
    const res = await rpc(served.base, [initializeBody("2025-06-18", 1), initializeBody("2025-06-18", 2)], { key: key.secret });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600, message: expect.any(String) } });
  });

  test("an empty JSON-RPC batch []: a JSON-RPC Invalid Request error with a 4xx", async () => {
    // JSON-RPC 2.0: an empty array is an invalid request and MUST get one error response.
    const key = await makeKey(get().db);
    const res = await rpc(served.base, [], { key: key.secret });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600, message: expect.any(String) } });
  });

  test("a JSON-RPC batch of requests: a clear JSON-RPC error with a 4xx (batching is gone since 2025-06-18)", async () => {
    const key = await makeKey(get().db);
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const res = await rpc(served.base, batch, { key: key.secret });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number), message: expect.any(String) } });
  });

  test("GET and DELETE: 405 with Allow: POST and {error:{code:method_not_allowed}}", async () => {
    const key = await makeKey(get().db);
    for (const method of ["GET", "DELETE"]) {
      for (const secret of [key.secret, undefined]) {
        const res = await rpc(served.base, undefined, { method, ...(secret ? { key: secret } : {}) });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
        expect(res.json).toEqual({ error: { code: "method_not_allowed", message: expect.any(String) } });
      }
    }
  });

  test("Origin: a foreign page is refused with 403; loopback origins are accepted", async () => {
    const key = await makeKey(get().db);
    const init = initializeBody("2025-06-18");
    const evil = await rpc(served.base, init, { key: key.secret, headers: { origin: "http://evil.example" } });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({ error: { code: "forbidden_origin", message: expect.any(String) } });
    const evilNoKey = await rpc(served.base, init, { headers: { origin: "http://evil.example" } });
    expect(evilNoKey.status).toBe(403);
    const rebinding = await rpc(served.base, init, { key: key.secret, headers: { origin: "http://evil.example.com", host: "evil.example.com" } });
    expect(rebinding.status).toBe(403);
    for (const origin of ["http://localhost:1234", "http://127.0.0.1:5173", "http://[::1]:8080"]) {
      const res = await rpc(served.base, init, { key: key.secret, headers: { origin } });
      expect({ origin, status: res.status }).toEqual({ origin, status: 200 });
      expect(res.json.result.protocolVersion).toBe("2025-06-18");
    }
  });

  test("initialize echoes every supported protocol version; an unsupported one gets 2025-06-18", async () => {
    const key = await makeKey(get().db);
    for (const version of PROTOCOL_VERSIONS) {
      const res = await rpc(served.base, initializeBody(version), { key: key.secret });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        result: { protocolVersion: version, serverInfo: { name: "memoryd", version: pkg.version }, capabilities: { tools: {} } },
      });
    }
    for (const version of ["1999-01-01", "2099-12-31"]) {
      const res = await rpc(served.base, initializeBody(version), { key: key.secret });
      expect(res.status).toBe(200);
      expect(res.json.result.protocolVersion).toBe("2025-06-18");
    }
  });

  test("notifications/initialized -> 202 with no body; ping -> {}", async () => {
    const key = await makeKey(get().db);
    const res = await fetch(new URL("/v1/mcp", served.base), {
      method: "POST",
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    const ping = await rpc(served.base, { jsonrpc: "2.0", id: "p", method: "ping" }, { key: key.secret });
    expect(ping.json).toEqual({ jsonrpc: "2.0", id: "p", result: {} });
  });

  test("a plain tools/call answers exactly as the SDK's transport does (the direct path and the SDK agree)", async () => {
    const key = await makeKey(get().db, { scopes: ["memory.read", "memory.write"] });
    const reader = await makeKey(get().db, { workspace: key.workspace, scopes: ["memory.read"] });
    await teachRest(key, ["Priya Raman manages the billing team.", "Billing deploys freeze on Fridays."]);
    const calls: [TestKey, Record<string, unknown>][] = [
      [key, { name: "search_memory", arguments: { query: "billing team", limit: 5 } }],
      [key, { name: "whoami" }],
      [key, { name: "get_memory_context", arguments: { query: "billing" } }],
      [key, { name: "search_memory", arguments: { query: "" } }],
      [key, { name: "search_memory", arguments: { query: "billing", limit: "many" } }],
      [reader, { name: "teach_memory", arguments: { facts: [{ text: "Not stored." }] } }],
    ];
    for (const [caller, params] of calls) {
      const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params };
      // The same call once as every client sends it and once with a media type parameter, which
      // the direct path leaves to the SDK.
      const direct = await rpc(served.base, body, { key: caller.secret });
      const viaSdk = await rpc(served.base, body, { key: caller.secret, headers: { "content-type": "application/json; charset=utf-8" } });
      expect([direct.status, direct.headers.get("content-type")]).toEqual([viaSdk.status, viaSdk.headers.get("content-type")]);
      expect(direct.json).toEqual(viaSdk.json);
      expect(direct.json.id).toBe(7);
    }
  });
});
