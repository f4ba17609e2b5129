/**
 * Search with an embeddings endpoint (the fake one on loopback, through memoryd's embeddings
 * client) on both databases: facts get vectors after they are stored, a question in other words
 * finds its fact, a fact not yet embedded is still found by its words, an endpoint that is down,
 * hanging or answering garbage leaves search answering by words within the timeout, and forget
 * and delete take the vectors with the facts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call, makeKey, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";
import { embedAll, type SemanticHarness, semanticApp } from "../helpers/semantic-app";

const search = (h: SemanticHarness, key: TestKey, query: string, extra: Record<string, unknown> = {}) =>
  call(h.app, "POST", "/v1/memory/search", { key: key.secret, body: { query, limit: 5, ...extra } });

describeEachDb("search with an embeddings endpoint", (get) => {
  let fake: FakeEmbeddings;
  beforeAll(() => {
    fake = startFakeEmbeddings({ concepts: [["hobby", "pottery", "ceramics"]] });
  });
  afterAll(async () => {
    await fake.stop();
  });

  test("a question in other words finds its fact once the fact has a vector", async () => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    const taught = await call(h.app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "I go to a pottery class every Thursday." }, { text: "Our invoices are due on the first of the month." }] },
    });
    expect(taught.status).toBe(202);
    // Not embedded yet: nothing shares a word with the question.
    expect((await search(h, key, "what hobbies do I have?")).json.data.facts).toEqual([]);
    expect(await embedAll(h, key.workspace, get().db)).toBe(2);
    const found = await search(h, key, "what hobbies do I have?", { explain: true });
    expect(found.status).toBe(200);
    expect(found.json.data.facts[0].fact_text).toBe("I go to a pottery class every Thursday.");
    expect(found.json.data.facts[0].explanation.vector.rank).toBe(1);
    // The model's prefixes went with the texts, and the query was embedded once per search.
    expect(fake.requests.flat()).toContain("search_document: I go to a pottery class every Thursday.");
    expect(fake.requests.flat()).toContain("search_query: what hobbies do I have?");
  });

  test("a question asked again reuses its vector; a new one, or one whose call failed, asks the endpoint", async () => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "I go to a pottery class every Thursday." }] } });
    await embedAll(h, key.workspace, get().db);
    const asked = (text: string): number => fake.requests.filter((r) => r.includes(`search_query: ${text}`)).length;
    for (let i = 0; i < 3; i++) expect((await search(h, key, "which hobby do I have?")).json.data.facts[0].fact_text).toContain("pottery");
    expect(asked("which hobby do I have?")).toBe(1);
    // Searches that start together share the one call.
    await Promise.all([search(h, key, "what do I do on Thursdays?"), search(h, key, "what do I do on Thursdays?")]);
    expect(asked("what do I do on Thursdays?")).toBe(1);
    const before = asked("what hobbies do I have?");
    fake.mode = "down";
    await search(h, key, "what hobbies do I have?");
    fake.mode = "ok";
    const found = await search(h, key, "what hobbies do I have?", { explain: true });
    expect(asked("what hobbies do I have?")).toBe(before + 2);
    expect(found.json.data.facts[0].explanation.vector.rank).toBe(1);
  });

  test("a fact not yet embedded is found by its words (reads see writes)", async () => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The staging database runs PostgreSQL 15." }] } });
    await embedAll(h, key.workspace, get().db);
    await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The billing service runs on Node 22." }] } });
    const found = await search(h, key, "which Node version does billing run?");
    expect(found.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).toContain("The billing service runs on Node 22.");
  });

  test.each(["down", "hang", "garbage"] as const)("endpoint %s: search answers by words, within the timeout", async (mode) => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Dana's favourite colour is teal." }] } });
    await embedAll(h, key.workspace, get().db);
    fake.mode = mode;
    const started = performance.now();
    const found = await search(h, key, "what is Dana's favourite colour?");
    const elapsed = performance.now() - started;
    expect(found.status).toBe(200);
    expect(found.json.data.facts[0].fact_text).toBe("Dana's favourite colour is teal.");
    // Bounded by the timeout, whatever the endpoint does (generous margin: the machine is shared).
    expect(elapsed).toBeLessThan(h.config.embeddingsTimeoutMs + 2_000);
    expect(h.embeddings.semantic.stats().failures[mode === "hang" ? "timeout" : mode === "down" ? "unavailable" : "garbage"]).toBeGreaterThan(0);
    fake.mode = "ok";
  });

  test("visibility applies before vectors rank: an end user's facts never reach another end user or an external key", async () => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    const external = await makeKey(get().db, { workspace: key.workspace, audience: "external" });
    await call(h.app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "I love ceramics." }], end_user: { id: "u-ana" } },
    });
    await embedAll(h, key.workspace, get().db);
    expect((await search(h, key, "hobby", { end_user: { id: "u-ana" } })).json.data.facts).toHaveLength(1);
    expect((await search(h, key, "hobby", { end_user: { id: "u-bo" } })).json.data.facts).toEqual([]);
    expect((await search(h, key, "hobby")).json.data.facts).toEqual([]);
    expect((await search(h, external, "hobby", { end_user: { id: "u-bo" } })).json.data.facts).toEqual([]);
  });

  test("delete and forget take the vectors with the facts", async () => {
    fake.mode = "ok";
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    const taught = await call(h.app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "Pottery on Saturdays." }, { text: "Ceramics on Sundays." }], end_user: { id: "u-cy" } },
    });
    await embedAll(h, key.workspace, get().db);
    const ids: string[] = taught.json.data.fact_ids ?? [];
    const count = async (): Promise<number> => {
      const [row] = await get().db.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM fact_vectors v JOIN workspaces w ON w.id = v.workspace_id WHERE w.slug = ${key.workspace}`;
      return row?.n ?? 0;
    };
    expect(await count()).toBe(2);
    const listed = await call(h.app, "GET", "/v1/memory/facts?end_user=u-cy", { key: key.secret });
    const first = (listed.json.data.facts as { fact_id: string }[])[0]!.fact_id;
    expect((await call(h.app, "DELETE", `/v1/memory/facts/${first}?end_user=u-cy`, { key: key.secret })).status).toBe(200);
    expect(await count()).toBe(1);
    expect(ids.length === 0 || ids.includes(first)).toBe(true);
  });
});
