/**
 * The tool server on MCP revision 2026-07-28 (stateless: no `initialize`, a `_meta` envelope on
 * every request, `server/discover`, `Mcp-Method`/`Mcp-Name` headers) beside the 2025 revisions on
 * the same endpoint, driven by the SDK v2 client (pinned to 2026-07-28, in `auto` mode and in its
 * default 2025 mode) and by raw JSON-RPC for what a well-behaved client never sends.
 * Authentication, scopes, the Origin check and tool results are the same in both eras.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import Ajv from "ajv";
import pkg from "../../package.json";
import type { Scope } from "../../src/schema/auth";
import { call, makeKey, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { connectMcpV2, MODERN, modernBody, rpc, servedOverHttp } from "../helpers/mcp";

setDefaultTimeout(60_000);

const ALL_TOOLS = ["whoami", "search_memory", "get_memory_context", "teach_memory", "ask_worker", "wait_for_answer"];

describeEachDb("MCP 2026-07-28 beside the 2025 revisions (SDK v2 client + raw JSON-RPC)", (get) => {
  const served = servedOverHttp(get);

  const connect = async (key: TestKey, mode?: Parameters<typeof connectMcpV2>[2]): Promise<Client> =>
    served.closeLater(await connectMcpV2(served.base, key.secret, mode));
  const rest = (key: TestKey, method: string, path: string, body?: unknown) => call(served.harness.app, method, path, { key: key.secret, body });

  test("pinned to 2026-07-28, the v2 client lists the tools with output schemas and calls all six", async () => {
    const key = await makeKey(get().db);
    const client = await connect(key, { pin: MODERN });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    const ajv = new Ajv({ strict: false, validateFormats: false });
    const schemaOf = new Map(tools.map((t) => [t.name, t.outputSchema]));
    for (const t of tools) {
      expect(t.outputSchema?.type).toBe("object");
      expect(t.title).toBe(t.annotations?.title);
    }
    /** A successful call whose structuredContent validates against the tool's output schema. */
    const tool = async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      expect(ajv.validate(schemaOf.get(name)!, result.structuredContent)).toBe(true);
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
      return result.structuredContent;
    };

    expect(await tool("whoami")).toEqual((await rest(key, "GET", "/v1/whoami")).json.data);
    expect(await tool("teach_memory", { facts: [{ text: "The billing service runs on Postgres 16." }] })).toMatchObject({ created: 1 });
    const searched = await tool("search_memory", { query: "what does billing run on" });
    expect(searched).toEqual((await rest(key, "POST", "/v1/memory/search", { query: "what does billing run on" })).json.data);
    // explain is REST's own: the tool keeps the spec's arguments and results.
    expect(await tool("search_memory", { query: "what does billing run on", explain: true })).toEqual(searched);
    const packet = await tool("get_memory_context", { query: "billing database" });
    expect(packet.rendered).toContain("Postgres 16");
    served.fake.enqueue({ text: "Billing runs on Postgres 16." });
    const answer = await tool("ask_worker", { input: "What does billing run on?", timeout_seconds: 30 });
    expect(answer).toMatchObject({ status: "completed", output_text: "Billing runs on Postgres 16." });
    expect(await tool("wait_for_answer", { answer_id: answer.answer_id })).toEqual(answer);
  });

  test("scopes, tool errors and an unknown tool are the same on 2026-07-28 as on 2025", async () => {
    const reader = await makeKey(get().db, { scopes: ["memory.read"] as Scope[] });
    const client = await connect(reader, { pin: MODERN });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["whoami", "search_memory", "get_memory_context"]);
    const refused = await client.callTool({ name: "teach_memory", arguments: { facts: [{ text: "x" }] } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({ error: "scope_missing", http_status: 403 });
    const invalid = await client.callTool({ name: "search_memory", arguments: { query: "" } });
    expect(invalid.isError).toBe(true);
    expect(JSON.parse((invalid.content as { text: string }[])[0]!.text)).toMatchObject({ error: "validation_error", http_status: 422 });
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  test("auto mode negotiates 2026-07-28; the default mode stays on 2025-11-25 and works as before", async () => {
    const key = await makeKey(get().db);
    const auto = await connect(key, "auto");
    expect(auto.getNegotiatedProtocolVersion()).toBe(MODERN);
    const legacy = await connect(key);
    expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    for (const client of [auto, legacy]) {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.structuredContent).toEqual((await rest(key, "GET", "/v1/whoami")).json.data);
    }
  });

  test("server/discover names the modern revision and the tools capability", async () => {
    const key = await makeKey(get().db);
    const res = await rpc(served.base, modernBody("server/discover", {}, 3), { key: key.secret, headers: modernHeaders("server/discover") });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: 3, result: { capabilities: { tools: {} } } });
    const result = res.json.result as { supportedVersions: string[]; serverInfo?: { name: string; version: string } };
    expect(result.supportedVersions).toContain(MODERN);
    expect(JSON.stringify(res.json)).toContain(`"version":"${pkg.version}"`);
  });

  test("tools/list on 2026-07-28 carries resultType and the caching hints: private to the key, five minutes", async () => {
    const key = await makeKey(get().db);
    const res = await rpc(served.base, modernBody("tools/list", {}, "l"), { key: key.secret, headers: modernHeaders("tools/list") });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe("l");
    expect(res.json.result).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "private" });
    expect(res.json.result.tools).toHaveLength(ALL_TOOLS.length);
  });

  test("protocol errors on 2026-07-28 echo the request id with the revision's codes", async () => {
    const key = await makeKey(get().db);
    const send = (body: unknown, headers: Record<string, string>) => rpc(served.base, body, { key: key.secret, headers });
    // No _meta envelope: invalid params.
    const bare = await send({ jsonrpc: "2.0", id: 11, method: "tools/list", params: {} }, modernHeaders("tools/list"));
    expect(bare.json).toMatchObject({ jsonrpc: "2.0", id: 11, error: { code: -32602 } });
    // The Mcp-Method header disagrees with the body.
    const mismatch = await send(modernBody("tools/list", {}, 12), modernHeaders("tools/call"));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json).toMatchObject({ jsonrpc: "2.0", id: 12, error: { code: -32020 } });
    // A revision we do not speak: -32022 naming the ones we do.
    const future = await send(
      {
        jsonrpc: "2.0",
        id: 13,
        method: "tools/list",
        params: { _meta: { ...modernBody("x", {}, 0).params._meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
    );
    expect(future.json).toMatchObject({ jsonrpc: "2.0", id: 13, error: { code: -32022 } });
    expect(future.json.error.data.supported).toContain(MODERN);
    // Methods the revision removed.
    for (const method of ["initialize", "ping"]) {
      const removed = await send(modernBody(method, {}, 14), modernHeaders(method));
      expect(removed.status).toBe(404);
      expect(removed.json).toMatchObject({ jsonrpc: "2.0", id: 14, error: { code: -32601 } });
    }
  });

  test("authentication and the Origin check come first in both eras", async () => {
    const key = await makeKey(get().db);
    const anonymous = await rpc(served.base, modernBody("tools/list", {}, 1), { headers: modernHeaders("tools/list") });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe("api_key_invalid");
    const foreign = await rpc(served.base, modernBody("tools/list", {}, 1), {
      key: key.secret,
      headers: { ...modernHeaders("tools/list"), origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.code).toBe("forbidden_origin");
  });
});

function modernHeaders(method: string): Record<string, string> {
  return { "mcp-protocol-version": MODERN, "mcp-method": method };
}
