import { decisionsAbout } from "../capture/model/decisions";
import { fragment, type Fragment } from "../db/fragment";
import type { Db, Queryable } from "../db/types";
import { notFound } from "../errors";
import type { AdminFactQuery, FactHistory, FactPage } from "../schema/browse";
import type { ExportedFact } from "../schema/memory";
import { EXPORT_COLUMNS, exportedFact, type ExportRow } from "./admin";
import { hiddenFromExternal, recordEvents, type FactFlags } from "../webhooks/outbox";
import { nextFactSeq, recordTombstones } from "./changes";

/** LIKE wildcards in user text are literal. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;

/**
 * A workspace's facts for the settings app, newest first, with every filter the operator may use
 * and keyset paging on the id (stable while facts are added). Operators see everything, sensitive
 * and team facts included; superseded history only when asked.
 */
export async function browseFacts(db: Queryable, workspaceId: string, q: AdminFactQuery): Promise<FactPage> {
  const flag = (value: "true" | "false" | undefined): boolean | null => (value === undefined ? null : value === "true");
  const rows = await db.sql<ExportRow>`
    SELECT ${EXPORT_COLUMNS}
      FROM facts f
      LEFT JOIN end_users u ON u.workspace_id = f.workspace_id AND u.id = f.end_user_id
     WHERE f.workspace_id = ${workspaceId}
       AND (${q.include_superseded === "true"}::boolean OR f.superseded_by IS NULL)
       AND (${q.cursor ?? null}::text IS NULL OR f.id < ${q.cursor ?? null}::text)
       AND (${q.query === undefined ? null : likePattern(q.query)}::text IS NULL OR f.text ILIKE ${q.query === undefined ? null : likePattern(q.query)}::text)
       AND (${q.subject ?? null}::text IS NULL OR f.subject = ${q.subject ?? null}::text)
       AND (${q.kind ?? null}::text IS NULL OR f.kind = ${q.kind ?? null}::text)
       AND (${q.origin ?? null}::text IS NULL OR f.origin = ${q.origin ?? null}::text)
       AND (${q.end_user ?? null}::text IS NULL OR f.end_user_id = ${q.end_user ?? null}::text)
       AND (${flag(q.sensitive)}::boolean IS NULL OR f.sensitive = ${flag(q.sensitive)}::boolean)
       AND (${flag(q.pinned)}::boolean IS NULL OR f.pinned = ${flag(q.pinned)}::boolean)
       AND (${q.agent ?? null}::text IS NULL OR f.agent_slug = ${q.agent ?? null}::text)
       AND (${q.not_recalled_days ?? null}::int IS NULL OR (
             f.recorded_at < now() - make_interval(days => ${q.not_recalled_days ?? 0}::int)
             AND NOT EXISTS (SELECT 1 FROM fact_recalls r
                              WHERE r.fact_id = f.id AND r.last_recalled_at >= now() - make_interval(days => ${q.not_recalled_days ?? 0}::int))))
     ORDER BY f.id DESC
     LIMIT ${q.limit + 1}`;
  const page = rows.slice(0, q.limit).map(exportedFact);
  return { facts: page, next_cursor: rows.length > q.limit ? (page.at(-1)?.fact_id ?? null) : null };
}

/**
 * A CTE `older(id, depth)`: the facts `factId` replaced, and the ones those replaced, back along
 * the claim's history (bounded: a chain is one claim's versions).
 */
export function olderVersions(factId: string): Fragment {
  return fragment`WITH RECURSIVE older AS (
      SELECT id, 1 AS depth FROM facts WHERE superseded_by = ${factId}
      UNION ALL
      SELECT f.id, o.depth + 1 FROM facts f JOIN older o ON f.superseded_by = o.id WHERE o.depth < 100
    )`;
}

/** These facts as export writes them, in the order of `ids` (an id no fact has is left out). */
export async function factsWhere(db: Queryable, ids: readonly string[]): Promise<ExportedFact[]> {
  if (ids.length === 0) return [];
  const rows = await db.sql<ExportRow>`
    SELECT ${EXPORT_COLUMNS} FROM facts f LEFT JOIN end_users u ON u.workspace_id = f.workspace_id AND u.id = f.end_user_id
     WHERE f.id = ANY(${[...ids]}::text[])`;
  const byId = new Map(rows.map((r) => [r.id, exportedFact(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** A fact and its supersession chain, both ways (bounded: a chain is a claim's history). */
export async function factHistory(db: Queryable, factId: string): Promise<FactHistory> {
  const [fact] = await factsWhere(db, [factId]);
  if (!fact) throw notFound(`fact "${factId}"`);
  const back = await db.sql<{ id: string }>`
    ${olderVersions(factId)}
    SELECT o.id FROM older o JOIN facts f ON f.id = o.id ORDER BY f.recorded_at DESC, f.id DESC LIMIT 100`;
  const forward = await db.sql<{ id: string }>`
    WITH RECURSIVE newer AS (
      SELECT superseded_by AS id, 1 AS depth FROM facts WHERE id = ${factId} AND superseded_by IS NOT NULL
      UNION ALL
      SELECT f.superseded_by, n.depth + 1 FROM facts f JOIN newer n ON f.id = n.id WHERE f.superseded_by IS NOT NULL AND n.depth < 100
    )
    SELECT id FROM newer ORDER BY depth`;
  // Facts that update it: few per fact, found by a scan of the fact's workspace (no index on the array; an explain is an operator's read).
  const updatedBy = await db.sql<{ id: string }>`
    SELECT f.id FROM facts f JOIN facts me ON me.id = ${factId} AND f.workspace_id = me.workspace_id
     WHERE ${factId}::text = ANY(f.updates) OR ${factId}::text = ANY(f.weak_updates) ORDER BY f.recorded_at DESC, f.id DESC LIMIT 100`;
  return {
    fact,
    replaced: await factsWhere(
      db,
      back.map((r) => r.id),
    ),
    replaced_by: await factsWhere(
      db,
      forward.map((r) => r.id),
    ),
    updates: await factsWhere(db, fact.updates),
    updated_by: await factsWhere(
      db,
      updatedBy.map((r) => r.id),
    ),
    model_decisions: await decisionsAbout(db, factId),
  };
}

/**
 * Before `deleted` are deleted: every fact one of them had superseded (and that is not deleted
 * too) points somewhere explicit, none is left to the foreign key's ON DELETE SET NULL, which would
 * make it live without a change stamp. Per scope and claim (or text, for a fact with no claim), the
 * latest observed is live again and the rest become its history; one that a live fact of its scope
 * repeats word for word becomes that fact's history instead. Returns the facts live again.
 */
export async function releaseReplaced(tx: Queryable, workspaceId: string, seq: number, deleted: readonly string[]): Promise<string[]> {
  const ids = [...deleted];
  const restored = await tx.sql<{ id: string; live: boolean }>`
    WITH waiting AS (
      SELECT f.id, f.end_user_id, f.agent_slug, f.normalized,
             row_number() OVER (PARTITION BY coalesce(f.agent_slug, ''), coalesce(f.end_user_id, ''), coalesce(f.claim_key, md5(f.normalized))
                                ORDER BY f.recorded_at DESC, f.id DESC) AS rank,
             first_value(f.id) OVER (PARTITION BY coalesce(f.agent_slug, ''), coalesce(f.end_user_id, ''), coalesce(f.claim_key, md5(f.normalized))
                                     ORDER BY f.recorded_at DESC, f.id DESC) AS head
        FROM facts f WHERE f.superseded_by = ANY(${ids}::text[]) AND NOT f.id = ANY(${ids}::text[])
    ),
    heads AS (
      SELECT w.id,
             (SELECT l.id FROM facts l
               WHERE l.workspace_id = ${workspaceId} AND l.superseded_by IS NULL AND NOT l.id = ANY(${ids}::text[])
                 AND coalesce(l.end_user_id, '') = coalesce(w.end_user_id, '') AND coalesce(l.agent_slug, '') = coalesce(w.agent_slug, '')
                 AND md5(l.normalized) = md5(w.normalized)
               LIMIT 1) AS twin
        FROM waiting w WHERE w.rank = 1
    )
    UPDATE facts f
       SET superseded_by = CASE WHEN w.rank = 1 THEN h.twin ELSE coalesce(h.twin, w.head) END, changed_seq = ${seq}
      FROM waiting w JOIN heads h ON h.id = w.head
     WHERE f.id = w.id
    RETURNING f.id, f.superseded_by IS NULL AS live`;
  return restored.filter((r) => r.live).map((r) => r.id);
}

/**
 * Deletes one fact (an operator correcting memory). The facts it had superseded fall back to the
 * state before it: per claim, the latest observed of them is live again and the rest become its
 * history (several can wait on one fact: earlier values, and observations older than it taught
 * after it). One that a live fact repeats word for word becomes that fact's history instead. All
 * of it is explicit and stamped with the change, so every instance's index sees it at once; the
 * deleted fact leaves a tombstone, so no instance serves it again.
 */
export async function deleteFact(db: Db, factId: string): Promise<{ fact_id: string; restored: string[] }> {
  return db.transaction(async (tx) => {
    const [found] = await tx.sql<{ workspace_id: string; end_user_id: string | null } & FactFlags>`
      SELECT workspace_id, end_user_id, sensitive, subject_type, origin, agent_slug FROM facts WHERE id = ${factId} FOR UPDATE`;
    if (!found) throw notFound(`fact "${factId}"`);
    const seq = await nextFactSeq(tx, found.workspace_id);
    const back = await releaseReplaced(tx, found.workspace_id, seq, [factId]);
    await tx.sql`DELETE FROM facts WHERE id = ${factId}`;
    await recordTombstones(tx, found.workspace_id, seq, [factId]);
    const data = { fact_id: factId, restored: back };
    await recordEvents(tx, found.workspace_id, [
      { type: "fact.deleted", data, external: hiddenFromExternal(found) ? null : data, endUserId: found.end_user_id },
    ]);
    return { fact_id: factId, restored: back };
  });
}

export interface EndUserSummary {
  id: string;
  name: string | null;
  live_facts: number;
  answers: number;
}

/** The end users a workspace knows, with how much it holds about each. */
export async function listEndUsers(db: Queryable, workspaceId: string): Promise<EndUserSummary[]> {
  return db.sql<EndUserSummary>`
    SELECT u.id, u.name,
           (SELECT count(*)::int FROM facts f WHERE f.workspace_id = u.workspace_id AND f.end_user_id = u.id AND f.superseded_by IS NULL) AS live_facts,
           (SELECT count(*)::int FROM answers a WHERE a.workspace_id = u.workspace_id AND a.end_user_id = u.id) AS answers
      FROM end_users u WHERE u.workspace_id = ${workspaceId} ORDER BY u.id`;
}
