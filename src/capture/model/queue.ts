/**
 * The capture model's queue (migration 024): jobs written in the teach's own transaction, claimed
 * with FOR UPDATE SKIP LOCKED under a lease, retried with backoff, taken over when a lease lapses.
 * SQL per statement, one named function each.
 */
import { fragment, type Fragment } from "../../db/fragment";
import type { Queryable } from "../../db/types";
import { sortableId } from "../../ids";
import type { ChatMessage } from "../../models/types";

export type JobKind = "judge" | "extract";

/** What a teach leaves for the model: the facts it stored, and for a conversation its messages. */
export interface NewJob {
  kind: JobKind;
  factIds: readonly string[];
  messages?: readonly ChatMessage[];
  endUserId: string | null;
  endUserName: string | null;
  agent: string | null;
  observedAt: Date;
}

/** A claimed job, as the worker reads it. */
export interface CaptureJob {
  id: string;
  workspace_id: string;
  kind: JobKind;
  fact_ids: string[];
  messages: ChatMessage[] | null;
  end_user_id: string | null;
  end_user_name: string | null;
  agent_slug: string | null;
  observed_at: Date;
  attempts: number;
  created_at: Date;
}

/**
 * Queues the jobs when the workspace has a capture model, in the caller's transaction. The setting
 * is read in the statement (and by the pipeline with its capture lock), never cached, so turning
 * the model on or off takes effect on every instance at once.
 */
export async function enqueueCaptureJobs(tx: Queryable, workspaceId: string, jobs: readonly NewJob[]): Promise<void> {
  const wanted = jobs.filter((j) => j.factIds.length > 0 || (j.kind === "extract" && (j.messages?.length ?? 0) > 0));
  if (wanted.length === 0) return;
  await tx.sql`
    INSERT INTO capture_jobs (id, workspace_id, kind, fact_ids, messages, end_user_id, end_user_name, agent_slug, observed_at)
    SELECT j.id, w.id, j.kind, coalesce(j.fact_ids::text[], '{}'), j.messages::jsonb, j.end_user_id, j.end_user_name, j.agent_slug, j.observed_at
      FROM workspaces w
     CROSS JOIN unnest(${wanted.map(() => sortableId("cjob"))}::text[], ${wanted.map((j) => j.kind)}::text[],
                       ${wanted.map((j) => `{${j.factIds.join(",")}}`)}::text[], ${wanted.map((j) => (j.messages ? JSON.stringify(j.messages) : null))}::text[],
                       ${wanted.map((j) => j.endUserId)}::text[], ${wanted.map((j) => j.endUserName)}::text[],
                       ${wanted.map((j) => j.agent)}::text[], ${wanted.map((j) => j.observedAt.toISOString())}::timestamptz[])
                AS j(id, kind, fact_ids, messages, end_user_id, end_user_name, agent_slug, observed_at)
     WHERE w.id = ${workspaceId} AND w.capture_provider IS NOT NULL`;
}

/**
 * The job of a capture call as a `WITH` clause the facts' own INSERT carries (capture/store.ts):
 * the workspace has a model (its capture lock said so), and one round trip stores both.
 * Trade-off: the job names every row the call tried to store; one the live-duplicate index refused
 * is simply not found when the job runs.
 */
export function captureJobClause(workspaceId: string, job: NewJob | null): Fragment {
  if (job === null) return fragment``;
  // The messages travel as text and are parsed by the database: a string bound as jsonb would be stored as one JSON string.
  const messages = job.messages ? JSON.stringify(job.messages) : null;
  return fragment`
    WITH queued_capture_job AS (
      INSERT INTO capture_jobs (id, workspace_id, kind, fact_ids, messages, end_user_id, end_user_name, agent_slug, observed_at)
      VALUES (${sortableId("cjob")}, ${workspaceId}, ${job.kind}, ${[...job.factIds]}::text[], ${messages}::text::jsonb,
              ${job.endUserId}, ${job.endUserName}, ${job.agent}, ${job.observedAt.toISOString()}::timestamptz))`;
}

/**
 * Claims up to `limit` jobs ready to run (queued and due, or running under a lapsed lease), oldest
 * first, and leases them to `owner`. The attempt is counted at the claim, so a job whose instance
 * dies every time still reaches its limit.
 */
export async function claimCaptureJobs(db: Queryable, owner: string, limit: number, leaseSeconds: number): Promise<CaptureJob[]> {
  return db.sql<CaptureJob>`
    UPDATE capture_jobs j SET state = 'running', lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseSeconds}),
           attempts = j.attempts + 1
     WHERE j.id IN (
       SELECT id FROM capture_jobs
        WHERE (state = 'queued' AND run_after <= now()) OR (state = 'running' AND lease_until < now())
        ORDER BY created_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING j.id, j.workspace_id, j.kind, j.fact_ids, j.messages, j.end_user_id, j.end_user_name, j.agent_slug, j.observed_at, j.attempts, j.created_at`;
}

/**
 * Extends the leases this owner holds before a model call: a round of long calls must not let
 * another instance take its jobs over while it still works on them.
 */
export async function extendLeases(db: Queryable, ids: readonly string[], owner: string, leaseSeconds: number): Promise<void> {
  if (ids.length === 0) return;
  await db.sql`
    UPDATE capture_jobs SET lease_until = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = ANY(${[...ids]}::text[]) AND lease_owner = ${owner} AND state = 'running'`;
}

/** Ends jobs: `done`, `failed` (given up) or `refused` (the budget was spent), with the error if any. */
export async function finishCaptureJobs(
  db: Queryable,
  ids: readonly string[],
  state: "done" | "failed" | "refused",
  error: string | null = null,
): Promise<void> {
  if (ids.length === 0) return;
  await db.sql`
    UPDATE capture_jobs SET state = ${state}, finished_at = now(), lease_owner = NULL, lease_until = NULL, last_error = ${error}
     WHERE id = ANY(${[...ids]}::text[])`;
}

/** Gives jobs back to the queue after a failed call, to run again in `delayMs`. */
export async function retryCaptureJobs(db: Queryable, ids: readonly string[], delayMs: number, error: string): Promise<void> {
  if (ids.length === 0) return;
  await db.sql`
    UPDATE capture_jobs SET state = 'queued', run_after = now() + make_interval(secs => ${delayMs / 1000}), lease_owner = NULL, lease_until = NULL,
           last_error = ${error}
     WHERE id = ANY(${[...ids]}::text[])`;
}

/**
 * On the embedded database this process is the only one: jobs a killed predecessor held are
 * claimable now rather than when their leases run out.
 */
export async function releaseAllLeases(db: Queryable): Promise<void> {
  await db.sql`UPDATE capture_jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL WHERE state = 'running'`;
}

/** Finished jobs are kept a week for the status page, then deleted (the decisions stay). */
export async function pruneCaptureJobs(db: Queryable, maxAgeSeconds: number): Promise<void> {
  await db.sql`DELETE FROM capture_jobs WHERE state IN ('done', 'failed', 'refused') AND finished_at < now() - make_interval(secs => ${maxAgeSeconds})`;
}

/** Jobs of a workspace by state, for its status. */
export async function countCaptureJobs(db: Queryable, workspaceId: string): Promise<Record<"queued" | "running" | "done" | "failed" | "refused", number>> {
  const rows = await db.sql<{ state: string; n: number }>`
    SELECT state, count(*)::int AS n FROM capture_jobs WHERE workspace_id = ${workspaceId} GROUP BY state`;
  const counts = { queued: 0, running: 0, done: 0, failed: 0, refused: 0 };
  for (const row of rows) if (row.state in counts) counts[row.state as keyof typeof counts] = row.n;
  return counts;
}

/** Jobs waiting or running across every workspace (the queue-depth metric). */
export async function captureQueueDepth(db: Queryable): Promise<{ queued: number; running: number }> {
  const rows = await db.sql<{ state: string; n: number }>`
    SELECT state, count(*)::int AS n FROM capture_jobs WHERE state IN ('queued', 'running') GROUP BY state`;
  return { queued: rows.find((r) => r.state === "queued")?.n ?? 0, running: rows.find((r) => r.state === "running")?.n ?? 0 };
}
