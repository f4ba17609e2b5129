import { MIGRATIONS, type Migration } from "./migrations/index";
import type { Db } from "./types";

// Any constant shared by every memoryd instance; it only has to differ from other apps' locks.
const MIGRATION_LOCK_ID = 7_302_911_004;

export interface MigrationReport {
  applied: number[];
  current: number;
}

/**
 * Applies pending migrations in one transaction under an advisory lock: a second instance
 * starting at the same moment waits, then finds nothing left to do.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    await tx.sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`;
    await tx.sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
    const done = new Set((await tx.sql<{ version: number }>`SELECT version FROM schema_migrations`).map((r) => r.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.sql`INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    }
    const current = Math.max(0, ...done, ...applied);
    return { applied, current };
  });
}
