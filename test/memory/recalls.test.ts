/**
 * Recall counts on both databases: what searches and packets return is counted in memory and
 * written in batches; the facts API, export and the operator's "not recalled in N days" read it;
 * instances add up; a fact deleted before the write is left out.
 */
import { expect, test } from "bun:test";
import { buildContext } from "../../src/memory/context";
import { FactIndexes } from "../../src/memory/index/registry";
import { RecallLog, recallStats } from "../../src/memory/recalls";
import { searchFacts } from "../../src/memory/search";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { serviceContext } from "./index/support";

describeEachDb("recall counts", (get) => {
  const DAY = 86_400_000;

  test("searches and packets are counted, written in one batch, and shown by the facts API, export and the review filter", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    const old = new Date(Date.now() - 40 * DAY).toISOString();
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: {
        facts: [
          { text: "The staging cluster runs in Frankfurt.", observed_at: old },
          { text: "The staging database is backed up nightly.", observed_at: old },
          { text: "Lunch is served at noon on Fridays.", observed_at: old },
        ],
      },
    });
    expect(taught.json.data.created).toBe(3);
    const [workspace] = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${key.workspace}`;
    const workspaceId = workspace!.id;
    const index = new FactIndexes(db, 64 * 1024 * 1024);
    const ctx = serviceContext(db, index, workspaceId);
    const found = await searchFacts(ctx, { query: "staging cluster Frankfurt", limit: 1 });
    expect(found.facts.map((f) => f.fact_text)).toEqual(["The staging cluster runs in Frankfurt."]);
    await searchFacts(ctx, { query: "staging", limit: 10 });
    await buildContext(ctx, { query: "staging database backups", token_budget: 1000 });

    // Nothing is written on the request path.
    const ids = await db.sql<{ id: string; text: string }>`SELECT id, text FROM facts WHERE workspace_id = ${workspaceId}`;
    const id = (text: string): string => ids.find((r) => r.text.startsWith(text))!.id;
    expect((await recallStats(db, [id("The staging cluster")])).get(id("The staging cluster"))).toEqual({ recall_count: 0, last_recalled_at: null });
    await index.recalls.flush();

    const listed = (await call(app, "GET", "/v1/memory/facts", { key: key.secret })).json.data.facts as {
      fact_text: string;
      recall_count: number;
      last_recalled_at: string | null;
    }[];
    const byText = new Map(listed.map((f) => [f.fact_text, f]));
    expect(byText.get("The staging cluster runs in Frankfurt.")!.recall_count).toBe(3);
    expect(byText.get("The staging database is backed up nightly.")!.recall_count).toBe(2);
    expect(byText.get("Lunch is served at noon on Fridays.")).toMatchObject({ recall_count: 0, last_recalled_at: null });
    const last = Date.parse(byText.get("The staging cluster runs in Frankfurt.")!.last_recalled_at!);
    expect(Math.abs(Date.now() - last)).toBeLessThan(60_000);
    const one = await call(app, "GET", `/v1/memory/facts/${id("The staging database")}`, { key: key.secret });
    expect(one.json.data.fact.recall_count).toBe(2);

    // The operator's review: facts observed over 30 days ago that nothing returned in 30 days.
    const admin = { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } };
    const stale = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/facts?not_recalled_days=30`, admin);
    expect(stale.status).toBe(200);
    expect(stale.json.data.facts.map((f: { text: string }) => f.text)).toEqual(["Lunch is served at noon on Fridays."]);
    expect(stale.json.data.facts[0].recall_count).toBe(0);
    const everything = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/facts`, admin);
    expect(everything.json.data.facts.find((f: { text: string }) => f.text.includes("Frankfurt")).recall_count).toBe(3);
    expect((await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/facts?not_recalled_days=0`, admin)).status).toBe(422);
  });

  test("instances add up; a fact deleted before the write is left out; a failed write is kept for the next", async () => {
    const { db } = get();
    const key = await makeKey(db);
    const app = testApp(db);
    await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "Kettle descaling is on Mondays." }, { text: "The spare badge is at reception." }] },
    });
    const [kettle, badge] = (
      await db.sql<{ id: string }>`
      SELECT f.id FROM facts f JOIN workspaces w ON w.id = f.workspace_id WHERE w.slug = ${key.workspace} ORDER BY f.text DESC`
    ).map((r) => r.id);
    const first = new RecallLog(db, null, 60_000);
    const second = new RecallLog(db, null, 60_000);
    first.record([kettle!, badge!], Date.now() - 5_000);
    second.record([kettle!]);
    second.record([kettle!]);
    await Promise.all([first.flush(), second.flush()]);
    expect((await recallStats(db, [kettle!])).get(kettle!)!.recall_count).toBe(3);

    first.record([badge!]);
    expect((await call(app, "DELETE", `/v1/memory/facts/${badge}`, { key: key.secret })).status).toBe(200);
    await first.flush();
    expect(await db.sql`SELECT 1 FROM fact_recalls WHERE fact_id = ${badge!}`).toHaveLength(0);

    // A database that refuses one write: the counts wait for the next one.
    let refuseNext = true;
    const flaky = new Proxy(db, {
      get: (target, prop) => {
        if (prop === "sql" && refuseNext) {
          refuseNext = false;
          return () => Promise.reject(new Error("connection lost"));
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const retrying = new RecallLog(flaky, null, 60_000);
    retrying.record([kettle!]);
    await retrying.flush();
    expect((await recallStats(db, [kettle!])).get(kettle!)!.recall_count).toBe(3);
    await retrying.flush();
    expect((await recallStats(db, [kettle!])).get(kettle!)!.recall_count).toBe(4);
  });
});
