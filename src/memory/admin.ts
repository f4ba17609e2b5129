import { fragment } from "../db/fragment";
import { notFound } from "../errors";
import type { Db, Queryable } from "../db/types";
import type { ExportedFact } from "../schema/memory";
import { forgetEndUserEvents } from "../webhooks/outbox";
import { forgetEndUserCapture } from "../capture/model/decisions";
import { nextFactSeq, recordTombstones } from "./changes";

/** Pins or unpins a fact; a change of the packet's core, so it advances the change sequence. */
export async function setPinned(db: Db, factId: string, pinned: boolean): Promise<{ fact_id: string; pinned: boolean }> {
  return db.transaction(async (tx) => {
    const found = await tx.sql<{ workspace_id: string }>`SELECT workspace_id FROM facts WHERE id = ${factId}`;
    const workspaceId = found[0]?.workspace_id;
    if (workspaceId === undefined) throw notFound(`fact "${factId}"`);
    const seq = await nextFactSeq(tx, workspaceId);
    const rows = await tx.sql<{ id: string; pinned: boolean }>`
      UPDATE facts SET pinned = ${pinned}, changed_seq = ${seq} WHERE id = ${factId} RETURNING id, pinned`;
    const row = rows[0];
    if (!row) throw notFound(`fact "${factId}"`);
    return { fact_id: row.id, pinned: row.pinned };
  });
}

export interface ExportRow {
  id: string;
  text: string;
  kind: ExportedFact["kind"];
  origin: ExportedFact["origin"];
  subject: string;
  subject_type: ExportedFact["subject_type"];
  end_user_id: string | null;
  agent_slug: string | null;
  recall_count: number | null;
  last_recalled_at: Date | null;
  taught_by_key: string | null;
  taught_by_agent: string | null;
  taught_via: string | null;
  end_user_name: string | null;
  confidence: number;
  recorded_at: Date;
  expires_at: Date | null;
  sensitive: boolean;
  pinned: boolean;
  superseded_by: string | null;
  claim_subject: string | null;
  updates: string[] | null;
  weak_updates: string[] | null;
  link_reason: string | null;
}

const EXPORT_PAGE = 1000;

/**
 * Every fact of a workspace (or of one end user in it), history included, in creation order;
 * paged so memory stays flat.
 */
export async function* exportFacts(db: Queryable, workspaceId: string, endUserId: string | null = null): AsyncGenerator<ExportedFact> {
  let after = "";
  for (;;) {
    const rows = await db.sql<ExportRow>`
      SELECT ${EXPORT_COLUMNS}
        FROM facts f
        LEFT JOIN end_users u ON u.workspace_id = f.workspace_id AND u.id = f.end_user_id
       WHERE f.workspace_id = ${workspaceId} AND f.id > ${after}
         AND (${endUserId}::text IS NULL OR f.end_user_id = ${endUserId}::text)
       ORDER BY f.id
       LIMIT ${EXPORT_PAGE}`;
    for (const r of rows) yield exportedFact(r);
    if (rows.length < EXPORT_PAGE) return;
    after = rows[rows.length - 1]?.id ?? after;
  }
}

/** The columns an exported fact is made from (`f` = facts, `u` = end_users). */
export const EXPORT_COLUMNS = fragment`f.id, f.text, f.kind, f.origin, f.subject, f.subject_type, f.end_user_id, u.name AS end_user_name, f.agent_slug,
  f.confidence, f.recorded_at, f.expires_at, f.sensitive, f.pinned, f.superseded_by, f.claim_subject, f.updates, f.weak_updates, f.link_reason,
  f.taught_by_key, f.taught_by_agent, f.taught_via,
  (SELECT r.recall_count::float8 FROM fact_recalls r WHERE r.fact_id = f.id) AS recall_count,
  (SELECT r.last_recalled_at FROM fact_recalls r WHERE r.fact_id = f.id) AS last_recalled_at`;

export function exportedFact(r: ExportRow): ExportedFact {
  return {
    fact_id: r.id,
    text: r.text,
    kind: r.kind,
    origin: r.origin,
    subject: r.subject,
    subject_type: r.subject_type,
    end_user: r.end_user_id === null ? null : { id: r.end_user_id, ...(r.end_user_name ? { name: r.end_user_name } : {}) },
    agent: r.agent_slug,
    confidence: Math.round(Number(r.confidence) * 1000) / 1000,
    recorded_time: new Date(r.recorded_at).toISOString(),
    expires_at: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
    sensitive: r.sensitive,
    pinned: r.pinned,
    superseded_by: r.superseded_by,
    claim_subject: r.claim_subject,
    updates: [...(r.updates ?? []), ...(r.weak_updates ?? [])],
    link_reason: r.link_reason,
    recall_count: Number(r.recall_count ?? 0),
    last_recalled_at: r.last_recalled_at === null ? null : new Date(r.last_recalled_at).toISOString(),
    taught_by_key: r.taught_by_key,
    taught_by_agent: r.taught_by_agent,
    taught_via: r.taught_via,
  };
}

export interface ForgetReceipt {
  workspace: string;
  end_user_id: string;
  facts_deleted: number;
  answers_deleted: number;
  conversations_deleted: number;
  end_user_deleted: boolean;
}

/**
 * Right to be forgotten: every fact about the end user, every answer asked on their behalf (with
 * its messages), their conversations, and the end user record. Run it in one transaction: the
 * deleted facts' tombstones commit with it, so once it returns no instance serves them again.
 */
export async function forgetEndUser(db: Queryable, workspace: { id: string; slug: string }, endUserId: string): Promise<ForgetReceipt> {
  const seq = await nextFactSeq(db, workspace.id);
  const deleted = await db.sql<{ id: string }>`
    DELETE FROM facts WHERE workspace_id = ${workspace.id} AND end_user_id = ${endUserId} RETURNING id`;
  await recordTombstones(
    db,
    workspace.id,
    seq,
    deleted.map((r) => r.id),
  );
  const answers = await db.sql<{ n: number }>`
    WITH gone AS (DELETE FROM answers WHERE workspace_id = ${workspace.id} AND end_user_id = ${endUserId} RETURNING id),
    keys AS (DELETE FROM idempotency_keys WHERE answer_id IN (SELECT id FROM gone))
    SELECT count(*)::int AS n FROM gone`;
  const conversations = await db.sql<{ n: number }>`
    WITH gone AS (
      DELETE FROM conversations c WHERE c.workspace_id = ${workspace.id} AND c.end_user_id = ${endUserId}
        AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.workspace_id = c.workspace_id AND a.conversation_id = c.id)
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`;
  const users = await db.sql<{ id: string }>`
    DELETE FROM end_users WHERE workspace_id = ${workspace.id} AND id = ${endUserId} RETURNING id`;
  // The audit log of bulk forgets keeps no trace of their id either.
  await db.sql`DELETE FROM forget_runs WHERE workspace_id = ${workspace.id} AND filter ->> 'end_user' = ${endUserId}`;
  await forgetEndUserCapture(db, workspace.id, endUserId);
  await forgetEndUserEvents(db, workspace.id, endUserId, deleted.length);
  return {
    workspace: workspace.slug,
    end_user_id: endUserId,
    facts_deleted: deleted.length,
    answers_deleted: answers[0]?.n ?? 0,
    conversations_deleted: conversations[0]?.n ?? 0,
    end_user_deleted: users.length > 0,
  };
}
