/**
 * Undoing one of the capture model's decisions from its record (Review, the CLI): a replacement,
 * an extraction or a duplicate is undone as any supersession is (the hidden fact live again, the
 * newer kept), an updates link is removed. Only a decision that still stands can be undone.
 */
import type { Db } from "../../db/types";
import { ApiError, notFound } from "../../errors";
import { nextFactSeq } from "../../memory/changes";
import { restoreFact } from "../../memory/review";
import type { DecisionLabel, UndoDecisionResult } from "../../schema/capture-model";

interface DecisionRow {
  id: string;
  workspace_id: string;
  label: DecisionLabel;
  fact_id: string | null;
  target_id: string | null;
  vetoed_by: string | null;
  undone_at: Date | null;
}

const notApplied = (id: string, why: string): ApiError => new ApiError("decision_not_applied", `decision "${id}" ${why}: there is nothing to undo`);

export async function undoDecision(db: Db, decisionId: string): Promise<UndoDecisionResult> {
  const [d] = await db.sql<DecisionRow>`
    SELECT id, workspace_id, label, fact_id, target_id, vetoed_by, undone_at FROM capture_decisions WHERE id = ${decisionId}`;
  if (!d) throw notFound(`capture decision "${decisionId}"`);
  if (d.vetoed_by !== null) throw notApplied(d.id, `was vetoed (${d.vetoed_by})`);
  if (d.undone_at !== null) throw notApplied(d.id, "was undone already");
  if (d.fact_id === null || d.target_id === null) throw notApplied(d.id, "hid no fact");
  const result = { decision_id: d.id, label: d.label };
  if (d.label === "updates") return { ...result, restored: null, unlinked: await unlink(db, d) };
  // A duplicate hid the newer fact behind the older; the others hid the older behind the newer.
  const [hidden, by] = d.label === "duplicate" ? [d.fact_id, d.target_id] : [d.target_id, d.fact_id];
  const [row] = await db.sql<{ superseded_by: string | null }>`SELECT superseded_by FROM facts WHERE id = ${hidden}`;
  if (row?.superseded_by !== by) throw notApplied(d.id, "no longer stands (the fact was restored, deleted or replaced since)");
  await restoreFact(db, hidden, { newer: "keep" });
  return { ...result, restored: hidden, unlinked: false };
}

async function unlink(db: Db, d: DecisionRow): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [linked] = await tx.sql<{ id: string }>`
      SELECT id FROM facts WHERE id = ${d.fact_id} AND ${d.target_id}::text = ANY(updates) FOR UPDATE`;
    if (!linked) throw notApplied(d.id, "no longer stands (the link is gone)");
    const seq = await nextFactSeq(tx, d.workspace_id);
    await tx.sql`UPDATE facts SET updates = array_remove(updates, ${d.target_id}::text), changed_seq = ${seq} WHERE id = ${d.fact_id}`;
    await tx.sql`UPDATE capture_decisions SET undone_at = now() WHERE id = ${d.id}`;
    return true;
  });
}
