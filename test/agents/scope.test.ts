/**
 * An agent's own memory over REST and MCP, on both databases: facts taught with scope "agent"
 * are seen only by calls acting as that agent (naming it, or through a key bound to it), a bound
 * key may not act as another agent, and duplicates and supersession stay inside one scope.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { call, makeKey, TEST_ADMIN_TOKEN, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { connectMcpV2, servedOverHttp } from "../helpers/mcp";

setDefaultTimeout(60_000);

describeEachDb("agent scope", (get) => {
  const served = servedOverHttp(get);
  const app = () => served.harness.app;
  const rest = (key: TestKey, method: string, path: string, body?: unknown) => call(app(), method, path, { key: key.secret, body });
  const admin = (method: string, path: string, body?: unknown) => call(app(), method, path, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body });
  const texts = (res: { json: { data: { facts: { fact_text: string }[] } } }): string[] => res.json.data.facts.map((f) => f.fact_text).sort();

  /** A workspace with agents "support" and "sales", an unbound key and a key bound to each. */
  async function world(): Promise<{ open: TestKey; support: TestKey; sales: TestKey }> {
    const open = await makeKey(get().db);
    for (const slug of ["support", "sales"]) {
      expect((await admin("POST", `/v1/admin/workspaces/${open.workspace}/agents`, { slug, display_name: slug })).status).toBe(201);
    }
    return {
      open,
      support: await makeKey(get().db, { workspace: open.workspace, agent: "support" }),
      sales: await makeKey(get().db, { workspace: open.workspace, agent: "sales" }),
    };
  }

  test("an agent's own facts reach only calls acting as it; workspace facts reach every call", async () => {
    const { open, support, sales } = await world();
    const taught = await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "Refund tickets over 500 euros go to Priya." }], scope: "agent" });
    expect(taught.json.data).toMatchObject({ created: 1 });
    expect((await rest(sales, "POST", "/v1/memory/facts", { facts: [{ text: "The refund desk closes at 6 pm." }] })).json.data.created).toBe(1);

    const query = { query: "refund", limit: 10 };
    const shared = ["The refund desk closes at 6 pm."];
    const own = ["Refund tickets over 500 euros go to Priya.", "The refund desk closes at 6 pm."];
    expect(texts(await rest(support, "POST", "/v1/memory/search", query))).toEqual(own);
    expect(texts(await rest(sales, "POST", "/v1/memory/search", query))).toEqual(shared);
    expect(texts(await rest(open, "POST", "/v1/memory/search", query))).toEqual(shared);
    // An unbound key acts as the agent it names; a bound key may name only its own.
    expect(texts(await rest(open, "POST", "/v1/memory/search", { ...query, agent: "support" }))).toEqual(own);
    expect(texts(await rest(support, "POST", "/v1/memory/search", { ...query, agent: "support" }))).toEqual(own);
    const mismatch = await rest(sales, "POST", "/v1/memory/search", { ...query, agent: "support" });
    expect(mismatch.status).toBe(403);
    expect(mismatch.json.error.code).toBe("agent_mismatch");
    expect(JSON.stringify(mismatch.json)).not.toContain("Priya");

    // The packet, the facts API and a fact fetched by id follow the same rule.
    const packet = async (key: TestKey, body: Record<string, unknown> = {}) =>
      (await rest(key, "POST", "/v1/memory/context", { query: "refund", ...body })).json.data.rendered as string;
    expect(await packet(support)).toContain("Priya");
    expect(await packet(open, { agent: "support" })).toContain("Priya");
    expect(await packet(sales)).not.toContain("Priya");
    expect(await packet(open)).not.toContain("Priya");
    expect(texts(await rest(sales, "GET", "/v1/memory/facts"))).toEqual(shared);
    const mine = (await rest(support, "GET", "/v1/memory/facts")).json.data.facts as { fact_id: string; fact_text: string }[];
    const privateId = mine.find((f) => f.fact_text.includes("Priya"))!.fact_id;
    expect((await rest(support, "GET", `/v1/memory/facts/${privateId}`)).status).toBe(200);
    expect((await rest(sales, "GET", `/v1/memory/facts/${privateId}`)).status).toBe(404);
    expect((await rest(open, "GET", `/v1/memory/facts/${privateId}`)).status).toBe(404);
    // The facts API acts as the agent it names too.
    expect(texts(await rest(open, "GET", "/v1/memory/facts?agent=support"))).toEqual(own);
    expect((await rest(open, "GET", `/v1/memory/facts/${privateId}?agent=support`)).status).toBe(200);
    expect((await rest(sales, "GET", "/v1/memory/facts?agent=support")).status).toBe(403);
    expect((await rest(open, "GET", "/v1/memory/facts?agent=ghost")).status).toBe(422);
  });

  test("bad agent input is a 422 naming the field, never a 500", async () => {
    const { open, support } = await world();
    const unknown = await rest(open, "POST", "/v1/memory/search", { query: "refund", agent: "ghost" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details.fields).toEqual([{ path: "agent", reason: "no such agent in this workspace" }]);
    const malformed = await rest(open, "POST", "/v1/memory/facts", { facts: [{ text: "x y z" }], agent: "Not A Slug" });
    expect(malformed.status).toBe(422);
    expect(JSON.stringify(malformed.json.error.details)).toContain("agent");
    const noAgent = await rest(open, "POST", "/v1/memory/facts", { facts: [{ text: "The night shift starts at 10 pm." }], scope: "agent" });
    expect(noAgent.status).toBe(422);
    expect(noAgent.json.error.details.fields).toEqual([{ path: "scope", reason: "no agent to keep the facts for" }]);
    const badScope = await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "The night shift starts at 10 pm." }], scope: "team" });
    expect(badScope.status).toBe(422);
    // None of these taught anything.
    expect((await rest(support, "GET", "/v1/memory/facts")).json.data.facts).toEqual([]);
    // A key cannot be bound to an agent the workspace does not have.
    const badKey = await admin("POST", `/v1/admin/workspaces/${open.workspace}/keys`, { name: "k", scopes: ["memory.read"], agent: "ghost" });
    expect(badKey.status).toBe(422);
    const bound = await admin("POST", `/v1/admin/workspaces/${open.workspace}/keys`, { name: "k", scopes: ["memory.read"], agent: "support" });
    expect(bound.status).toBe(201);
    expect(bound.json.data.agent).toBe("support");
  });

  test("duplicates and supersession stay inside one scope", async () => {
    const { open, support, sales } = await world();
    expect((await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "My manager is Tomasz." }], scope: "agent" })).json.data).toMatchObject({
      created: 1,
    });
    // The same text as a workspace fact is not a duplicate of the private one: everyone else needs it.
    expect((await rest(open, "POST", "/v1/memory/facts", { facts: [{ text: "My manager is Tomasz." }] })).json.data).toMatchObject({
      created: 1,
      skipped: 0,
    });
    // A new workspace value replaces the workspace's, never the agent's own, and says nothing of it.
    const changed = await rest(sales, "POST", "/v1/memory/facts", { facts: [{ text: "My manager is Ines." }] });
    expect(changed.json.data).toMatchObject({ created: 0, superseded: 1 });
    expect(texts(await rest(sales, "POST", "/v1/memory/search", { query: "who is my manager" }))).toEqual(["My manager is Ines."]);
    expect(texts(await rest(support, "POST", "/v1/memory/search", { query: "who is my manager" }))).toEqual(["My manager is Ines.", "My manager is Tomasz."]);
    // The agent's own new value replaces its own old one.
    const own = await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "My manager is Wojtek." }], scope: "agent" });
    expect(own.json.data).toMatchObject({ created: 0, superseded: 1 });
    expect(texts(await rest(support, "POST", "/v1/memory/search", { query: "who is my manager" }))).toEqual(["My manager is Ines.", "My manager is Wojtek."]);
  });

  test("an agent with its own facts or bound keys cannot be deleted", async () => {
    const { open, support } = await world();
    await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "Macros live in the shared drive." }], scope: "agent" });
    const refused = await admin("DELETE", `/v1/admin/workspaces/${open.workspace}/agents/support`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("agent_in_use");
    expect(refused.json.error.details).toEqual({ facts: 1, keys: 1 });
    // "sales" has a bound key too; a fresh agent with nothing is deleted.
    expect((await admin("POST", `/v1/admin/workspaces/${open.workspace}/agents`, { slug: "temp", display_name: "Temp" })).status).toBe(201);
    expect((await admin("DELETE", `/v1/admin/workspaces/${open.workspace}/agents/temp`)).status).toBe(200);
  });

  test("every fact says where it came from: the key, the agent it acted as, the route or tool", async () => {
    const { open, support } = await world();
    await rest(support, "POST", "/v1/memory/facts", { facts: [{ text: "The returns form is on page 4." }], scope: "agent" });
    await rest(open, "POST", "/v1/memory/messages", { messages: [{ role: "user", content: "I moved to Porto." }], end_user: { id: "c-1" } });
    const client = served.closeLater(await connectMcpV2(served.base, open.secret));
    expect((await client.callTool({ name: "teach_memory", arguments: { facts: [{ text: "Invoices are due in 30 days." }] } })).isError).toBeFalsy();
    await admin("POST", `/v1/admin/workspaces/${open.workspace}/facts`, { facts: [{ text: "The office closes on holidays." }] });
    const listed = (await admin("GET", `/v1/admin/workspaces/${open.workspace}/facts`)).json.data.facts as {
      text: string;
      taught_by_key: string | null;
      taught_by_agent: string | null;
      taught_via: string | null;
    }[];
    const source = (text: string) => {
      const f = listed.find((l) => l.text === text)!;
      return [f.taught_by_key, f.taught_by_agent, f.taught_via];
    };
    expect(source("The returns form is on page 4.")).toEqual([support.id, "support", "POST /v1/memory/facts"]);
    expect(source("I moved to Porto.")).toEqual([open.id, null, "POST /v1/memory/messages"]);
    expect(source("Invoices are due in 30 days.")).toEqual([open.id, null, "MCP tool teach_memory"]);
    expect(source("The office closes on holidays.")).toEqual([null, null, "admin API (teach as the workspace)"]);
  });

  test("over MCP a bound key gets its agent's memory from the key alone", async () => {
    const { support, sales } = await world();
    const client = served.closeLater(await connectMcpV2(served.base, support.secret));
    const tool = async (key: string, name: string, args: Record<string, unknown>) => {
      const c = key === support.secret ? client : served.closeLater(await connectMcpV2(served.base, key));
      return c.callTool({ name, arguments: args });
    };
    const taught = await tool(support.secret, "teach_memory", { facts: [{ text: "Customer Zofia prefers email over phone." }], scope: "agent" });
    expect(taught.isError).toBeFalsy();
    const mine = await tool(support.secret, "search_memory", { query: "how does Zofia like to be contacted" });
    expect(JSON.stringify(mine.structuredContent)).toContain("prefers email");
    const theirs = await tool(sales.secret, "search_memory", { query: "how does Zofia like to be contacted" });
    expect(JSON.stringify(theirs.structuredContent)).not.toContain("prefers email");
    const crossed = await tool(sales.secret, "search_memory", { query: "Zofia", agent: "support" });
    expect(crossed.isError).toBe(true);
    expect(JSON.parse((crossed.content as { text: string }[])[0]!.text)).toMatchObject({ error: "agent_mismatch", http_status: 403 });
  });
});
