/**
 * The record of the capture model's decisions (migration 024): every one it proposed that named
 * what it was shown, applied or vetoed, with its reason, model, prompt version and batch. Review
 * lists them, undo marks them, `facts explain` shows them. SQL per statement.
 */
import type { Queryable } from "../../db/types";
import { sortableId } from "../../ids";
import type { CaptureDecision, CaptureDecisionQuery, DecisionLabel } from "../../schema/capture-model";

/** Which call a decision came from. */
export interface Batch {
  id: string;
  /** provider/model */
  model: string;
  /** The prompt's version. */
  prompt: string;
}

export interface NewDecision {
  label: DecisionLabel;
  factId: string | null;
  targetId: string | null;
  proposedText?: string;
  reason: string;
  vetoedBy: string | null;
  endUserId: string | null;
}

/** Longest reason kept: a model may write an essay. */
const MAX_REASON = 500;

export async function recordDecisions(tx: Queryable, workspaceId: string, batch: Batch, decisions: readonly NewDecision[]): Promise<void> {
  if (decisions.length === 0) return;
  await tx.sql`
    INSERT INTO capture_decisions
           (id, workspace_id, batch_id, model, prompt, label, fact_id, target_id, proposed_text, reason, vetoed_by, end_user_id)
    SELECT d.id, ${workspaceId}, ${batch.id}, ${batch.model}, ${batch.prompt},
           d.label, d.fact_id, d.target_id, d.proposed_text, d.reason, d.vetoed_by, d.end_user_id
      FROM unnest(${decisions.map(() => sortableId("cdec"))}::text[], ${decisions.map((d) => d.label)}::text[], ${decisions.map((d) => d.factId)}::text[],
                  ${decisions.map((d) => d.targetId)}::text[], ${decisions.map((d) => d.proposedText ?? null)}::text[],
                  ${decisions.map((d) => d.reason.slice(0, MAX_REASON))}::text[], ${decisions.map((d) => d.vetoedBy)}::text[],
                  ${decisions.map((d) => d.endUserId)}::text[])
           AS d(id, label, fact_id, target_id, proposed_text, reason, vetoed_by, end_user_id)`;
}

interface DecisionRow {
  id: string;
  batch_id: string;
  model: string;
  prompt: string;
  label: DecisionLabel;
  fact_id: string | null;
  target_id: string | null;
  proposed_text: string | null;
  reason: string;
  vetoed_by: string | null;
  undone_at: Date | null;
  created_at: Date;
}

const toDecision = (r: DecisionRow): CaptureDecision => ({
  decision_id: r.id,
  batch_id: r.batch_id,
  model: r.model,
  prompt: r.prompt,
  label: r.label,
  fact_id: r.fact_id,
  target_id: r.target_id,
  proposed_text: r.proposed_text,
  reason: r.reason,
  applied: r.vetoed_by === null,
  vetoed_by: r.vetoed_by,
  undone: r.undone_at !== null,
  created_at: new Date(r.created_at).toISOString(),
});

/** A workspace's decisions, newest first. */
export async function listDecisions(db: Queryable, workspaceId: string, q: CaptureDecisionQuery): Promise<CaptureDecision[]> {
  const rows = await db.sql<DecisionRow>`
    SELECT id, batch_id, model, prompt, label, fact_id, target_id, proposed_text, reason, vetoed_by, undone_at, created_at
      FROM capture_decisions
     WHERE workspace_id = ${workspaceId}
       AND (${q.vetoed ?? null}::boolean IS NULL OR (vetoed_by IS NOT NULL) = ${q.vetoed ?? false})
     ORDER BY created_at DESC, id DESC
     LIMIT ${q.limit}`;
  return rows.map(toDecision);
}

/** Every decision about a fact, as the newer or the older one, oldest first. */
export async function decisionsAbout(db: Queryable, factId: string): Promise<CaptureDecision[]> {
  const rows = await db.sql<DecisionRow>`
    SELECT id, batch_id, model, prompt, label, fact_id, target_id, proposed_text, reason, vetoed_by, undone_at, created_at
      FROM capture_decisions WHERE fact_id = ${factId} OR target_id = ${factId}
     ORDER BY created_at, id`;
  return rows.map(toDecision);
}

/** The applied decision that hid `replacedId` behind `byId`, if the model made it (for Review). */
export async function modelDecisionsFor(db: Queryable, pairs: readonly { oldId: string; newId: string }[]): Promise<Map<string, CaptureDecision>> {
  if (pairs.length === 0) return new Map();
  const rows = await db.sql<DecisionRow>`
    SELECT d.id, d.batch_id, d.model, d.prompt, d.label, d.fact_id, d.target_id, d.proposed_text, d.reason, d.vetoed_by, d.undone_at, d.created_at
      FROM capture_decisions d
      JOIN unnest(${pairs.map((p) => p.oldId)}::text[], ${pairs.map((p) => p.newId)}::text[]) AS p(old_id, new_id)
        ON (d.target_id = p.old_id AND d.fact_id = p.new_id) OR (d.label = 'duplicate' AND d.fact_id = p.old_id AND d.target_id = p.new_id)
     WHERE d.vetoed_by IS NULL AND d.undone_at IS NULL`;
  return new Map(rows.map((r) => [r.label === "duplicate" ? `${r.fact_id} ${r.target_id}` : `${r.target_id} ${r.fact_id}`, toDecision(r)]));
}

/** An operator undid the supersession of `oldId` by `newId`: the model's decision behind it, if any, is marked. */
export async function markDecisionUndone(tx: Queryable, oldId: string, newId: string): Promise<void> {
  await tx.sql`
    UPDATE capture_decisions SET undone_at = now()
     WHERE undone_at IS NULL AND vetoed_by IS NULL
       AND ((target_id = ${oldId} AND fact_id = ${newId}) OR (label = 'duplicate' AND fact_id = ${oldId} AND target_id = ${newId}))`;
}

/** Forgetting an end user forgets what the model decided about their facts, and their queued conversations. */
export async function forgetEndUserCapture(tx: Queryable, workspaceId: string, endUserId: string): Promise<void> {
  await tx.sql`DELETE FROM capture_decisions WHERE workspace_id = ${workspaceId} AND end_user_id = ${endUserId}`;
  await tx.sql`DELETE FROM capture_jobs WHERE workspace_id = ${workspaceId} AND end_user_id = ${endUserId}`;
}
