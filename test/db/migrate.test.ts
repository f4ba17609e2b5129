import { expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbedded } from "../../src/db/embedded";
import { migrate } from "../../src/db/migrate";
import { MIGRATIONS } from "../../src/db/migrations/index";
import { openPostgres } from "../../src/db/postgres";
import { DB_KINDS, embeddedTestTemplate, openTestDatabase } from "../helpers/databases";

const latest = Math.max(...MIGRATIONS.map((m) => m.version));

for (const kind of DB_KINDS) {
  test(`[${kind}] migrations apply once, in order, and are recorded`, async () => {
    const t = await openTestDatabase(kind, { migrate: false });
    try {
      const first = await migrate(t.db);
      expect(first.applied).toEqual(MIGRATIONS.map((m) => m.version));
      expect(first.current).toBe(latest);
      const again = await migrate(t.db);
      expect(again).toEqual({ applied: [], current: latest });
      const rows = await t.db.sql<{ version: number; name: string }>`SELECT version, name FROM schema_migrations ORDER BY version`;
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      // Rate-limit counters write no WAL (005), so authenticating never waits for a flush.
      const [table] = await t.db.sql<{ persistence: string }>`SELECT relpersistence AS persistence FROM pg_class WHERE relname = 'rate_limit_hits'`;
      expect(table?.persistence).toBe("u");
    } finally {
      await t.close();
    }
  }, 60_000);

  test(`[${kind}] a failing migration rolls back entirely`, async () => {
    const t = await openTestDatabase(kind, { migrate: false });
    try {
      const broken = [
        ...MIGRATIONS,
        { version: 900, name: "half", sql: "CREATE TABLE half_done (a int); SELECT no_such_function();" },
      ];
      await expect(migrate(t.db, broken)).rejects.toThrow();
      const tables = await t.db.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('half_done', 'workspaces', 'schema_migrations')`;
      expect(tables[0]?.n).toBe(0);
      expect((await migrate(t.db)).current).toBe(latest);
    } finally {
      await t.close();
    }
  }, 60_000);
}

if (DB_KINDS.includes("postgres")) {
  test("[postgres] two instances migrating at once: one applies, the other waits and finds nothing", async () => {
    const t = await openTestDatabase("postgres", { migrate: false });
    const other = openPostgres({ url: t.config.databaseUrl ?? "", maxConnections: 2 });
    try {
      const [a, b] = await Promise.all([migrate(t.db), migrate(other)]);
      expect([...a.applied, ...b.applied].sort((x, y) => x - y)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(a.current).toBe(latest);
      expect(b.current).toBe(latest);
    } finally {
      await other.close();
      await t.close();
    }
  }, 60_000);
}

test("[embedded] the data dir admits one process; the lock is released on close", async () => {
  const dir = mkdtempSync(join(tmpdir(), "memoryd-lock-"));
  const lockPath = join(dir, "memoryd.lock");
  const first = await openEmbedded(dir, { template: await embeddedTestTemplate() });
  expect(await Bun.file(lockPath).text()).toBe(String(process.pid));
  await first.close();
  expect(existsSync(lockPath)).toBe(false);
  // A lock naming a live process (the test runner's parent) keeps others out, with a clear reason.
  await Bun.write(lockPath, String(process.ppid));
  await expect(openEmbedded(dir)).rejects.toThrow(/in use by another memoryd process/);
  // A lock left by a dead process is taken over.
  await Bun.write(lockPath, "999999");
  const reopened = await openEmbedded(dir);
  await reopened.close();
}, 60_000);
