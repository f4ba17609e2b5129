/**
 * The operator's review of supersessions over the admin API, on both databases: recent
 * supersessions listed, undone with the newer fact kept or replaced, announced as fact.restored,
 * and seen by the next search; a restore that would repeat a live fact, or of a live fact, refused.
 */
import { expect, test } from "bun:test";
import { createWebhook } from "../../src/webhooks/service";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("supersession review", (get) => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  test("listed most recent first; undone with the newer fact replaced or kept; announced; searched at once", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    const hook = await createWebhook(db, { allowPrivate: true }, key.workspace, {
      url: "http://127.0.0.1:9/in",
      events: ["fact.restored", "fact.superseded"],
      internal: false,
    });
    const teach = (text: string) => call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text }] } });
    await teach("Ana's manager is Bo.");
    expect((await teach("Ana's manager is Cy.")).json.data.superseded).toBe(1);
    expect((await teach("The standup is at 9:30.")).json.data.created).toBe(1);

    const listed = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/supersessions?limit=10`, { headers: admin });
    expect(listed.status).toBe(200);
    expect(
      listed.json.data.supersessions.map((s: { replaced: { text: string }; replaced_by: { text: string } }) => [s.replaced.text, s.replaced_by.text]),
    ).toEqual([["Ana's manager is Bo.", "Ana's manager is Cy."]]);
    expect(listed.json.data.next_cursor).toBeNull();
    const bo = listed.json.data.supersessions[0].replaced.fact_id as string;
    const cy = listed.json.data.supersessions[0].replaced_by.fact_id as string;

    const search = async (): Promise<string[]> =>
      ((await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "who is Ana's manager" } })).json.data.facts as { fact_text: string }[])
        .map((f) => f.fact_text)
        .filter((t) => t.includes("manager"))
        .sort();
    expect(await search()).toEqual(["Ana's manager is Cy."]);

    const undone = await call(app, "POST", `/v1/admin/facts/${bo}/restore`, { headers: admin, body: { newer: "supersede" } });
    expect(undone.status).toBe(200);
    expect(undone.json.data).toEqual({ fact_id: bo, replaced_by: cy, newer: "superseded" });
    expect(await search()).toEqual(["Ana's manager is Bo."]);
    // Now Cy is the replaced one; keeping Bo live while Cy comes back makes both live.
    const back = await call(app, "POST", `/v1/admin/facts/${cy}/restore`, { headers: admin, body: { newer: "keep" } });
    expect(back.json.data).toEqual({ fact_id: cy, replaced_by: bo, newer: "kept" });
    expect(await search()).toEqual(["Ana's manager is Bo.", "Ana's manager is Cy."]);

    const events = await db.sql<{ payload: string }>`SELECT payload FROM webhook_events WHERE endpoint_id = ${hook.webhook_id} ORDER BY position`;
    expect(events.map((e) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> }).map((e) => [e.type, e.data])).toEqual([
      ["fact.superseded", { fact_id: bo, superseded_by: cy }],
      ["fact.restored", { fact_id: bo, replaced_by: cy, newer: "superseded" }],
      ["fact.superseded", { fact_id: cy, superseded_by: bo }],
      ["fact.restored", { fact_id: cy, replaced_by: bo, newer: "kept" }],
    ]);
  });

  test("refused: a live fact, one a live fact repeats, an unknown fact, a bad body", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    const teach = (text: string) => call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text }] } });
    await teach("Ana's manager is Bo.");
    await teach("Ana's manager is Cy.");
    // Said again: Bo is taught anew, replacing Cy; the first Bo row stays history.
    await teach("Ana's manager is Bo.");
    const listed = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/supersessions`, { headers: { ...admin } });
    const pairs = listed.json.data.supersessions as { replaced: { fact_id: string; text: string }; replaced_by: { text: string } }[];
    const firstBo = pairs.find((p) => p.replaced.text.includes("Bo"))!.replaced.fact_id;
    const repeat = await call(app, "POST", `/v1/admin/facts/${firstBo}/restore`, { headers: admin, body: { newer: "keep" } });
    expect(repeat.status).toBe(409);
    expect(repeat.json.error.code).toBe("already_exists");

    const live = (await call(app, "GET", "/v1/memory/facts", { key: key.secret })).json.data.facts[0].fact_id as string;
    const notSuperseded = await call(app, "POST", `/v1/admin/facts/${live}/restore`, { headers: admin, body: { newer: "keep" } });
    expect([notSuperseded.status, notSuperseded.json.error.code]).toEqual([409, "not_superseded"]);
    expect((await call(app, "POST", "/v1/admin/facts/fact_nope/restore", { headers: admin, body: { newer: "keep" } })).status).toBe(404);
    const bad = await call(app, "POST", `/v1/admin/facts/${firstBo}/restore`, { headers: admin, body: { newer: "maybe" } });
    expect(bad.status).toBe(422);
    expect((await call(app, "POST", `/v1/admin/facts/${firstBo}/restore`, { key: key.secret, body: { newer: "keep" } })).status).toBe(401);
  });
});
