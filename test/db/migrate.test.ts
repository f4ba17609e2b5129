import { expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
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
      const broken = [...MIGRATIONS, { version: 900, name: "half", sql: "CREATE TABLE half_done (a int); SELECT no_such_function();" }];
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

for (const kind of DB_KINDS) {
  test(`[${kind}] 011 moves a claim's "¬" mark into claim_negated and fills claim_subject`, async () => {
    const t = await openTestDatabase(kind, { migrate: false });
    try {
      await migrate(
        t.db,
        MIGRATIONS.filter((m) => m.version < 11),
      );
      await t.db.sql`INSERT INTO workspaces (id, slug) VALUES ('ws_m', 'm')`;
      const fact = (id: string, key: string | null, value: string | null) => t.db.sql`
        INSERT INTO facts (id, workspace_id, text, normalized, kind, origin, subject, subject_type, confidence, recorded_at, claim_key, claim_value)
        VALUES (${id}, 'ws_m', ${id}, ${id}, 'profile_fact', 'ingested', 'priya', 'workspace', 0.8, now(), ${key}, ${value})`;
      await fact("fact_a", "one:priya|manager", "\u00actom");
      await fact("fact_b", "many:user:u-7|speaks|french", "french");
      await fact("fact_c", null, null);
      await migrate(t.db);
      const rows = await t.db.sql<{ id: string; claim_subject: string | null; claim_value: string | null; claim_negated: boolean }>`
        SELECT id, claim_subject, claim_value, claim_negated FROM facts ORDER BY id`;
      expect(rows).toEqual([
        { id: "fact_a", claim_subject: "priya", claim_value: "tom", claim_negated: true },
        { id: "fact_b", claim_subject: "user:u-7", claim_value: "french", claim_negated: false },
        { id: "fact_c", claim_subject: null, claim_value: null, claim_negated: false },
      ]);
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

test("[embedded] the data dir admits one process, across pid namespaces; the lock is released on close", async () => {
  const dir = mkdtempSync(join(tmpdir(), "memoryd-lock-"));
  const lockPath = join(dir, "memoryd.lock");
  const owner = (value: Record<string, unknown>, ageMs = 0): void => {
    mkdirSync(lockPath, { recursive: true });
    writeFileSync(join(dir, "memoryd.owner.json"), JSON.stringify(value));
    const when = new Date(Date.now() - ageMs);
    utimesSync(lockPath, when, when);
  };
  const first = await openEmbedded(dir, { template: await embeddedTestTemplate() });
  expect(JSON.parse(readFileSync(join(dir, "memoryd.owner.json"), "utf8"))).toMatchObject({ pid: process.pid, hostname: hostname() });
  await first.close();
  expect(existsSync(lockPath)).toBe(false);
  expect(existsSync(join(dir, "memoryd.owner.json"))).toBe(false);

  // A live process on this host keeps others out, with a clear reason.
  owner({ pid: process.ppid, hostname: hostname() });
  await expect(openEmbedded(dir)).rejects.toThrow(/in use by another memoryd process \(pid \d+ on /);
  // Another container on the same volume, whose memoryd has our pid (both pid 1): still kept out.
  owner({ pid: process.pid, hostname: "another-container" });
  await expect(openEmbedded(dir)).rejects.toThrow(/on another-container/);
  // ... until it stops refreshing the lock: a lock untouched for 10 s is taken over.
  owner({ pid: process.pid, hostname: "another-container" }, 30_000);
  const afterStale = await openEmbedded(dir);
  await afterStale.close();
  // A lock left by a dead process on this host is taken over at once.
  owner({ pid: 999_999, hostname: hostname() });
  const reopened = await openEmbedded(dir);
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);
