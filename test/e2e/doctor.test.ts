import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { cleanup, cliOk, startServer, tempDir, waitReady } from "./binary";

setDefaultTimeout(120_000);
afterAll(cleanup, 30_000);

const ADMIN = "e2e-doctor-admin-token-0123456789";

describe("memoryd doctor [embedded]", () => {
  test("reads a data directory no server holds; names the server that holds one; asks it with --url", async () => {
    const dataDir = join(tempDir("memoryd-e2e-doctor-"), "data");
    const server = await startServer({ dataDir, env: { MEMORYD_ADMIN_TOKEN: ADMIN } });
    await waitReady(server.url);
    const held = await cliOk(["doctor", "--data-dir", dataDir]);
    expect(held).toContain(`in use by memoryd pid ${server.proc.pid}`);
    expect(held).toContain("pass --url");
    const asked = JSON.parse(await cliOk(["doctor", "--data-dir", dataDir, "--url", server.url, "--json"], { env: { MEMORYD_ADMIN_TOKEN: ADMIN } }));
    expect(asked.data_dir_lock.held_by.pid).toBe(server.proc.pid);
    expect(asked.status.database.kind).toBe("embedded");
    expect(asked.status.migrations.pending).toEqual([]);
    expect(asked.status.index.budget_bytes).toBe(1024 * 1024 * 1024);
    await server.stop();

    const offline = await cliOk(["doctor", "--data-dir", dataDir]);
    expect(offline).toContain("not in use");
    expect(offline).toMatch(/database: embedded, PostgreSQL \d+/);
    expect(offline).toMatch(/migrations: \d+ applied, up to date/);
    expect(offline).toContain("answers: 0 queued, 0 in progress");
    expect(offline).toContain("workspaces: 1");
  });
});
