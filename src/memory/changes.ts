import { fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { FactKind, Origin, SubjectType } from "../schema/memory";
import type { IndexedFact } from "./index/fact-index";
import { dropIndexSnapshot } from "./index-snapshots";

/**
 * The workspace change log the in-process search indexes follow (migration 004). Writers stamp
 * what they change with the next sequence value; readers load everything stamped after the value
 * their index reflects. SQL for that, one named function per statement.
 */

/**
 * Advances the workspace's change sequence and returns the value that stamps this transaction's
 * changes. Trade-off: the upsert holds the sequence row's lock until commit, so two writers of one
 * workspace commit in sequence order (a reader that has seen value N has seen every change up to
 * N) at the price of serialising those writers for the rest of their transaction; capture is
 * serialised per workspace anyway.
 */
export async function nextFactSeq(tx: Queryable, workspaceId: string): Promise<number> {
  const rows = await tx.sql<{ seq: number }>`
    INSERT INTO fact_sequences (workspace_id, seq) VALUES (${workspaceId}, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET seq = fact_sequences.seq + 1
    RETURNING seq::float8 AS seq`;
  return rows[0]!.seq;
}

/**
 * Records deleted facts so other instances drop them, and drops the workspace's index snapshot,
 * which may hold their text; in the deleting transaction.
 */
export async function recordTombstones(tx: Queryable, workspaceId: string, seq: number, factIds: readonly string[]): Promise<void> {
  if (factIds.length === 0) return;
  await dropIndexSnapshot(tx, workspaceId);
  await tx.sql`
    INSERT INTO fact_tombstones (workspace_id, seq, fact_id)
    SELECT ${workspaceId}, ${seq}, id FROM unnest(${[...factIds]}::text[]) AS id`;
}

export interface FactHead {
  seq: number;
  /** Tombstones at or below this sequence were pruned. */
  floor: number;
}

/** A fact row as the index reads it (the columns of `INDEX_COLUMNS`). */
export interface FactRowOut {
  id: string;
  text: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  subject_type: SubjectType;
  end_user_id: string | null;
  agent_slug: string | null;
  confidence: number;
  recorded_ms: number;
  expires_ms: number | null;
  sensitive: boolean;
  pinned: boolean;
  updates: string[] | null;
  weak_updates: string[] | null;
}

/** What the index reads of a fact (facts aliased `f`). */
export const INDEX_COLUMNS = fragment`f.id, f.text, f.kind, f.origin, f.subject, f.subject_type, f.end_user_id, f.agent_slug, f.confidence,
  (extract(epoch FROM f.recorded_at) * 1000)::float8 AS recorded_ms,
  (extract(epoch FROM f.expires_at) * 1000)::float8 AS expires_ms, f.sensitive, f.pinned, f.updates, f.weak_updates`;

export const toIndexed = (r: FactRowOut): IndexedFact => ({
  id: r.id,
  text: r.text,
  kind: r.kind,
  origin: r.origin,
  subject: r.subject,
  subjectType: r.subject_type,
  endUserId: r.end_user_id,
  agent: r.agent_slug,
  confidence: Number(r.confidence),
  recordedAt: Number(r.recorded_ms),
  expiresAt: r.expires_ms === null ? null : Number(r.expires_ms),
  sensitive: r.sensitive,
  pinned: r.pinned,
  ...(r.updates !== null && r.updates.length > 0 && { updates: r.updates }),
  ...(r.weak_updates !== null && r.weak_updates.length > 0 && { weakUpdates: r.weak_updates }),
});

/** The workspace's current sequence, or null when the workspace no longer exists. */
export async function readFactHead(db: Queryable, workspaceId: string): Promise<FactHead | null> {
  const rows = await db.sql<FactHead>`
    SELECT coalesce(s.seq, 0)::float8 AS seq, coalesce(s.floor, 0)::float8 AS floor
      FROM workspaces w LEFT JOIN fact_sequences s ON s.workspace_id = w.id
     WHERE w.id = ${workspaceId}`;
  return rows[0] ?? null;
}

/**
 * One page of the workspace's live facts in id order (keyset paging on facts_workspace_id). Pages
 * are read in separate statements, so they may see later writes: the caller follows them with
 * `loadFactChanges` from the head it read first, which settles every such difference.
 */
export async function loadLiveFacts(db: Queryable, workspaceId: string, afterId: string, limit: number): Promise<IndexedFact[]> {
  const rows = await db.sql<FactRowOut>`
    SELECT ${INDEX_COLUMNS}
      FROM facts f
     WHERE f.workspace_id = ${workspaceId} AND f.id > ${afterId} AND f.superseded_by IS NULL
     ORDER BY f.id
     LIMIT ${limit}`;
  return rows.map(toIndexed);
}

export interface FactChanges {
  head: FactHead;
  /** Facts added or changed since, in their current state (live ones only). */
  upserts: IndexedFact[];
  /** Facts superseded or deleted since. */
  removals: string[];
  /** More changes than asked for: rebuild instead. */
  truncated: boolean;
}

/**
 * Everything that changed in the workspace after sequence `since`, and the current head, in ONE
 * statement (one snapshot: the head and the changes agree). Null when the workspace is gone.
 * Superseded facts come back as removals; so do tombstones of deleted ones.
 */
export async function loadFactChanges(db: Queryable, workspaceId: string, since: number, limit: number): Promise<FactChanges | null> {
  const rows = await db.sql<FactHead & { [K in keyof FactRowOut]: FactRowOut[K] | null } & { gone: boolean | null }>`
    WITH head AS (
      SELECT coalesce(s.seq, 0)::float8 AS seq, coalesce(s.floor, 0)::float8 AS floor
        FROM workspaces w LEFT JOIN fact_sequences s ON s.workspace_id = w.id
       WHERE w.id = ${workspaceId}
    ),
    changed AS (
      (SELECT id, text, kind, origin, subject, subject_type, end_user_id, agent_slug, confidence,
              (extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms,
              (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms, sensitive, pinned, updates, weak_updates,
              superseded_by IS NOT NULL AS gone
         FROM facts
        WHERE workspace_id = ${workspaceId} AND changed_seq > ${since}
        ORDER BY changed_seq
        LIMIT ${limit + 1})
      UNION ALL
      (SELECT fact_id, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::real,
              NULL::float8, NULL::float8, NULL::boolean, NULL::boolean, NULL::text[], NULL::text[], true
         FROM fact_tombstones
        WHERE workspace_id = ${workspaceId} AND seq > ${since}
        ORDER BY seq
        LIMIT ${limit + 1})
    )
    SELECT head.seq, head.floor, c.* FROM head LEFT JOIN changed c ON true`;
  const first = rows[0];
  if (!first) return null;
  const changes: FactChanges = { head: { seq: first.seq, floor: first.floor }, upserts: [], removals: [], truncated: rows.length > limit };
  for (const row of rows) {
    if (row.id === null) continue;
    if (row.gone) changes.removals.push(row.id);
    else changes.upserts.push(toIndexed(row as FactRowOut));
  }
  return changes;
}

/**
 * Drops tombstones older than `maxAgeSeconds` and raises each workspace's floor past them, so an
 * index that fell further behind rebuilds instead of missing a deletion.
 */
export async function pruneTombstones(db: Queryable, maxAgeSeconds: number): Promise<void> {
  await db.sql`
    WITH gone AS (
      DELETE FROM fact_tombstones WHERE deleted_at < now() - make_interval(secs => ${maxAgeSeconds})
      RETURNING workspace_id, seq
    )
    UPDATE fact_sequences s SET floor = greatest(s.floor, g.seq)
      FROM (SELECT workspace_id, max(seq) AS seq FROM gone GROUP BY workspace_id) g
     WHERE s.workspace_id = g.workspace_id`;
}
