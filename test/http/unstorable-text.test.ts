/**
 * Text the databases cannot store (lone UTF-16 surrogates, NUL) is the caller's mistake: a 422
 * naming the field on every route that takes text, REST, admin and MCP alike, on both databases.
 * Then a fuzz of every text field of those routes with arbitrary strings (fast-check), well-formed
 * or not: no request may end in a 5xx.
 */
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import type { App } from "../../src/app";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

setDefaultTimeout(180_000);

const UNSTORABLE = ["\ud83d", "\udfff", "tea \ud83d cup", "a\u0000b"];

/** One route's call with the string under test in one text field, and the field's name. */
interface TextField {
  route: string;
  field: string;
  send: (app: App, key: TestKey, workspace: string, text: string) => Promise<{ status: number; json: any }>;
}

const rest = (method: string, path: string, body: (text: string) => unknown) => (app: App, key: TestKey, _ws: string, text: string) =>
  call(app, method, path, { key: key.secret, body: body(text) });
const admin = (path: (ws: string) => string, body: (text: string) => unknown) => (app: App, _key: TestKey, ws: string, text: string) =>
  call(app, "POST", path(ws), { key: TEST_ADMIN_TOKEN, body: body(text) });
/** An MCP tool call: a validation failure is a tool result carrying the REST error. */
const mcp = (tool: string, args: (text: string) => Record<string, unknown>) => async (app: App, key: TestKey, _ws: string, text: string) => {
  const res = await call(app, "POST", "/v1/mcp", {
    key: key.secret,
    headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args(text) } },
  });
  const content = res.json?.result?.content?.[0]?.text;
  if (res.status === 200 && res.json?.result?.isError === true && typeof content === "string") {
    const error = JSON.parse(content) as { error: string; message: string; http_status: number };
    return { status: error.http_status, json: { error: { code: error.error, message: error.message } } };
  }
  return { status: res.status, json: res.json };
};

const FIELDS: TextField[] = [
  {
    route: "POST /v1/memory/facts",
    field: "facts[1].text",
    send: rest("POST", "/v1/memory/facts", (t) => ({ facts: [{ text: "Ana likes tea." }, { text: t }] })),
  },
  {
    route: "POST /v1/memory/facts",
    field: "end_user.id",
    send: rest("POST", "/v1/memory/facts", (t) => ({ end_user: { id: t }, facts: [{ text: "Ana likes tea." }] })),
  },
  {
    route: "POST /v1/memory/facts",
    field: "end_user.name",
    send: rest("POST", "/v1/memory/facts", (t) => ({ end_user: { id: "u1", name: t }, facts: [{ text: "x" }] })),
  },
  { route: "POST /v1/memory/search", field: "query", send: rest("POST", "/v1/memory/search", (t) => ({ query: t })) },
  { route: "POST /v1/memory/context", field: "query", send: rest("POST", "/v1/memory/context", (t) => ({ query: t })) },
  { route: "POST /v1/answers", field: "conversation_id", send: rest("POST", "/v1/answers", (t) => ({ input: "hi", conversation_id: t })) },
  {
    route: "POST /v1/admin/workspaces/:slug/keys",
    field: "name",
    send: admin(
      (ws) => `/v1/admin/workspaces/${ws}/keys`,
      (t) => ({ name: t, scopes: ["memory.read"] }),
    ),
  },
  {
    route: "POST /v1/admin/workspaces/:slug/team",
    field: "name",
    send: admin(
      (ws) => `/v1/admin/workspaces/${ws}/team`,
      (t) => ({ name: t }),
    ),
  },
  {
    route: "POST /v1/admin/workspaces/:slug/agents",
    field: "instructions",
    send: admin(
      (ws) => `/v1/admin/workspaces/${ws}/agents`,
      (t) => ({ slug: "helper", display_name: "Helper", instructions: t }),
    ),
  },
  {
    route: "POST /v1/admin/workspaces/:slug/facts",
    field: "facts[0].text",
    send: admin(
      (ws) => `/v1/admin/workspaces/${ws}/facts`,
      (t) => ({ facts: [{ text: t }] }),
    ),
  },
  { route: "MCP teach_memory", field: "facts[0].text", send: mcp("teach_memory", (t) => ({ facts: [{ text: t }] })) },
  { route: "MCP search_memory", field: "query", send: mcp("search_memory", (t) => ({ query: t })) },
  { route: "MCP get_memory_context", field: "end_user.id", send: mcp("get_memory_context", (t) => ({ query: "tea", end_user: { id: t } })) },
];

describeEachDb("text that cannot be stored", (get) => {
  let app: App;
  let key: TestKey;

  beforeAll(async () => {
    app = testApp(get().db);
    key = await makeKey(get().db);
  });

  test.each(FIELDS.map((f) => [f.route, f.field, f] as const))("%s, %s: 422 validation_error naming the field", async (_route, field, f) => {
    for (const text of UNSTORABLE) {
      const res = await f.send(app, key, key.workspace, text);
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe("validation_error");
      expect(res.json.error.message).toContain(field);
    }
  });

  test("nothing of a refused call was stored: the well-formed fact beside the bad one is not there either", async () => {
    const res = await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "Ana likes tea", limit: 20 } });
    expect(res.status).toBe(200);
    expect(res.json.data.facts).toEqual([]);
  });

  test("a fuzz of every text field with arbitrary strings: never a 5xx", async () => {
    const workspace = key.workspace;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FIELDS),
        fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 40 }), fc.constantFrom(...UNSTORABLE)),
        async (f, text) => {
          sent += 1;
          const res = await f.send(app, key, workspace, text);
          return res.status < 500;
        },
      ),
      { numRuns: 5_000 },
    );
    expect(sent).toBeGreaterThanOrEqual(5_000);
  });
});
