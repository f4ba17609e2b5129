import { fragment, type Fragment } from "../db/fragment";
import type { Db, Queryable } from "../db/types";
import { ApiError } from "../errors";
import { sortableId } from "../ids";
import { lockWorkspaceFacts } from "../capture/store";
import type { ForgetFilter, ForgetPreview, ForgetRequest, ForgetRun } from "../schema/browse";
import { hiddenFromExternal, recordEvents, type FactFlags } from "../webhooks/outbox";
import { likePattern, releaseReplaced } from "./browse";
import { nextFactSeq, recordTombstones } from "./changes";

/** Facts deleted per transaction: each is short, so teaches in the workspace wait for one batch at most. */
const FORGET_BATCH = 5_000;

/** The filter as SQL over `facts f` of one workspace: every criterion given must hold. */
function matching(workspaceId: string, filter: ForgetFilter): Fragment {
  const instant = (iso: string | undefined): Date | null => (iso === undefined ? null : new Date(iso));
  return fragment`f.workspace_id = ${workspaceId}
    AND (${filter.subject ?? null}::text IS NULL OR f.subject = ${filter.subject ?? null}::text)
    AND (${filter.end_user ?? null}::text IS NULL OR f.end_user_id = ${filter.end_user ?? null}::text)
    AND (${filter.agent ?? null}::text IS NULL OR f.agent_slug = ${filter.agent ?? null}::text)
    AND (${filter.kind ?? null}::text IS NULL OR f.kind = ${filter.kind ?? null}::text)
    AND (${filter.origin ?? null}::text IS NULL OR f.origin = ${filter.origin ?? null}::text)
    AND (${instant(filter.observed_after)}::timestamptz IS NULL OR f.recorded_at >= ${instant(filter.observed_after)}::timestamptz)
    AND (${instant(filter.observed_before)}::timestamptz IS NULL OR f.recorded_at < ${instant(filter.observed_before)}::timestamptz)
    AND (${filter.text_contains === undefined ? null : likePattern(filter.text_contains)}::text IS NULL
         OR f.text ILIKE ${filter.text_contains === undefined ? null : likePattern(filter.text_contains)}::text)`;
}

/** How many facts the filter matches now (the count a run must be confirmed with). */
export async function previewForget(db: Queryable, workspaceId: string, filter: ForgetFilter): Promise<ForgetPreview> {
  const [row] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts f WHERE ${matching(workspaceId, filter)}`;
  return { count: row?.n ?? 0 };
}

interface RunRow {
  id: string;
  filter: ForgetFilter;
  previewed: number;
  deleted: number;
  restored: number;
  status: ForgetRun["status"];
  started_at: Date;
  finished_at: Date | null;
}

const toRun = (r: RunRow): ForgetRun => ({
  run_id: r.id,
  filter: r.filter,
  previewed: r.previewed,
  deleted: r.deleted,
  restored: r.restored,
  status: r.status,
  started_at: new Date(r.started_at).toISOString(),
  finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
});

/**
 * Forgets the facts the filter matches, once their count is still the count the operator confirmed
 * (409 forget_count_changed otherwise: memory changed since the preview). The matching ids are
 * read once, in one pass, and the run is recorded in the audit log; then the facts go in
 * transactions of FORGET_BATCH, each found by id (the filter checked again, so a fact changed
 * meanwhile is kept). Each batch makes the facts its facts had replaced live again (as deleting
 * one fact does), leaves tombstones (no instance serves them after it commits) and announces
 * `fact.deleted`. Reads never wait on a batch longer than its commit. Trade-offs: a run is not
 * one transaction: a failure midway leaves the batches before it done, and the log says how far it
 * got (status failed); and a fact taught during the run is not part of it, as the preview did not
 * count it.
 */
export async function forgetByFilter(db: Db, workspaceId: string, request: ForgetRequest): Promise<ForgetRun> {
  const { filter } = request;
  const ids = (await db.sql<{ id: string }>`SELECT f.id FROM facts f WHERE ${matching(workspaceId, filter)} ORDER BY f.id`).map((r) => r.id);
  if (ids.length !== request.expected_count) {
    throw new ApiError(
      "forget_count_changed",
      `the filter matches ${ids.length} facts, not the ${request.expected_count} expected: preview again before forgetting`,
      { count: ids.length },
    );
  }
  const runId = sortableId("forget");
  await db.sql`
    INSERT INTO forget_runs (id, workspace_id, filter, previewed) VALUES (${runId}, ${workspaceId}, ${JSON.stringify(filter)}::text::jsonb, ${ids.length})`;
  let deleted = 0;
  let restored = 0;
  try {
    for (let at = 0; at < ids.length; at += FORGET_BATCH) {
      const batch = await forgetBatch(db, workspaceId, filter, runId, ids.slice(at, at + FORGET_BATCH));
      deleted += batch.deleted;
      restored += batch.restored;
    }
  } catch (error) {
    await db.sql`UPDATE forget_runs SET status = 'failed', finished_at = now() WHERE id = ${runId}`;
    throw error;
  }
  const [run] = await db.sql<RunRow>`
    UPDATE forget_runs SET status = 'completed', finished_at = now() WHERE id = ${runId}
    RETURNING id, filter, previewed, deleted, restored, status, started_at, finished_at`;
  if (run === undefined || run.deleted !== deleted || run.restored !== restored) throw new Error("forget run record out of step");
  return toRun(run);
}

/** One batch of a run, in one transaction serialised with capture (a teach cannot supersede a fact it is deleting). */
async function forgetBatch(
  db: Db,
  workspaceId: string,
  filter: ForgetFilter,
  runId: string,
  candidates: readonly string[],
): Promise<{ deleted: number; restored: number }> {
  return db.transaction(async (tx) => {
    await lockWorkspaceFacts(tx, workspaceId);
    const rows = await tx.sql<{ id: string; end_user_id: string | null } & FactFlags>`
      SELECT f.id, f.end_user_id, f.agent_slug, f.sensitive, f.subject_type, f.origin FROM facts f
       WHERE f.id = ANY(${[...candidates]}::text[]) AND ${matching(workspaceId, filter)}
       FOR UPDATE`;
    if (rows.length === 0) return { deleted: 0, restored: 0 };
    const ids = rows.map((r) => r.id);
    const seq = await nextFactSeq(tx, workspaceId);
    const back = await releaseReplaced(tx, workspaceId, seq, ids);
    await tx.sql`DELETE FROM facts WHERE id = ANY(${ids}::text[])`;
    await recordTombstones(tx, workspaceId, seq, ids);
    await recordEvents(
      tx,
      workspaceId,
      rows.map((r) => {
        const data = { fact_id: r.id, restored: [] };
        return { type: "fact.deleted", data, external: hiddenFromExternal(r) ? null : data, endUserId: r.end_user_id };
      }),
    );
    await tx.sql`UPDATE forget_runs SET deleted = deleted + ${ids.length}, restored = restored + ${back.length} WHERE id = ${runId}`;
    return { deleted: ids.length, restored: back.length };
  });
}

/** The workspace's bulk forgets, newest first (the audit log the settings app shows). */
export async function listForgetRuns(db: Queryable, workspaceId: string, limit = 100): Promise<ForgetRun[]> {
  const rows = await db.sql<RunRow>`
    SELECT id, filter, previewed, deleted, restored, status, started_at, finished_at
      FROM forget_runs WHERE workspace_id = ${workspaceId} ORDER BY started_at DESC, id DESC LIMIT ${limit}`;
  return rows.map(toRun);
}
