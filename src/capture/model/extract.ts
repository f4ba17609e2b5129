/**
 * Extraction (docs/memory.md, "With a capture model"): the model reads a conversation taught
 * through POST /v1/memory/messages and writes its lasting facts as standalone sentences. They go
 * through the capture pipeline like any teach (duplicates skipped, model-free replaces), and in the
 * same transaction each verbatim statement the model-free path kept is replaced by the extracted
 * fact that speaks of it (one change, history kept, undoable in Review). A statement no extracted
 * fact speaks of stays live; a sentence that is no fact (a question, an instruction, markup) is
 * not stored.
 */
import type { Db, Queryable } from "../../db/types";
import { nextFactSeq } from "../../memory/changes";
import { ExtractReply } from "../../schema/capture-model";
import { factSuperseded, recordEvents } from "../../webhooks/outbox";
import { captureFacts } from "../pipeline";
import { markSuperseded } from "../store";
import { askModel, type CaptureModel, type ModelReply } from "./call";
import { liveFactsByIds } from "./candidates";
import { recordDecisions, type Batch, type NewDecision } from "./decisions";
import { extractedVeto, successorOf } from "./gates";
import { EXTRACT_PROMPT, extractInput } from "./prompts";
import type { CaptureJob } from "./queue";
import { parseReply } from "./reply";

export interface ExtractOutcome {
  reply: ModelReply;
  unparsed: boolean;
  /** Facts stored from the conversation. */
  stored: number;
  /** Verbatim statements replaced by them. */
  replaced: number;
  decisions: NewDecision[];
}

export async function extractFacts(db: Db, model: CaptureModel, job: CaptureJob, timeoutMs: number, batchId: string): Promise<ExtractOutcome> {
  const observedAt = new Date(job.observed_at);
  const reply = await askModel(model, EXTRACT_PROMPT, extractInput(job.messages ?? [], job.end_user_name, observedAt), timeoutMs);
  const parsed = parseReply(ExtractReply, reply.text);
  if (parsed === null) return { reply, unparsed: true, stored: 0, replaced: 0, decisions: [] };
  const batch: Batch = { id: batchId, model: model.name, prompt: EXTRACT_PROMPT.version };
  const texts = [...new Set(parsed.facts.map((f) => f.text.trim()).filter((t) => t !== ""))];
  const vetoed: NewDecision[] = [];
  const kept: string[] = [];
  for (const text of texts) {
    const veto = extractedVeto(text);
    if (veto === null) kept.push(text);
    else
      vetoed.push({
        label: "extracted",
        factId: null,
        targetId: null,
        proposedText: text,
        reason: "drawn from the conversation",
        vetoedBy: veto,
        endUserId: job.end_user_id,
      });
  }
  let decisions: NewDecision[] = vetoed;
  let replaced = 0;
  const endUser = job.end_user_id === null ? undefined : { id: job.end_user_id, ...(job.end_user_name !== null && { name: job.end_user_name }) };
  const result = await captureFacts(
    db,
    job.workspace_id,
    kept.map((text) => ({
      text,
      origin: "user_stated" as const,
      endUser,
      agent: job.agent_slug,
      source: { keyId: null, agent: null, via: `capture model ${model.name} (${EXTRACT_PROMPT.version}) from a conversation` },
      recordedAt: observedAt,
    })),
    {
      followUp: { kind: "judge" },
      inTransaction: async (tx, stored) => {
        const outcome = await replaceVerbatim(tx, job, batch, stored.factIds);
        replaced = outcome.replaced;
        decisions = [...vetoed, ...outcome.decisions];
        await recordDecisions(tx, job.workspace_id, batch, decisions);
      },
    },
  );
  return { reply, unparsed: false, stored: result.factIds.length, replaced, decisions };
}

/** Each verbatim statement still live is replaced by the extracted fact that speaks of it, if one does. */
async function replaceVerbatim(
  tx: Queryable,
  job: CaptureJob,
  batch: Batch,
  extractedIds: readonly string[],
): Promise<{ replaced: number; decisions: NewDecision[] }> {
  const extracted = await liveFactsByIds(tx, job.workspace_id, extractedIds);
  const verbatim = await liveFactsByIds(
    tx,
    job.workspace_id,
    job.fact_ids.filter((id) => !extractedIds.includes(id)),
    true,
  );
  const pairs: { oldId: string; newId: string }[] = [];
  for (const statement of verbatim) {
    const successor = successorOf(
      statement.text,
      extracted.filter((f) => f.end_user_id === statement.end_user_id && f.agent_slug === statement.agent_slug),
    );
    if (successor !== null) pairs.push({ oldId: statement.id, newId: successor });
  }
  const reason = "drawn from the conversation";
  const decisions: NewDecision[] = [
    ...pairs.map((p) => ({ label: "extracted" as const, factId: p.newId, targetId: p.oldId, reason, vetoedBy: null, endUserId: job.end_user_id })),
    ...extracted
      .filter((f) => !pairs.some((p) => p.newId === f.id))
      .map((f) => ({ label: "extracted" as const, factId: f.id, targetId: null, reason, vetoedBy: null, endUserId: job.end_user_id })),
  ];
  if (pairs.length > 0) {
    const seq = await nextFactSeq(tx, job.workspace_id);
    const superseded = await markSuperseded(tx, seq, pairs);
    await recordEvents(
      tx,
      job.workspace_id,
      superseded.map((f) => factSuperseded(f, { model: batch.model, label: "extracted", reason })),
    );
  }
  return { replaced: pairs.length, decisions };
}
