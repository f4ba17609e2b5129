/**
 * Judged changes (docs/memory.md, "With a capture model"): the model labels each new fact's
 * candidates replaces / updates / duplicate / unrelated, and memoryd applies what the gates let
 * through with the model-free path's own relations: replaces hides the older fact, updates links
 * the newer to it, duplicate makes the newer the older's history. One transaction per batch,
 * stamped with the change sequence, every decision recorded.
 */
import type { Db, Queryable } from "../../db/types";
import type { FactIndexes } from "../../memory/index/registry";
import { nextFactSeq } from "../../memory/changes";
import { JudgeReply, type DecisionLabel } from "../../schema/capture-model";
import { factSuperseded, recordEvents } from "../../webhooks/outbox";
import { lockWorkspaceFacts, markSuperseded } from "../store";
import { askModel, type CaptureModel, type ModelReply } from "./call";
import { candidatesOf, liveFactsByIds, type LiveFact } from "./candidates";
import { recordDecisions, type Batch, type NewDecision } from "./decisions";
import { readingOf, vetoOf, type Reading } from "./gates";
import { judgeInput, JUDGE_PROMPT } from "./prompts";
import { parseReply } from "./reply";

/** New facts judged in one model call. */
export const JUDGE_BATCH = 12;

/** A label the model gave a pair it was shown. */
export interface Proposal {
  newer: LiveFact;
  older: LiveFact;
  label: Exclude<DecisionLabel, "extracted">;
  reason: string;
}

export interface JudgeOutcome {
  /** Model calls made, with their replies (usage, latency) and whether each parsed. */
  replies: { reply: ModelReply; parsed: boolean }[];
  /** Pairs named that were not shown together, dropped before any gate. */
  dropped: number;
  applied: NewDecision[];
  vetoed: NewDecision[];
}

/** One scope's new facts, each with its candidates: what one model call is shown. */
interface Shown {
  fact: LiveFact;
  candidates: LiveFact[];
}

const scopeKey = (f: LiveFact): string => `${f.end_user_id ?? ""}\n${f.agent_slug ?? ""}`;

/**
 * Judges the facts (those still live and not sensitive), in calls of at most JUDGE_BATCH facts of
 * one scope: the model never sees two end users' or agents' facts in one call.
 */
export async function judgeFacts(
  deps: { db: Db; index: FactIndexes },
  model: CaptureModel,
  workspaceId: string,
  factIds: readonly string[],
  timeoutMs: number,
  batch: { id: () => string; beforeCall: () => Promise<void> },
): Promise<JudgeOutcome> {
  const outcome: JudgeOutcome = { replies: [], dropped: 0, applied: [], vetoed: [] };
  const facts = (await liveFactsByIds(deps.db, workspaceId, factIds)).filter((f) => !f.sensitive);
  // A new fact is a candidate of the batch's later ones (taught a moment apart, judged in one round), never of earlier ones.
  const laterOrSame = (f: LiveFact): Set<string> =>
    new Set(
      facts
        .filter((o) => o.recorded_at.getTime() > f.recorded_at.getTime() || (o.recorded_at.getTime() === f.recorded_at.getTime() && o.id >= f.id))
        .map((o) => o.id),
    );
  const byScope = new Map<string, LiveFact[]>();
  for (const f of facts) byScope.set(scopeKey(f), [...(byScope.get(scopeKey(f)) ?? []), f]);
  for (const scoped of byScope.values()) {
    for (let at = 0; at < scoped.length; at += JUDGE_BATCH) {
      const shown: Shown[] = [];
      for (const fact of scoped.slice(at, at + JUDGE_BATCH)) {
        const candidates = await candidatesOf(deps.db, deps.index, fact, laterOrSame(fact));
        if (candidates.length > 0) shown.push({ fact, candidates });
      }
      if (shown.length === 0) continue;
      await batch.beforeCall();
      const reply = await askModel(
        model,
        JUDGE_PROMPT,
        judgeInput(
          shown.map((s) => ({
            fact: { text: s.fact.text, recordedAt: s.fact.recorded_at },
            candidates: s.candidates.map((c) => ({ text: c.text, recordedAt: c.recorded_at })),
          })),
        ),
        timeoutMs,
      );
      const parsed = parseReply(JudgeReply, reply.text);
      outcome.replies.push({ reply, parsed: parsed !== null });
      if (parsed === null) continue;
      const { proposals, dropped } = proposalsOf(parsed, shown);
      outcome.dropped += dropped;
      const recorded: Batch = { id: batch.id(), model: model.name, prompt: JUDGE_PROMPT.version };
      const applied = await applyProposals(deps.db, workspaceId, recorded, proposals);
      outcome.applied.push(...applied.filter((d) => d.vetoedBy === null));
      outcome.vetoed.push(...applied.filter((d) => d.vetoedBy !== null));
    }
  }
  return outcome;
}

/**
 * The reply's labels as pairs of what was shown: "N2" is the second new fact, "C5" the fifth
 * candidate of the call, and only when it was shown under that fact. Anything else is dropped,
 * as is "unrelated" and a second label for a pair already labelled.
 */
function proposalsOf(reply: JudgeReply, shown: readonly Shown[]): { proposals: Proposal[]; dropped: number } {
  const owner = new Map<string, { fact: number; candidate: LiveFact }>();
  let c = 0;
  shown.forEach((s, i) => {
    for (const candidate of s.candidates) {
      c += 1;
      owner.set(`C${c}`, { fact: i, candidate });
    }
  });
  const proposals: Proposal[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  for (const d of reply.decisions) {
    if (d.label === "unrelated") continue;
    const factAt = /^N([1-9][0-9]*)$/.exec(d.fact.trim());
    const index = factAt ? Number(factAt[1]) - 1 : -1;
    const candidate = owner.get(d.candidate.trim());
    if (index < 0 || index >= shown.length || candidate === undefined || candidate.fact !== index) {
      dropped += 1;
      continue;
    }
    const key = `${index} ${candidate.candidate.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    proposals.push({ newer: shown[index]!.fact, older: candidate.candidate, label: d.label, reason: d.reason.trim() || "(no reason given)" });
  }
  return { proposals, dropped };
}

/**
 * Applies proposals under the workspace's capture lock, re-reading both facts: one hidden or
 * deleted since it was shown is left alone ("no_longer_live"). Replaces and updates first; a
 * duplicate hides the newer fact only when nothing else of the batch was applied to it.
 */
export async function applyProposals(db: Db, workspaceId: string, batch: Batch, proposals: readonly Proposal[]): Promise<NewDecision[]> {
  if (proposals.length === 0) return [];
  const readings = new Map<string, Reading>(proposals.map((p) => [p.newer.id, readingOf(p.newer.text)]));
  const order: Record<Proposal["label"], number> = { replaces: 0, updates: 1, duplicate: 2 };
  const sorted = [...proposals].sort((a, b) => order[a.label] - order[b.label]);
  return db.transaction(async (tx) => {
    await lockWorkspaceFacts(tx, workspaceId);
    const live = new Map((await liveFactsByIds(tx, workspaceId, [...new Set(proposals.flatMap((p) => [p.newer.id, p.older.id]))], true)).map((f) => [f.id, f]));
    const decisions: NewDecision[] = [];
    const hidden = new Set<string>();
    const touched = new Set<string>();
    const pairs: { oldId: string; newId: string; label: string; reason: string }[] = [];
    const links = new Map<string, { ids: string[]; reasons: string[] }>();
    for (const p of sorted) {
      const newer = live.get(p.newer.id);
      const older = live.get(p.older.id);
      const decision = (vetoedBy: string | null): NewDecision => ({
        label: p.label,
        factId: p.newer.id,
        targetId: p.older.id,
        reason: p.reason,
        vetoedBy,
        endUserId: p.newer.end_user_id,
      });
      if (newer === undefined || older === undefined || hidden.has(newer.id) || hidden.has(older.id)) {
        decisions.push(decision("no_longer_live"));
        continue;
      }
      const veto =
        vetoOf(
          p.label,
          { text: newer.text, recordedAt: newer.recorded_at, pinned: newer.pinned, ...readings.get(newer.id)! },
          {
            text: older.text,
            recordedAt: older.recorded_at,
            pinned: older.pinned,
          },
        ) ?? (p.label === "duplicate" && touched.has(newer.id) ? "changed_in_batch" : null);
      decisions.push(decision(veto));
      if (veto !== null) continue;
      touched.add(newer.id);
      if (p.label === "replaces") {
        pairs.push({ oldId: older.id, newId: newer.id, label: p.label, reason: p.reason });
        hidden.add(older.id);
      } else if (p.label === "duplicate") {
        pairs.push({ oldId: newer.id, newId: older.id, label: p.label, reason: p.reason });
        hidden.add(newer.id);
      } else if (!(newer.updates ?? []).includes(older.id)) {
        const link = links.get(newer.id) ?? { ids: [], reasons: [] };
        link.ids.push(older.id);
        link.reasons.push(p.reason);
        links.set(newer.id, link);
      }
    }
    if (pairs.length > 0 || links.size > 0) {
      const seq = await nextFactSeq(tx, workspaceId);
      const superseded = await markSuperseded(tx, seq, pairs);
      await linkUpdates(tx, seq, batch, links);
      const why = new Map(pairs.map((p) => [p.oldId, p]));
      await recordEvents(
        tx,
        workspaceId,
        superseded.map((f) => factSuperseded(f, { model: batch.model, label: why.get(f.id)!.label, reason: why.get(f.id)!.reason })),
      );
    }
    await recordDecisions(tx, workspaceId, batch, decisions);
    return decisions;
  });
}

/** Adds the model's updates links to the newer facts, with "by model: reason" in their link reason. */
async function linkUpdates(tx: Queryable, seq: number, batch: Batch, links: ReadonlyMap<string, { ids: string[]; reasons: string[] }>): Promise<void> {
  for (const [id, link] of links) {
    const reason = `by model ${batch.model}: ${link.reasons.join("; ")}`.slice(0, 1_000);
    await tx.sql`
      UPDATE facts SET updates = coalesce(updates, '{}') || ${link.ids}::text[],
             link_reason = CASE WHEN link_reason IS NULL THEN ${reason} ELSE link_reason || '; ' || ${reason} END,
             changed_seq = ${seq}
       WHERE id = ${id}`;
  }
}
