import { fragment } from "../db/fragment";
import type { Db, Queryable } from "../db/types";
import type { Audience } from "../schema/auth";
import type { AnswerStatus } from "../schema/answers";
import type { ChatMessage, Usage } from "../models/types";
import { answerFinished, recordEvents, type AnswerEventSource } from "../webhooks/outbox";

export interface RunRow {
  id: string;
  workspace_id: string;
  key_id: string;
  audience: Audience;
  conversation_id: string;
  agent_slug: string;
  input: string;
  end_user_id: string | null;
  end_user_name: string | null;
  streamed: boolean;
  status: AnswerStatus;
  output_text: string;
  input_tokens: number;
  output_tokens: number;
  source_ids: string[];
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  created_at: Date;
}

/** A run's columns, as every statement that returns a run reads them (pg-boss's JOB_COLUMNS). */
const RUN_COLUMNS = fragment`id, workspace_id, key_id, audience, conversation_id, agent_slug, input, end_user_id, end_user_name,
  streamed, status, output_text, input_tokens, output_tokens, source_ids, error_code, error_message, attempts, created_at`;

export async function workspaceCredits(db: Queryable, workspaceId: string): Promise<number> {
  const rows = await db.sql<{ credits: number }>`SELECT credits FROM workspaces WHERE id = ${workspaceId}`;
  return rows[0]?.credits ?? 0;
}

/**
 * Claims an Idempotency-Key for a new answer id. When the key is already held (possibly by a
 * racing request on another instance: the primary key makes it wait for that commit), returns the
 * holder instead. A holder older than 24 h has expired and is replaced.
 */
export async function claimIdempotencyKey(
  tx: Queryable,
  keyId: string,
  idemKey: string,
  requestHash: string,
  answerId: string,
): Promise<{ answerId: string; requestHash: string; fresh: boolean }> {
  const claimed = await tx.sql<{ answer_id: string }>`
    INSERT INTO idempotency_keys (key_id, idem_key, request_hash, answer_id)
    VALUES (${keyId}, ${idemKey}, ${requestHash}, ${answerId})
    ON CONFLICT (key_id, idem_key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, answer_id = EXCLUDED.answer_id, created_at = now()
      WHERE idempotency_keys.created_at < now() - interval '24 hours'
    RETURNING answer_id`;
  if (claimed[0]) return { answerId, requestHash, fresh: true };
  const held = await tx.sql<{ answer_id: string; request_hash: string }>`
    SELECT answer_id, request_hash FROM idempotency_keys WHERE key_id = ${keyId} AND idem_key = ${idemKey}`;
  const row = held[0];
  if (!row) throw new Error("idempotency key vanished while held");
  return { answerId: row.answer_id, requestHash: row.request_hash, fresh: false };
}

export async function ensureConversation(tx: Queryable, workspaceId: string, id: string, endUserId: string | null): Promise<void> {
  await tx.sql`
    INSERT INTO conversations (workspace_id, id, end_user_id) VALUES (${workspaceId}, ${id}, ${endUserId})
    ON CONFLICT (workspace_id, id) DO NOTHING`;
}

export interface NewRun {
  id: string;
  workspaceId: string;
  keyId: string;
  audience: Audience;
  conversationId: string;
  agentSlug: string;
  input: string;
  endUserId: string | null;
  endUserName: string | null;
  streamed: boolean;
  /** Streaming runs start leased to the instance serving the stream. */
  leaseOwner: string | null;
  leaseSeconds: number;
}

/**
 * Inserts the run and its user message, and returns the run as stored. Returns undefined when the
 * conversation already has an unfinished run: the partial unique index decides, across every instance.
 */
export async function insertRun(tx: Queryable, run: NewRun): Promise<RunRow | undefined> {
  const leased = run.leaseOwner !== null;
  const rows = await tx.sql<RunRow>`
    INSERT INTO answers (id, workspace_id, key_id, audience, conversation_id, agent_slug, input, end_user_id,
                         end_user_name, streamed, status, attempts, lease_owner, lease_expires_at, started_at)
    VALUES (${run.id}, ${run.workspaceId}, ${run.keyId}, ${run.audience}, ${run.conversationId}, ${run.agentSlug},
            ${run.input}, ${run.endUserId}, ${run.endUserName}, ${run.streamed},
            ${leased ? "in_progress" : "queued"}, ${leased ? 1 : 0}, ${run.leaseOwner},
            CASE WHEN ${leased}::boolean THEN now() + make_interval(secs => ${run.leaseSeconds}) END,
            CASE WHEN ${leased}::boolean THEN now() END)
    ON CONFLICT (workspace_id, conversation_id) WHERE status IN ('queued', 'in_progress') DO NOTHING
    RETURNING ${RUN_COLUMNS}`;
  const inserted = rows[0];
  if (!inserted) return undefined;
  await tx.sql`
    INSERT INTO messages (workspace_id, conversation_id, answer_id, role, content)
    VALUES (${run.workspaceId}, ${run.conversationId}, ${run.id}, 'user', ${run.input})`;
  return inserted;
}

export async function loadRun(db: Queryable, workspaceId: string, id: string): Promise<RunRow | undefined> {
  const rows = await db.sql<RunRow>`SELECT ${RUN_COLUMNS} FROM answers WHERE id = ${id} AND workspace_id = ${workspaceId}`;
  return rows[0];
}

/**
 * Takes the oldest claimable run: queued, or in progress under a lapsed lease (its instance
 * died). SKIP LOCKED lets any number of workers on any number of instances poll the same table
 * without blocking each other or taking the same run.
 */
export async function claimNextRun(db: Queryable, owner: string, leaseSeconds: number): Promise<RunRow | undefined> {
  const rows = await db.sql<RunRow>`
    UPDATE answers a
       SET status = 'in_progress', lease_owner = ${owner},
           lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
           started_at = coalesce(a.started_at, now()), attempts = a.attempts + 1
     WHERE a.id = (
       SELECT id FROM answers
        WHERE status = 'queued' OR (status = 'in_progress' AND lease_expires_at < now())
        ORDER BY created_at
        FOR UPDATE SKIP LOCKED
        LIMIT 1)
    RETURNING ${RUN_COLUMNS}`;
  return rows[0];
}

/** Extends our lease; false when it is no longer ours (another instance took the run over). */
export async function renewLease(db: Queryable, id: string, owner: string, leaseSeconds: number): Promise<boolean> {
  const rows = await db.sql<{ id: string }>`
    UPDATE answers SET lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = ${id} AND lease_owner = ${owner} AND status = 'in_progress'
    RETURNING id`;
  return rows.length > 0;
}

/**
 * Completed turns of the conversation before this run, oldest first, at most `limit` messages.
 * Only turns asked with the same audience about the same end user: a conversation id reused by
 * an external key, or for another person, must not hand it what was said there.
 */
export async function conversationHistory(db: Queryable, run: RunRow, limit: number): Promise<ChatMessage[]> {
  const rows = await db.sql<ChatMessage>`
    SELECT role, content FROM (
      SELECT m.id, m.role, m.content FROM messages m JOIN answers a ON a.id = m.answer_id
       WHERE m.workspace_id = ${run.workspace_id} AND m.conversation_id = ${run.conversation_id}
         AND a.status = 'completed' AND a.created_at < ${run.created_at}
         AND a.audience = ${run.audience} AND a.end_user_id IS NOT DISTINCT FROM ${run.end_user_id}::text
       ORDER BY m.id DESC LIMIT ${limit}) recent
     ORDER BY id`;
  return rows[0]?.role === "assistant" ? rows.slice(1) : rows;
}

/**
 * Finishes a run we still hold: the result, the assistant message, and the debit (1 credit per
 * started 1,000 tokens, at least 1, never below zero) in one transaction.
 */
export async function completeRun(
  tx: Queryable,
  run: RunRow,
  owner: string,
  result: { text: string; usage: Usage; sourceIds: readonly string[] },
): Promise<boolean> {
  const rows = await tx.sql<{ id: string }>`
    UPDATE answers SET status = 'completed', output_text = ${result.text},
           input_tokens = ${result.usage.input_tokens}, output_tokens = ${result.usage.output_tokens},
           source_ids = ${[...result.sourceIds]}::text[], finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
     WHERE id = ${run.id} AND lease_owner = ${owner} AND status = 'in_progress'
    RETURNING id`;
  if (rows.length === 0) return false;
  await tx.sql`
    INSERT INTO messages (workspace_id, conversation_id, answer_id, role, content)
    VALUES (${run.workspace_id}, ${run.conversation_id}, ${run.id}, 'assistant', ${result.text})`;
  const credits = creditsFor(result.usage);
  await tx.sql`UPDATE workspaces SET credits = greatest(credits - ${credits}, 0) WHERE id = ${run.workspace_id}`;
  await recordEvents(tx, run.workspace_id, [answerFinished(run, { text: result.text })]);
  return true;
}

export function creditsFor(usage: Usage): number {
  return Math.max(1, Math.ceil((usage.input_tokens + usage.output_tokens) / 1000));
}

/** Fails a run (still ours, when `owner` is given) and announces it, in one transaction. */
export async function failRun(db: Db, id: string, owner: string | null, code: string, message: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.sql<FailedRun>`
      UPDATE answers SET status = 'failed', error_code = ${code}, error_message = ${message}, finished_at = now(),
             lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ${id} AND status IN ('queued', 'in_progress') AND (${owner}::text IS NULL OR lease_owner = ${owner}::text)
      RETURNING ${FAILED_COLUMNS}`;
    await announceFailures(tx, rows);
    return rows.length > 0;
  });
}

/** Runs whose lease lapsed too often are failed instead of retried forever. */
export async function failAbandonedRuns(db: Db, maxAttempts: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    const rows = await tx.sql<FailedRun>`
      UPDATE answers SET status = 'failed', error_code = 'run_abandoned',
             error_message = 'the instance running this answer stopped repeatedly; ask again', finished_at = now(),
             lease_owner = NULL, lease_expires_at = NULL
       WHERE status = 'in_progress' AND lease_expires_at < now() AND attempts >= ${maxAttempts}
      RETURNING ${FAILED_COLUMNS}`;
    await announceFailures(tx, rows);
    return rows.map((r) => r.id);
  });
}

interface FailedRun extends AnswerEventSource {
  workspace_id: string;
  error_code: string;
  error_message: string;
}

const FAILED_COLUMNS = fragment`id, workspace_id, conversation_id, end_user_id, audience, error_code, error_message`;

async function announceFailures(tx: Queryable, runs: readonly FailedRun[]): Promise<void> {
  for (const run of runs) await recordEvents(tx, run.workspace_id, [answerFinished(run, { code: run.error_code, message: run.error_message })]);
}

/** Hands our unfinished runs back to the queue (shutdown): another instance picks them up. */
export async function releaseLeases(db: Queryable, owner: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.sql`
    UPDATE answers SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
     WHERE lease_owner = ${owner} AND status = 'in_progress' AND id = ANY(${[...ids]}::text[])`;
}

export async function pruneIdempotencyKeys(db: Queryable): Promise<void> {
  await db.sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`;
}

export interface RecentRun {
  answer_id: string;
  status: string;
  agent_slug: string;
  conversation_id: string;
  end_user_id: string | null;
  input: string;
  input_tokens: number;
  output_tokens: number;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A workspace's runs, newest first, keyset-paged on the id (the settings app's answers page). */
export async function recentRuns(db: Queryable, workspaceId: string, limit: number, before: string | null): Promise<RecentRun[]> {
  return db.sql<RecentRun>`
    SELECT id AS answer_id, status, agent_slug, conversation_id, end_user_id, left(input, 500) AS input,
           input_tokens, output_tokens, error_code, error_message, created_at, finished_at
      FROM answers
     WHERE workspace_id = ${workspaceId} AND (${before}::text IS NULL OR id < ${before}::text)
     ORDER BY id DESC
     LIMIT ${limit}`;
}
