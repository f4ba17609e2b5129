import type { Db } from "./types";

/** Distinguishes the maintenance lock from other advisory locks. */
const MAINTENANCE_LOCK_ID = 7_302_911_006;

/**
 * Tables whose queries (answer queue, claim lookups, authentication, the change log) need
 * current planner statistics. PGlite runs no autovacuum at all, and a PostgreSQL may run with it
 * off: without this their plans would rest on statistics from an empty database.
 */
const ANALYZED_TABLES = [
  "facts",
  "fact_sequences",
  "fact_tombstones",
  "end_users",
  "api_keys",
  "oauth_tokens",
  "rate_limit_hits",
  "answers",
  "conversations",
  "messages",
  "idempotency_keys",
] as const;

/**
 * Refreshes planner statistics (ANALYZE samples a bounded number of rows, so it stays cheap at
 * millions of facts). Trade-off: one instance at a time does it, under a transaction-scoped
 * try-lock; the others skip this round rather than repeat the same work.
 */
export async function refreshStatistics(db: Db, tables: readonly string[] = ANALYZED_TABLES): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${MAINTENANCE_LOCK_ID}) AS locked`;
    if (!rows[0]?.locked) return false;
    await tx.exec(`ANALYZE ${tables.join(", ")}`);
    return true;
  });
}
