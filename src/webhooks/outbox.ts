import type { Db, Queryable } from "../db/types";
import type { WebhookEventType } from "../schema/webhooks";

/**
 * The webhook outbox: events are written in the transaction of the change they announce, one row
 * per subscribed endpoint, so an event exists exactly when its change committed, and survives a
 * crash until it is delivered (deliver.ts). SQL per statement, one named function each.
 */

export interface OutboxEvent {
  type: WebhookEventType;
  /** What an internal endpoint receives. */
  data: Record<string, unknown>;
  /**
   * What an endpoint that is not internal receives, or null for none: a fact an external key
   * could not see (sensitive, a team fact, one the agent inferred) is never sent to it.
   */
  external: Record<string, unknown> | null;
  /** The end user it is about: forgetting them deletes the event (`forgetEndUserEvents`). */
  endUserId: string | null;
}

/** A fact's flags, as external visibility reads them. */
export interface FactFlags {
  sensitive: boolean;
  subject_type: string;
  origin: string;
  /** An agent's own fact: no endpoint that is not internal hears of it. */
  agent_slug: string | null;
}

/** The rule of visibility.ts for external keys (and for an agent's own facts), applied to a fact an event is about. */
export const hiddenFromExternal = (f: FactFlags): boolean => f.sensitive || f.subject_type === "team" || f.origin === "agent_inferred" || f.agent_slug !== null;

/** The Standard Webhooks body: `{type, timestamp, data}`, serialised once (the bytes signed and sent). */
const body = (type: string, timestamp: string, data: Record<string, unknown> | null): string | null =>
  data === null ? null : JSON.stringify({ type, timestamp, data });

/**
 * Writes the events for every enabled endpoint of the workspace subscribed to their types, in
 * order. Trade-off: one statement per change even when the workspace has no endpoint (an index
 * lookup), so that no cache of "who subscribes" can miss an endpoint created a moment ago on
 * another instance.
 */
export async function recordEvents(tx: Queryable, workspaceId: string, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const timestamp = new Date().toISOString();
  await tx.sql`
    INSERT INTO webhook_events (id, endpoint_id, type, payload, end_user_id)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), ep.id, e.type, CASE WHEN ep.internal THEN e.internal ELSE e.external END, e.end_user_id
      FROM webhook_endpoints ep
     CROSS JOIN unnest(${events.map((e) => e.type)}::text[], ${events.map((e) => body(e.type, timestamp, e.data))}::text[],
                       ${events.map((e) => body(e.type, timestamp, e.external))}::text[], ${events.map((e) => e.endUserId)}::text[])
                WITH ORDINALITY AS e(type, internal, external, end_user_id, n)
     WHERE ep.workspace_id = ${workspaceId} AND ep.enabled AND e.type = ANY(ep.events) AND (ep.internal OR e.external IS NOT NULL)
     ORDER BY ep.id, e.n`;
}

/**
 * Announces facts whose expiry passed (once each, `expiry_announced`), in workspaces with an
 * endpoint subscribed to `fact.expired`; expiries from before the first such endpoint existed
 * are not announced. One transaction: the mark and the events commit together. Returns how
 * many facts were announced. Runs in the maintenance loop.
 */
export async function announceExpiredFacts(db: Db, limit = 1000): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.sql<{ workspace_id: string; id: string; expires_at: Date; end_user_id: string | null } & FactFlags>`
      UPDATE facts f SET expiry_announced = true
       WHERE f.id IN (
         SELECT x.id FROM facts x
           JOIN (SELECT workspace_id, min(created_at) AS since FROM webhook_endpoints
                  WHERE enabled AND 'fact.expired' = ANY(events) GROUP BY workspace_id) ep ON ep.workspace_id = x.workspace_id
          WHERE x.superseded_by IS NULL AND x.expires_at <= now() AND x.expires_at > ep.since AND NOT x.expiry_announced
          ORDER BY x.expires_at
          LIMIT ${limit}
          FOR UPDATE OF x SKIP LOCKED)
      RETURNING f.workspace_id, f.id, f.expires_at, f.end_user_id, f.sensitive, f.subject_type, f.origin, f.agent_slug`;
    const byWorkspace = new Map<string, OutboxEvent[]>();
    for (const row of rows.sort((a, b) => new Date(a.expires_at).getTime() - new Date(b.expires_at).getTime())) {
      const data = { fact_id: row.id, expires_at: new Date(row.expires_at).toISOString() };
      const list = byWorkspace.get(row.workspace_id) ?? [];
      list.push({ type: "fact.expired", data, external: hiddenFromExternal(row) ? null : data, endUserId: row.end_user_id });
      byWorkspace.set(row.workspace_id, list);
    }
    for (const [workspaceId, events] of byWorkspace) await recordEvents(tx, workspaceId, events);
    return rows.length;
  });
}

/** A stored fact as `fact.created` carries it. */
export interface FactEventSource extends FactFlags {
  id: string;
  text: string;
  kind: string;
  subject: string;
  end_user_id: string | null;
  confidence: number;
  recorded_at: Date;
  expires_at: Date | null;
}

/**
 * `fact.created` for a stored fact; not sent to endpoints that are not internal when an external
 * key could not see it, or when it is an agent's own.
 */
export function factCreated(fact: FactEventSource): OutboxEvent {
  const data = {
    fact_id: fact.id,
    fact_text: fact.text,
    kind: fact.kind,
    origin: fact.origin,
    subject: fact.subject,
    subject_type: fact.subject_type,
    end_user_id: fact.end_user_id,
    agent: fact.agent_slug,
    confidence_level: Math.round(Number(fact.confidence) * 1000) / 1000,
    recorded_time: new Date(fact.recorded_at).toISOString(),
    expires_at: fact.expires_at === null ? null : new Date(fact.expires_at).toISOString(),
  };
  return { type: "fact.created", data, external: hiddenFromExternal(fact) ? null : data, endUserId: fact.end_user_id };
}

/**
 * `fact.superseded`: the fact that is no longer live and the one that replaced it; when the
 * capture model decided it, `decided_by: "model"` with the model, its label and its reason.
 */
export function factSuperseded(
  fact: FactFlags & { id: string; superseded_by: string; end_user_id: string | null },
  byModel?: { model: string; label: string; reason: string },
): OutboxEvent {
  const data = {
    fact_id: fact.id,
    superseded_by: fact.superseded_by,
    ...(byModel && { decided_by: "model", model: byModel.model, label: byModel.label, reason: byModel.reason }),
  };
  return { type: "fact.superseded", data, external: hiddenFromExternal(fact) ? null : data, endUserId: fact.end_user_id };
}

/** The run an answer event is about. */
export interface AnswerEventSource {
  id: string;
  conversation_id: string;
  end_user_id: string | null;
  audience: string;
}

/**
 * `answer.completed` / `answer.failed`. The answer's text goes to endpoints that are not internal
 * only when an external key asked: an internal key's answer may rest on facts they may not see.
 */
export function answerFinished(run: AnswerEventSource, outcome: { text: string } | { code: string; message: string }): OutboxEvent {
  const base = { answer_id: run.id, conversation_id: run.conversation_id, end_user_id: run.end_user_id };
  if ("code" in outcome) {
    const data = { ...base, status: "failed", error_code: outcome.code, error_message: outcome.message };
    return { type: "answer.failed", data, external: data, endUserId: run.end_user_id };
  }
  const data = { ...base, status: "completed", output_text: outcome.text };
  return { type: "answer.completed", data, external: run.audience === "external" ? data : { ...base, status: "completed" }, endUserId: run.end_user_id };
}

/**
 * Right to be forgotten reaches the outbox too: every event about the end user, delivered or
 * waiting, is deleted (a waiting one would otherwise carry their facts out after they were
 * forgotten), then `end_user.forgotten` is announced. In the forgetting transaction.
 */
export async function forgetEndUserEvents(tx: Queryable, workspaceId: string, endUserId: string, factsDeleted: number): Promise<void> {
  await tx.sql`
    DELETE FROM webhook_events
     WHERE end_user_id = ${endUserId} AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE workspace_id = ${workspaceId})`;
  const data = { end_user_id: endUserId, facts_deleted: factsDeleted };
  await recordEvents(tx, workspaceId, [{ type: "end_user.forgotten", data, external: data, endUserId: null }]);
}
