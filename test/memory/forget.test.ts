/**
 * Forgetting in bulk over the admin API, on both databases: a preview count first, the run
 * refused when memory changed since, the facts gone from every read once it returns, the facts
 * they had replaced live again, and every run in the audit log (which forgetting an end user
 * clears of their id).
 */
import { expect, test } from "bun:test";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("bulk forget", (get) => {
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  test("preview, confirm with the count, forget; the replaced facts come back; the audit log keeps the run", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    const teach = (texts: string[], endUser?: string) =>
      call(app, "POST", "/v1/memory/facts", {
        key: key.secret,
        body: { facts: texts.map((text) => ({ text })), ...(endUser && { end_user: { id: endUser } }) },
      });
    await teach(["I live in Lyon.", "My dog is called Rex.", "I prefer window seats."], "u-1");
    await teach(["I live in Oslo."], "u-2");
    await teach(["Ana's manager is Bo."]);
    await teach(["Ana's manager is Cy."]);
    const admin = (path: string, body: unknown) => call(app, "POST", `/v1/admin/workspaces/${key.workspace}${path}`, { headers, body });

    const preview = await admin("/forget/preview", { end_user: "u-1" });
    expect(preview.json.data).toEqual({ count: 3 });
    // Memory changed since the preview: the run is refused, nothing is deleted.
    await teach(["I have two sisters."], "u-1");
    const stale = await admin("/forget", { filter: { end_user: "u-1" }, expected_count: 3 });
    expect([stale.status, stale.json.error.code, stale.json.error.details]).toEqual([409, "forget_count_changed", { count: 4 }]);
    const run = await admin("/forget", { filter: { end_user: "u-1" }, expected_count: 4 });
    expect(run.status).toBe(200);
    expect(run.json.data).toMatchObject({ filter: { end_user: "u-1" }, previewed: 4, deleted: 4, restored: 0, status: "completed" });
    const listed = async (endUser: string): Promise<string[]> =>
      ((await call(app, "GET", `/v1/memory/facts?end_user=${endUser}`, { key: key.secret })).json.data.facts as { fact_text: string }[]).map(
        (f) => f.fact_text,
      );
    expect(await listed("u-1")).toEqual([]);
    expect(await listed("u-2")).toEqual(["I live in Oslo."]);

    // Forgetting the newer value brings the one it replaced back.
    const cy = await admin("/forget", { filter: { text_contains: "is cy" }, expected_count: 1 });
    expect(cy.json.data).toMatchObject({ deleted: 1, restored: 1 });
    const found = await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "who is Ana's manager" } });
    expect(found.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).toEqual(["Ana's manager is Bo."]);

    const log = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/forget-runs`, { headers });
    expect(log.json.data.runs.map((r: { filter: unknown; deleted: number }) => [r.filter, r.deleted])).toEqual([
      [{ text_contains: "is cy" }, 1],
      [{ end_user: "u-1" }, 4],
    ]);
    // Forgetting the end user leaves no run naming them.
    expect((await call(app, "POST", `/v1/admin/workspaces/${key.workspace}/end-users/u-1/forget`, { headers })).status).toBe(200);
    const after = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/forget-runs`, { headers });
    expect(after.json.data.runs.map((r: { filter: unknown }) => r.filter)).toEqual([{ text_contains: "is cy" }]);
  });

  test("a filter is required, and bad filters are 422s that delete nothing", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The lab opens at eight." }] } });
    const admin = (path: string, body: unknown) => call(app, "POST", `/v1/admin/workspaces/${key.workspace}${path}`, { headers, body });
    for (const filter of [{}, { colour: "red" }, { kind: "rumour" }, { observed_after: "yesterday" }, { agent: "Not A Slug" }]) {
      expect((await admin("/forget/preview", filter)).status).toBe(422);
      expect((await admin("/forget", { filter, expected_count: 0 })).status).toBe(422);
    }
    expect((await admin("/forget", { filter: { kind: "observation" } })).status).toBe(422);
    expect((await call(app, "GET", "/v1/memory/facts", { key: key.secret })).json.data.facts).toHaveLength(1);
    expect((await call(app, "POST", `/v1/admin/workspaces/${key.workspace}/forget/preview`, { key: key.secret, body: { kind: "observation" } })).status).toBe(
      401,
    );
  });
});
