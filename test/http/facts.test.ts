/** The facts API for key holders (GET/DELETE /v1/memory/facts): the audience and end-user rules of search, on both databases. */
import { expect, test } from "bun:test";
import { call, makeKey, testApp, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("facts API", (get) => {
  const teach = (app: ReturnType<typeof testApp>, key: TestKey, texts: string[], endUser?: { id: string; name?: string }) =>
    call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: texts.map((text) => ({ text })), ...(endUser ? { end_user: endUser } : {}) } });
  const texts = (res: { json: { data: { facts: { fact_text: string }[] } } }) => res.json.data.facts.map((f) => f.fact_text);

  test("list: the visible facts newest first, audience and end-user rules as search, filters and cursor paging", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    await teach(app, key, ["Ana's manager is Bo.", "The staging password is hunter2.", "We decided to release on Tuesdays."]);
    await teach(app, key, ["Dana prefers tea."], { id: "u-1", name: "Dana" });
    const external = await makeKey(get().db, { workspace: key.workspace, audience: "external", scopes: ["memory.read"] });

    const all = await call(app, "GET", "/v1/memory/facts", { key: key.secret });
    expect(texts(all)).toEqual(["We decided to release on Tuesdays.", "The staging password is hunter2.", "Ana's manager is Bo."]);
    expect(Object.keys(all.json.data.facts[0]).sort()).toEqual([
      "confidence_level",
      "fact_id",
      "fact_text",
      "kind",
      "last_recalled_at",
      "origin",
      "recall_count",
      "recorded_time",
      "subject",
    ]);
    expect(texts(await call(app, "GET", "/v1/memory/facts", { key: external.secret }))).toEqual(["Ana's manager is Bo."]);
    expect(texts(await call(app, "GET", "/v1/memory/facts?end_user=u-1", { key: key.secret }))).toEqual(["Dana prefers tea."]);
    expect(texts(await call(app, "GET", "/v1/memory/facts?kind=decision", { key: key.secret }))).toEqual(["We decided to release on Tuesdays."]);
    expect(texts(await call(app, "GET", "/v1/memory/facts?subject=Ana", { key: key.secret }))).toEqual(["Ana's manager is Bo."]);
    const first = await call(app, "GET", "/v1/memory/facts?limit=2", { key: key.secret });
    expect(first.json.data.facts).toHaveLength(2);
    const second = await call(app, "GET", `/v1/memory/facts?limit=2&cursor=${first.json.data.next_cursor}`, { key: key.secret });
    expect([...texts(first), ...texts(second)]).toEqual(texts(all));
    expect(second.json.data.next_cursor).toBeNull();
    const bad = await call(app, "GET", "/v1/memory/facts?limit=500&kind=rumour", { key: key.secret });
    expect([bad.status, bad.json.error.code]).toEqual([422, "validation_error"]);
    // Another workspace's key sees none of it.
    expect(texts(await call(app, "GET", "/v1/memory/facts", { key: (await makeKey(get().db)).secret }))).toEqual([]);
  });

  test("one fact with the earlier versions of its claim; a fact the key may not see is a 404", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    await teach(app, key, ["Ana's manager is Bo."]);
    await teach(app, key, ["Ana's manager is Cy."]);
    await teach(app, key, ["The staging password is hunter2."]);
    await teach(app, key, ["Dana prefers tea."], { id: "u-1" });
    const listed = (await call(app, "GET", "/v1/memory/facts", { key: key.secret })).json.data.facts as { fact_id: string; fact_text: string }[];
    const id = (text: string) => listed.find((f) => f.fact_text === text)?.fact_id ?? "missing";
    const cy = await call(app, "GET", `/v1/memory/facts/${id("Ana's manager is Cy.")}`, { key: key.secret });
    expect(cy.json.data.fact.fact_text).toBe("Ana's manager is Cy.");
    expect(cy.json.data.replaced.map((f: { fact_text: string }) => f.fact_text)).toEqual(["Ana's manager is Bo."]);

    const external = await makeKey(get().db, { workspace: key.workspace, audience: "external", scopes: ["memory.read", "memory.write"] });
    const secret = id("The staging password is hunter2.");
    expect((await call(app, "GET", `/v1/memory/facts/${secret}`, { key: external.secret })).status).toBe(404);
    expect((await call(app, "DELETE", `/v1/memory/facts/${secret}`, { key: external.secret })).status).toBe(404);
    const dana = (await call(app, "GET", "/v1/memory/facts?end_user=u-1", { key: key.secret })).json.data.facts[0].fact_id;
    expect((await call(app, "GET", `/v1/memory/facts/${dana}`, { key: key.secret })).status).toBe(404);
    expect((await call(app, "GET", `/v1/memory/facts/${dana}?end_user=u-1`, { key: key.secret })).status).toBe(200);
    expect((await call(app, "GET", `/v1/memory/facts/fact_unknown`, { key: key.secret })).status).toBe(404);
  });

  test("delete needs memory.write and is gone on every instance once it returns; the value it replaced is current again", async () => {
    const a = testApp(get().db);
    const b = testApp(get().db);
    const key = await makeKey(get().db);
    await teach(a, key, ["Ana's manager is Bo."]);
    await teach(a, key, ["Ana's manager is Cy."]);
    const search = async (app: ReturnType<typeof testApp>) =>
      texts(await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "Ana manager" } }));
    expect(await search(b)).toEqual(["Ana's manager is Cy."]);
    const cy = (await call(a, "GET", "/v1/memory/facts", { key: key.secret })).json.data.facts[0].fact_id;

    const reader = await makeKey(get().db, { workspace: key.workspace, scopes: ["memory.read"] });
    const refused = await call(a, "DELETE", `/v1/memory/facts/${cy}`, { key: reader.secret });
    expect([refused.status, refused.json.error.code]).toEqual([403, "scope_missing"]);
    const stranger = await makeKey(get().db);
    expect((await call(a, "DELETE", `/v1/memory/facts/${cy}`, { key: stranger.secret })).status).toBe(404);

    const deleted = await call(a, "DELETE", `/v1/memory/facts/${cy}`, { key: key.secret });
    expect(deleted.status).toBe(200);
    expect(deleted.json.data.fact_id).toBe(cy);
    expect(await search(b)).toEqual(["Ana's manager is Bo."]);
    expect(await search(a)).toEqual(["Ana's manager is Bo."]);
    expect((await call(b, "GET", `/v1/memory/facts/${cy}`, { key: key.secret })).status).toBe(404);
  });
});
