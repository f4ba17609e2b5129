import { expect, test } from "bun:test";
import { MIGRATIONS } from "../../src/db/migrations/index";
import { makeKey, TEST_ADMIN_TOKEN, call, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("GET /v1/admin/status", (get) => {
  test("the database, migrations, the answer queue, counts and this process's index memory", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    expect((await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Status probe fact." }] } })).status).toBe(202);
    // A search builds the workspace's index in this process.
    expect((await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "status probe" } })).status).toBe(200);
    const res = await call(app, "GET", "/v1/admin/status", { key: TEST_ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const status = res.json.data;
    expect(status.database.kind).toBe(get().db.kind);
    expect(status.database.version).toContain("PostgreSQL");
    expect(status.migrations).toEqual({ applied: MIGRATIONS.length, latest: MIGRATIONS.at(-1)!.version, pending: [] });
    expect(status.answers).toMatchObject({ queued: expect.any(Number), in_progress: expect.any(Number) });
    expect(status.workspaces).toBeGreaterThanOrEqual(1);
    expect(status.live_facts).toBeGreaterThanOrEqual(1);
    expect(status.index.workspaces).toBeGreaterThanOrEqual(1);
    expect(status.index.bytes).toBeGreaterThan(0);
    expect(status.index.budget_bytes).toBeGreaterThan(status.index.bytes);
  });
});
