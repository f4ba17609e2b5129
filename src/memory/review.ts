import type { Db, Queryable } from "../db/types";
import { ApiError, notFound } from "../errors";
import type { RestoreRequest, RestoreResult, SupersessionPage, SupersessionQuery } from "../schema/browse";
import { factSuperseded, hiddenFromExternal, recordEvents, type FactFlags } from "../webhooks/outbox";
import { factsWhere } from "./browse";
import { nextFactSeq } from "./changes";
import { markDecisionUndone, modelDecisionsFor } from "../capture/model/decisions";

/** A cursor names the last supersession of a page: the replacing fact's id, then the replaced one's. */
const cursorOf = (newId: string, oldId: string): string => `${newId} ${oldId}`;

/**
 * The workspace's supersessions, most recent first (by the replacing fact, whose id sorts by the
 * time it was stored), for the operator to review and undo. Keyset paging on (replacing, replaced).
 */
export async function listSupersessions(db: Queryable, workspaceId: string, q: SupersessionQuery): Promise<SupersessionPage> {
  const [afterNew, afterOld] = q.cursor === undefined ? [null, null] : q.cursor.split(" ");
  const rows = await db.sql<{ old_id: string; new_id: string }>`
    SELECT old.id AS old_id, new.id AS new_id
      FROM facts old JOIN facts new ON new.id = old.superseded_by
     WHERE old.workspace_id = ${workspaceId}
       AND (${afterNew ?? null}::text IS NULL OR (new.id, old.id) < (${afterNew ?? ""}::text, ${afterOld ?? ""}::text))
     ORDER BY new.id DESC, old.id DESC
     LIMIT ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  const facts = new Map((await factsWhere(db, [...new Set(page.flatMap((r) => [r.old_id, r.new_id]))])).map((f) => [f.fact_id, f]));
  const last = page.at(-1);
  const byModel = await modelDecisionsFor(
    db,
    page.map((r) => ({ oldId: r.old_id, newId: r.new_id })),
  );
  return {
    supersessions: page.map((r) => ({
      replaced: facts.get(r.old_id)!,
      replaced_by: facts.get(r.new_id)!,
      by_model: byModel.get(`${r.old_id} ${r.new_id}`) ?? null,
    })),
    next_cursor: rows.length > q.limit && last !== undefined ? cursorOf(last.new_id, last.old_id) : null,
  };
}

interface ReplacedRow extends FactFlags {
  workspace_id: string;
  superseded_by: string | null;
  end_user_id: string | null;
  normalized: string;
}

/**
 * Undoes a supersession: the replaced fact is live again, and the fact that replaced it either
 * stays live too (`keep`: the operator judged both true) or becomes the restored fact's history
 * (`supersede`). One transaction stamped with the change sequence, so every instance's index
 * sees it at once, with a `fact.restored` event (and `fact.superseded` for a replaced newer fact).
 * Refused when the fact is live (409 not_superseded) or a live fact of its scope says the same
 * words (409 already_exists: restoring it would make a duplicate).
 */
export async function restoreFact(db: Db, factId: string, request: RestoreRequest): Promise<RestoreResult> {
  return db.transaction(async (tx) => {
    const [old] = await tx.sql<ReplacedRow>`
      SELECT workspace_id, superseded_by, end_user_id, agent_slug, normalized, sensitive, subject_type, origin
        FROM facts WHERE id = ${factId} FOR UPDATE`;
    if (!old) throw notFound(`fact "${factId}"`);
    const newerId = old.superseded_by;
    if (newerId === null) throw new ApiError("not_superseded", `fact "${factId}" is live: there is no supersession to undo`);
    const [twin] = await tx.sql<{ id: string }>`
      SELECT id FROM facts
       WHERE workspace_id = ${old.workspace_id} AND superseded_by IS NULL AND id <> ${factId}
         AND coalesce(end_user_id, '') = ${old.end_user_id ?? ""} AND coalesce(agent_slug, '') = ${old.agent_slug ?? ""}
         AND md5(normalized) = md5(${old.normalized})
         AND NOT (${request.newer === "supersede"}::boolean AND id = ${newerId})
       LIMIT 1`;
    if (twin) throw new ApiError("already_exists", `live fact "${twin.id}" says the same: restoring "${factId}" would repeat it`, { fact_id: twin.id });
    const seq = await nextFactSeq(tx, old.workspace_id);
    await tx.sql`UPDATE facts SET superseded_by = NULL, changed_seq = ${seq} WHERE id = ${factId}`;
    await markDecisionUndone(tx, factId, newerId);
    const superseded =
      request.newer === "supersede"
        ? await tx.sql<FactFlags & { id: string; superseded_by: string; end_user_id: string | null }>`
            UPDATE facts SET superseded_by = ${factId}, changed_seq = ${seq} WHERE id = ${newerId} AND superseded_by IS NULL
            RETURNING id, superseded_by, end_user_id, agent_slug, sensitive, subject_type, origin`
        : [];
    const result: RestoreResult = { fact_id: factId, replaced_by: newerId, newer: superseded.length > 0 ? "superseded" : "kept" };
    const hidden = hiddenFromExternal(old);
    await recordEvents(tx, old.workspace_id, [
      { type: "fact.restored", data: { ...result }, external: hidden ? null : { ...result }, endUserId: old.end_user_id },
      ...superseded.map((f) => factSuperseded(f)),
    ]);
    return result;
  });
}
