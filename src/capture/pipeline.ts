import { sortableId } from "../ids";
import type { Db, Queryable } from "../db/types";
import type { EndUser, Origin, TeachResult } from "../schema/memory";
import { claimKey, parseClaimKey } from "./claim-key";
import { changedFact, changeSearchWords, type ChangeSide } from "./change";
import { isChangeStatement } from "./statement";
import { continuedClaim, prepareClaim, relatePrepared, restates, type PreparedClaim } from "./relation";
import { nextFactSeq } from "../memory/changes";
import {
  insertFacts,
  liveClaims,
  liveStatementsMentioning,
  lockWorkspaceFacts,
  markSuperseded,
  reviveExpired,
  teamMemberNames,
  upsertEndUser,
  type NewFactRow,
  type Provenance,
} from "./store";
import type { Claim, FactAnalysis } from "./types";
import { factCreated, factSuperseded, recordEvents } from "../webhooks/outbox";

/** How much a fact is trusted by default, by where it came from. */
export const DEFAULT_CONFIDENCE: Record<Origin, number> = {
  system: 1,
  user_stated: 0.9,
  ingested: 0.8,
  agent_action: 0.75,
  agent_inferred: 0.6,
};

export interface CaptureItem {
  text: string;
  origin: Origin;
  endUser?: EndUser;
  /** The agent whose own fact it is (teach's scope "agent"); absent: a workspace fact. */
  agent?: string | null;
  /** Where it came from (who taught it, through what). */
  source?: Provenance;
  /** When the fact was observed (teach's `observed_at`, import's time); default now. */
  recordedAt?: Date;
  /** When it stops being true; default never. */
  expiresAt?: Date;
  pinned?: boolean;
}

export interface CaptureResult extends TeachResult {
  /** Ids of the facts stored, in input order (skipped items have none). */
  factIds: string[];
}

/**
 * The capture pipeline, the only writer of facts: normalise, drop exact duplicates, attribute the
 * subject, classify, flag sensitive content, and supersede older values of the same claim ("older"
 * by observed time: a fact observed before the live value of its claim is stored as that claim's
 * history, superseded by it, and never replaces it; ties go to the later call). The
 * facts are committed before it returns, with the workspace's change sequence advanced and the
 * webhook events written in the same transaction, so the very next search on any instance finds
 * them and an event exists exactly when its fact does.
 *
 * Trade-off: writers of one workspace are serialised by a lock held for the storage transaction
 * only; the rule analysis runs before taking it, so concurrent teaches wait on each other for
 * milliseconds.
 */
export async function captureFacts(db: Db, workspaceId: string, items: readonly CaptureItem[]): Promise<CaptureResult> {
  const team = await teamMemberNames(db, workspaceId);
  return storeCaptured(db, workspaceId, await analyseCapture(items, team));
}

/** Items analysed between two turns of the event loop (see analyseCapture): a few milliseconds of rules. */
const ANALYSIS_SLICE = 16;

/**
 * The rule analysis of each item, against the workspace's team member names: CPU only, no
 * database. It yields to the event loop between slices of items, so that a transaction already in
 * flight (an import's previous batch, capture/import.ts) goes on with its round trips meanwhile.
 */
export async function analyseCapture(items: readonly CaptureItem[], team: readonly string[]): Promise<Analysed[]> {
  // The capture rules load on the first capture, not when the server starts.
  const { analyzeFact } = await import("./analyze");
  const analysed: Analysed[] = [];
  for (const [i, item] of items.entries()) {
    if (i > 0 && i % ANALYSIS_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    analysed.push({
      item,
      endUserId: item.endUser?.id ?? null,
      agent: item.agent ?? null,
      analysis: analyzeFact({ text: item.text, endUser: item.endUser, teamMembers: team }),
    });
  }
  return analysed;
}

/** Stores analysed items in one transaction under the workspace's capture lock (see captureFacts). */
export function storeCaptured(db: Db, workspaceId: string, analysed: readonly Analysed[]): Promise<CaptureResult> {
  return db.transaction(async (tx) => {
    await lockWorkspaceFacts(tx, workspaceId);
    return storeAnalysed(tx, workspaceId, analysed);
  });
}

interface LiveFactClaim {
  id: string;
  /** Whose own fact it is (null: the workspace's): a claim relates only to claims of its own scope. */
  agent: string | null;
  normalized: string;
  claim: PreparedClaim;
  /** Observed, epoch milliseconds. */
  recordedAt: number;
}

/** The latest observed of these live facts when it was observed after `recordedAt`: the fact that keeps a claim. */
function observedLater<T extends { id: string; recordedAt: number }>(facts: readonly T[], recordedAt: number): T | null {
  let latest: T | null = null;
  for (const fact of facts) if (fact.recordedAt > recordedAt && (latest === null || fact.recordedAt > latest.recordedAt)) latest = fact;
  return latest;
}

/** An item with its analysis, ready to store. */
export interface Analysed {
  item: CaptureItem;
  endUserId: string | null;
  agent: string | null;
  analysis: FactAnalysis;
}

/** A fact stored earlier in the same call, as a later change statement of the call sees it. */
type BatchFact = ChangeSide & { id: string; endUserId: string | null; agent: string | null; recordedAt: number };

/** Under the capture lock: duplicates, claims and supersession, the insert. */
async function storeAnalysed(tx: Queryable, workspaceId: string, analysed: readonly Analysed[]): Promise<CaptureResult> {
  const now = new Date();
  const endUsers = new Map<string, EndUser>();
  for (const { item } of analysed) if (item.endUser) endUsers.set(item.endUser.id, item.endUser);
  for (const user of endUsers.values()) await upsertEndUser(tx, workspaceId, user.id, user.name);
  // Duplicates within this call; duplicates of stored facts are refused by the unique index.
  const known = new Set<string>();
  const wanted = analysed.flatMap((a) => claimsOf(a.analysis));
  const stored = await liveClaims(
    tx,
    workspaceId,
    [...new Set(wanted.map(claimKey))],
    [...new Set(wanted.filter((c) => c.replaces !== undefined || c.cardinality === "one").map((c) => c.subject))],
    [...new Set(analysed.map((a) => a.agent ?? ""))],
    now,
  );
  // Live claims (several per key: many-valued relations, or values that coexist), kept current as the batch goes.
  let live: LiveFactClaim[] = stored.flatMap((row) =>
    [
      { key: row.claim_key, value: row.claim_value, negated: row.claim_negated },
      { key: row.alt_claim_key, value: row.alt_claim_value, negated: row.alt_claim_negated },
    ].flatMap(({ key, value, negated }) => {
      const parts = key === null || value === null ? null : parseClaimKey(key);
      if (parts === null) return [];
      return [
        {
          id: row.id,
          agent: row.agent_slug,
          normalized: row.normalized,
          recordedAt: row.recorded_ms,
          claim: prepareClaim({ ...parts, value: value!, negated }),
        },
      ];
    }),
  );

  // Facts this call stored or replaced, for change statements later in the same call.
  const batch: BatchFact[] = [];
  const replacedInBatch = new Set<string>();
  const rows: NewFactRow[] = [];
  const replaces: { newId: string; oldIds: string[] }[] = [];
  /** Facts observed before the live value of their claim: stored superseded by it. */
  const history: { id: string; keptBy: string }[] = [];
  const factIds: string[] = [];
  let skipped = 0;
  for (const { item, endUserId, agent, analysis } of analysed) {
    const recordedAt = item.recordedAt ?? now;
    const duplicateKey = `${endUserId ?? ""}\n${agent ?? ""}\n${analysis.normalized}`;
    // Each reading of the claim (the lexicon's, the sentence rules') relates to each live claim of its scope.
    const scoped = live.filter((old) => old.agent === agent);
    const readings = claimsOf(analysis).map((found) => {
      const prepared = prepareClaim(found);
      const relations = scoped.map((old) => relatePrepared(prepared, old.claim));
      return { found, prepared, relations, replaced: scoped.filter((_, i) => relations[i] === "supersede") };
    });
    // The same claim with the same value adds nothing when its words are all in the live fact's.
    const restated = readings.some((r) => r.relations.some((rel, i) => rel === "duplicate" && restates(analysis.normalized, scoped[i]!.normalized)));
    if (known.has(duplicateKey) || restated) {
      skipped += 1;
      continue;
    }
    known.add(duplicateKey);
    const replacedIds = new Set(readings.flatMap((r) => r.replaced.map((old) => old.id)));
    const replaced = [...new Map(readings.flatMap((r) => r.replaced).map((old) => [old.id, old])).values()];
    const [claim, alternate] = readings.map((r) =>
      continuedClaim(
        r.found,
        r.replaced.map((old) => old.claim.claim),
      ),
    );
    const id = sortableId("fact");
    const side: ChangeSide = { text: item.text, subject: analysis.subject, subjectType: analysis.subjectType, claim: analysis.ruleClaim };
    const changed =
      replaced.length === 0 && analysis.mayReplace && isChangeStatement(item.text)
        ? await changedStatement(tx, workspaceId, endUserId, agent, side, batch, replacedInBatch, now)
        : null;
    const keptBy = observedLater(changed === null ? replaced : [changed], recordedAt.getTime());
    rows.push({
      id,
      text: item.text,
      normalized: analysis.normalized,
      kind: analysis.kind,
      origin: item.origin,
      subject: analysis.subject,
      subjectType: analysis.subjectType,
      endUserId: analysis.subjectType === "end_user" ? endUserId : null,
      agent,
      confidence: DEFAULT_CONFIDENCE[item.origin],
      recordedAt,
      expiresAt: item.expiresAt ?? null,
      sensitive: analysis.sensitive,
      pinned: item.pinned ?? false,
      claimKey: claim ? claimKey(claim) : null,
      claimSubject: claim?.subject ?? null,
      claimValue: claim?.value ?? null,
      claimNegated: claim?.negated ?? false,
      alt: alternate ? { key: claimKey(alternate), subject: alternate.subject, value: alternate.value, negated: alternate.negated } : null,
      source: item.source ?? null,
    });
    factIds.push(id);
    if (keptBy !== null) {
      history.push({ id, keptBy: keptBy.id });
      continue;
    }
    if (claim) {
      if (replaced.length > 0) replaces.push({ newId: id, oldIds: replaced.map((old) => old.id) });
      const kept = [claim, alternate].flatMap((c) =>
        c ? [{ id, agent, normalized: analysis.normalized, claim: prepareClaim(c), recordedAt: recordedAt.getTime() }] : [],
      );
      live = [...live.filter((old) => !replacedIds.has(old.id)), ...kept];
    }
    if (changed !== null) {
      replaces.push({ newId: id, oldIds: [changed.id] });
      replacedInBatch.add(changed.id);
      live = live.filter((old) => old.id !== changed.id);
    }
    for (const old of replaced) replacedInBatch.add(old.id);
    batch.push({ ...side, id, endUserId, agent, recordedAt: recordedAt.getTime() });
  }

  if (rows.length === 0) return { accepted_fact_count: analysed.length, created: 0, superseded: 0, skipped, factIds: [] };
  const seq = await nextFactSeq(tx, workspaceId);
  const inserted = await insertFacts(tx, workspaceId, seq, rows);
  const revived = await reviveExpired(
    tx,
    workspaceId,
    seq,
    now,
    rows.filter((r) => !inserted.has(r.id)),
  );
  const storedRows = rows.filter((r) => inserted.has(r.id));
  // Where a row of this call stands in the table: itself, the expired twin it revived, or nowhere
  // (a live twin refused it). A fact of an earlier call stands as itself.
  const twinKey = (endUserId: string | null, agent: string | null, normalized: string): string => `${endUserId ?? ""}\n${agent ?? ""}\n${normalized}`;
  const revivedBy = new Map(revived.map((r) => [twinKey(r.end_user_id, r.agent_slug, r.normalized), r.id]));
  const rowIds = new Set(rows.map((r) => r.id));
  const standing = new Map(rows.map((r) => [r.id, inserted.has(r.id) ? r.id : revivedBy.get(twinKey(r.endUserId, r.agent, r.normalized))]));
  const storedAs = (id: string): string | undefined => (rowIds.has(id) ? standing.get(id) : id);
  const replacing = replaces.flatMap((r) => {
    const newId = storedAs(r.newId);
    return newId === undefined ? [] : [{ newId, oldIds: r.oldIds }];
  });
  const pairs = [
    ...replacing.flatMap((r) => r.oldIds.map((oldId) => ({ oldId, newId: r.newId }))),
    ...history.flatMap((h) => {
      const keptBy = storedAs(h.keptBy);
      return inserted.has(h.id) && keptBy !== undefined ? [{ oldId: h.id, newId: keptBy }] : [];
    }),
  ];
  // A superseded fact from earlier in this same batch is replaced too: only the last value stays live.
  const supersededFacts = await markSuperseded(tx, seq, pairs);
  await recordEvents(tx, workspaceId, [
    ...storedRows.map((r) =>
      factCreated({ ...r, subject_type: r.subjectType, end_user_id: r.endUserId, agent_slug: r.agent, recorded_at: r.recordedAt, expires_at: r.expiresAt }),
    ),
    ...revived.map(factCreated),
    ...supersededFacts.map(factSuperseded),
  ]);

  const superseded = replacing.length;
  const created = inserted.size - superseded + revived.length;
  return {
    accepted_fact_count: analysed.length,
    created,
    superseded,
    skipped: skipped + (rows.length - inserted.size - revived.length),
    factIds: [...factIds.filter((id) => inserted.has(id)), ...revived.map((r) => r.id)],
  };
}

/** The fact's readings of its claim: the lexicon's (or the sentence rules' alone), then the other one's. */
function claimsOf(analysis: FactAnalysis): Claim[] {
  return analysis.claim === null ? [] : analysis.alternate === null ? [analysis.claim] : [analysis.claim, analysis.alternate];
}

/** How many recent candidates a change statement is compared with. */
const CHANGE_CANDIDATES = 50;

/**
 * The live fact a change statement replaces, if any (see capture/change.ts): among the scope's
 * recent facts that share a word with it and those stored earlier in this call.
 */
async function changedStatement(
  tx: Queryable,
  workspaceId: string,
  endUserId: string | null,
  agent: string | null,
  newer: ChangeSide,
  batch: readonly BatchFact[],
  replacedInBatch: ReadonlySet<string>,
  now: Date,
): Promise<{ id: string; recordedAt: number } | null> {
  const stored = await liveStatementsMentioning(tx, workspaceId, endUserId, agent, changeSearchWords(newer.text), CHANGE_CANDIDATES, now);
  const candidates: (ChangeSide & { id: string; recordedAt: number })[] = [
    ...batch.filter((b) => b.endUserId === endUserId && b.agent === agent).reverse(),
    ...stored.map((row) => {
      const parts = row.claim_key === null ? null : parseClaimKey(row.claim_key);
      const claim = parts && row.claim_value !== null ? { ...parts, value: row.claim_value, negated: row.claim_negated } : null;
      return { id: row.id, recordedAt: row.recorded_ms, text: row.text, subject: row.subject, subjectType: row.subject_type, claim };
    }),
  ].filter((c) => !replacedInBatch.has(c.id));
  return changedFact(newer, candidates);
}
