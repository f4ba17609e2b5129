/**
 * What an operator looks at first when something is wrong (`memoryd doctor`, `GET
 * /v1/admin/status`): the database and its schema, the answer queue, how much there is, and, in
 * the serving process, the search indexes' memory against their budget.
 */
import type { Db } from "../db/types";
import { MIGRATIONS } from "../db/migrations/index";
import type { IndexStats } from "../memory/index/registry";

export interface ServiceStatus {
  database: { kind: Db["kind"]; version: string };
  migrations: { applied: number; latest: number; pending: number[] };
  answers: { queued: number; in_progress: number; oldest_queued_seconds: number | null };
  workspaces: number;
  live_facts: number;
  /** Only the serving process has indexes: null from the CLI. */
  index: { workspaces: number; facts: number; bytes: number; budget_bytes: number } | null;
}

export async function serviceStatus(db: Db, index: IndexStats | null): Promise<ServiceStatus> {
  const [version] = await db.sql<{ version: string }>`SELECT version()`;
  const applied = await db.sql<{ version: number }>`SELECT version FROM schema_migrations ORDER BY version`.catch(() => []);
  const done = new Set(applied.map((r) => r.version));
  const database = { kind: db.kind, version: version?.version ?? "unknown" };
  const migrations = {
    applied: done.size,
    latest: MIGRATIONS.at(-1)?.version ?? 0,
    pending: MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.version),
  };
  const indexStatus = index === null ? null : { workspaces: index.workspaces, facts: index.facts, bytes: index.bytes, budget_bytes: index.budgetBytes };
  // A database memoryd never migrated has none of its tables yet.
  if (done.size === 0)
    return { database, migrations, answers: { queued: 0, in_progress: 0, oldest_queued_seconds: null }, workspaces: 0, live_facts: 0, index: indexStatus };
  // One pass over the answers that are not final: the queue is small, history is not read.
  const [queue] = await db.sql<{ queued: number; in_progress: number; oldest: number | null }>`
    SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
           count(*) FILTER (WHERE status = 'in_progress')::int AS in_progress,
           extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'queued'))::float8 AS oldest
      FROM answers WHERE status IN ('queued', 'in_progress')`;
  const [counts] = await db.sql<{ workspaces: number; live_facts: number }>`
    SELECT (SELECT count(*) FROM workspaces)::int AS workspaces,
           (SELECT count(*) FROM facts WHERE superseded_by IS NULL)::int AS live_facts`;
  return {
    database,
    migrations,
    answers: {
      queued: queue?.queued ?? 0,
      in_progress: queue?.in_progress ?? 0,
      oldest_queued_seconds: queue?.oldest === null || queue?.oldest === undefined ? null : Math.round(queue.oldest),
    },
    workspaces: counts?.workspaces ?? 0,
    live_facts: counts?.live_facts ?? 0,
    index: indexStatus,
  };
}
