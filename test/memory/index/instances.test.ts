/**
 * Two instances of the service on one database, each with its own search indexes: what one
 * writes (teach, supersede, pin, forget) the other serves on its very next request, through its
 * already built index's delta, not a rebuild.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { AnswerEngine } from "../../../src/answers/engine";
import { sourcesFor } from "../../../src/answers/service";
import type { App } from "../../../src/app";
import { findWorkspace } from "../../../src/auth/workspaces";
import { openPostgres } from "../../../src/db/postgres";
import type { Db } from "../../../src/db/types";
import { createLogger } from "../../../src/log";
import { forgetEndUser, setPinned } from "../../../src/memory/admin";
import { readFactHead } from "../../../src/memory/changes";
import { FactIndexes } from "../../../src/memory/index/registry";
import { visibilityFor } from "../../../src/memory/visibility";
import { call, makeKey, testApp, testConfig, type TestKey } from "../../helpers/app";
import { describeEachDb } from "../../helpers/databases";
import { serviceContext } from "./support";

interface Instance {
  app: App;
  index: FactIndexes;
  db: Db;
}

/** An app with its own FactIndexes, as a separate process would have. */
function instance(db: Db): Instance {
  const config = testConfig();
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
  const engine = new AnswerEngine({ db, index, config, log: createLogger("silent") });
  return { app: testApp(db, {}, engine), index, db };
}

interface WireFact {
  fact_id: string;
  fact_text: string;
  layer?: string;
}

describeEachDb("two instances, one database", (get, kind) => {
  let otherDb: Db | undefined;
  let a: Instance;
  let b: Instance;
  beforeAll(() => {
    // On PostgreSQL the second instance has its own connection pool, as a second process would.
    otherDb = kind === "postgres" ? openPostgres({ url: get().config.databaseUrl ?? "", maxConnections: 4 }) : undefined;
    a = instance(get().db);
    b = instance(otherDb ?? get().db);
  });
  afterAll(async () => {
    await otherDb?.close();
  });

  const teach = async (on: Instance, key: TestKey, texts: string[], endUser?: { id: string; name?: string }) => {
    const res = await call(on.app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: texts.map((text) => ({ text })), ...(endUser ? { end_user: endUser } : {}) },
    });
    expect(res.status).toBe(202);
    return res.json.data as { created: number; superseded: number; skipped: number };
  };
  const search = async (on: Instance, key: TestKey, query: string, endUser?: string): Promise<WireFact[]> => {
    const res = await call(on.app, "POST", "/v1/memory/search", {
      key: key.secret,
      body: { query, limit: 100, ...(endUser ? { end_user: { id: endUser } } : {}) },
    });
    expect(res.status).toBe(200);
    return res.json.data.facts as WireFact[];
  };
  const context = async (on: Instance, key: TestKey, query: string, endUser?: string): Promise<WireFact[]> => {
    const res = await call(on.app, "POST", "/v1/memory/context", {
      key: key.secret,
      body: { query, token_budget: 4000, ...(endUser ? { end_user: { id: endUser } } : {}) },
    });
    expect(res.status).toBe(200);
    return res.json.data.facts as WireFact[];
  };
  const texts = (facts: WireFact[]) => facts.map((f) => f.fact_text);

  test("read-your-writes across instances: teach on A, the next search on B (index built before) finds it", async () => {
    const key = await makeKey(get().db);
    const ws = await findWorkspace(get().db, key.workspace);
    // B builds its index first: every later read must come from the delta.
    expect(await search(b, key, "Zephyr launch")).toEqual([]);
    const builds = b.index.stats().builds;

    await teach(a, key, ["Project Zephyr launches in June."]);
    expect(texts(await search(b, key, "Zephyr launch"))).toEqual(["Project Zephyr launches in June."]);

    // Supersession: the old value disappears from B on the next request.
    expect(await teach(a, key, ["Ana's manager is Bo."])).toMatchObject({ created: 1, superseded: 0 });
    expect(texts(await search(b, key, "Ana manager"))).toEqual(["Ana's manager is Bo."]);
    expect(await teach(a, key, ["Ana's manager is Cy."])).toMatchObject({ created: 0, superseded: 1 });
    const after = await search(b, key, "Ana manager");
    expect(texts(after)).toEqual(["Ana's manager is Cy."]);
    expect(texts(await search(b, key, "Bo"))).not.toContain("Ana's manager is Bo.");

    // Pin and unpin: B's packet has the fact in its pinned core at once, then no longer.
    const cy = after[0]!.fact_id;
    const pinnedCore = async () => (await context(b, key, "weather in Lisbon")).filter((f) => f.layer === "pinned_core").map((f) => f.fact_id);
    expect(await pinnedCore()).toEqual([]);
    await setPinned(a.db, cy, true);
    expect(await pinnedCore()).toEqual([cy]);
    await setPinned(a.db, cy, false);
    expect(await pinnedCore()).toEqual([]);

    // All of it through B's original index: no rebuild, and B is at the database's head.
    expect(b.index.stats().builds).toBe(builds);
    const head = (await readFactHead(get().db, ws.id))!;
    expect((await b.index.read(ws.id, head.seq)).seq).toBe(head.seq);
    expect(b.index.stats().builds).toBe(builds);
  }, 30_000);

  test("writes on both instances interleaved: each sees the other's on its next request", async () => {
    const key = await makeKey(get().db);
    await search(a, key, "anything");
    await search(b, key, "anything");
    const builds = [a.index.stats().builds, b.index.stats().builds];
    for (let i = 0; i < 6; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const text = `Checkpoint marker${i} reached by the relay crew.`;
      await teach(writer, key, [text]);
      expect(texts(await search(reader, key, `marker${i}`))).toEqual([text]);
      expect(texts(await search(reader, key, "relay crew checkpoint"))).toHaveLength(i + 1);
    }
    expect([a.index.stats().builds, b.index.stats().builds]).toEqual(builds);
  }, 30_000);

  test("forgetting an end user: B never serves those facts again, in search, context or sources", async () => {
    const key = await makeKey(get().db);
    const ws = await findWorkspace(get().db, key.workspace);
    await teach(a, key, ["Loves dark roast coffee.", "Lives in Porto near the river."], { id: "cust-9", name: "Rita" });
    await teach(a, key, ["Prefers oat milk in coffee."], { id: "cust-10", name: "Sam" });
    await teach(a, key, ["The office coffee comes from Lisbon roasters."]);

    const before = await search(b, key, "coffee Porto", "cust-9");
    expect(texts(before).sort()).toEqual(["Lives in Porto near the river.", "Loves dark roast coffee.", "The office coffee comes from Lisbon roasters."]);
    const forgotten = before.filter((f) => f.fact_text !== "The office coffee comes from Lisbon roasters.").map((f) => f.fact_id);
    const aboutActor = (await context(b, key, "coffee", "cust-9")).filter((f) => f.layer === "about_actor").map((f) => f.fact_id);
    expect(aboutActor.sort()).toEqual([...forgotten].sort());
    const builds = b.index.stats().builds;
    const office = before.find((f) => f.fact_text.startsWith("The office"))!.fact_id;
    const other = (await search(b, key, "oat milk", "cust-10"))[0]!.fact_id;

    const receipt = await get().db.transaction((tx) => forgetEndUser(tx, ws, "cust-9"));
    expect(receipt.facts_deleted).toBe(2);

    const searched = await search(b, key, "coffee Porto river roast", "cust-9");
    expect(texts(searched)).toEqual(["The office coffee comes from Lisbon roasters."]);
    for (const query of ["coffee", "Porto", "the", "Rita"]) {
      const ids = (await search(b, key, query, "cust-9")).map((f) => f.fact_id);
      for (const id of forgotten) expect(ids).not.toContain(id);
    }
    const packet = (await context(b, key, "coffee Porto", "cust-9")).map((f) => f.fact_id);
    for (const id of forgotten) expect(packet).not.toContain(id);
    expect(packet).toContain(office);
    // Another end user's facts are untouched.
    expect((await search(b, key, "oat milk", "cust-10")).map((f) => f.fact_id)).toEqual([other]);

    // Sources of an answer are resolved through the index too: a forgotten id resolves to nothing.
    const head = (await readFactHead(get().db, ws.id))!;
    const ctx = serviceContext(b.db, b.index, ws.id, { factSeq: head.seq });
    const sources = await sourcesFor(b.index, visibilityFor(ctx.caller, "cust-9"), head.seq, [...forgotten, office]);
    expect(sources.map((s) => s.fact_id)).toEqual([office]);
    expect(b.index.stats().builds).toBe(builds);
  }, 30_000);
});
