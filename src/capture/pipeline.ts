import { sortableId } from "../ids";
import type { Db, Queryable } from "../db/types";
import type { EndUser, Origin, TeachResult } from "../schema/memory";
import { claimKey, parseClaimKey } from "./claim-key";
import { linkOf, type LinkCandidate } from "./links";
import { updateOf, updateSideOf, type UpdateSide } from "./updates";
import { isPlainStatement } from "../memory/index/statement";
import { continuedClaim, prepareClaim, relatePrepared, restates, type PreparedClaim } from "./relation";
import { nextFactSeq } from "../memory/changes";
import {
  insertFacts,
  liveClaims,
  liveStatementsMentioning,
  lockForCapture,
  markSuperseded,
  reviveExpired,
  teamMemberNames,
  upsertEndUser,
  type NewFactRow,
  type Provenance,
} from "./store";
import type { FactAnalysis } from "./types";
import { factCreated, factSuperseded, recordEvents } from "../webhooks/outbox";
import { enqueueCaptureJobs, type NewJob } from "./model/queue";
import type { ChatMessage } from "../models/types";

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
 * What a call leaves for the workspace's capture model, if it has one (src/capture/model/): the
 * facts it stored to be judged, or a conversation to draw facts from. Queued in the call's own
 * transaction; the call never waits on the model.
 */
export type ModelFollowUp =
  | { kind: "judge" }
  | { kind: "extract"; messages: readonly ChatMessage[]; endUserId: string | null; endUserName: string | null; agent: string | null; observedAt: Date };

export interface CaptureOptions {
  /** Default: the stored facts are judged. `null`: nothing for the model (an import). */
  followUp?: ModelFollowUp | null;
  /** Runs in the storing transaction, after the facts are stored (the model's own writes use it). */
  inTransaction?: (tx: Queryable, result: CaptureResult) => Promise<void>;
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
export async function captureFacts(db: Db, workspaceId: string, items: readonly CaptureItem[], options: CaptureOptions = {}): Promise<CaptureResult> {
  const team = await teamMemberNames(db, workspaceId);
  return storeCaptured(db, workspaceId, await analyseCapture(items, team), options);
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
export async function storeCaptured(db: Db, workspaceId: string, analysed: readonly Analysed[], options: CaptureOptions = {}): Promise<CaptureResult> {
  // Trade-off: the facts an update may link to are read before the lock, so writers do not wait on
  // that scan; a fact another call stores meanwhile is not linked (an update hides nothing, and one
  // that links to a fact deleted meanwhile is simply not followed).
  const updateSides = analysed.map((a) => (a.analysis.mayReplace && isPlainStatement(a.item.text) ? updateSideOf(a.item.text) : null));
  const recentByScope = await recentStatements(db, workspaceId, analysed, updateSides, new Date());
  return db.transaction(async (tx) => {
    const { captureModel } = await lockForCapture(tx, workspaceId);
    const followUp = captureModel ? (options.followUp === undefined ? { kind: "judge" as const } : options.followUp) : null;
    const jobFor = (factIds: readonly string[]): NewJob | null => (followUp === null ? null : jobOf(followUp, factIds, analysed));
    const result = await storeAnalysed(tx, workspaceId, analysed, updateSides, recentByScope, jobFor);
    // Nothing was stored, so no statement carried the job: a conversation is still read by the model.
    if (followUp?.kind === "extract" && !result.queued) await enqueueCaptureJobs(tx, workspaceId, [jobOf(followUp, [], analysed)]);
    await options.inTransaction?.(tx, result);
    return result;
  });
}

/** The capture model's job for a call: its facts to judge, or its conversation with the statements kept verbatim. */
function jobOf(followUp: ModelFollowUp, factIds: readonly string[], analysed: readonly Analysed[]): NewJob {
  if (followUp.kind === "extract") return { ...followUp, factIds };
  const first = analysed[0];
  return {
    kind: "judge",
    factIds,
    endUserId: first?.endUserId ?? null,
    endUserName: first?.item.endUser?.name ?? null,
    agent: first?.agent ?? null,
    observedAt: first?.item.recordedAt ?? new Date(),
  };
}

/** Which scope a fact is stored in: the end user it is about (or none) and the agent whose own it is (or none). */
const scopeOf = (a: Analysed): string => `${a.analysis.subjectType === "end_user" ? (a.endUserId ?? "") : ""}\n${a.agent ?? ""}`;

interface LiveFactClaim extends LinkCandidate {
  id: string;
  /**
   * The end user it is about and whose own fact it is (null: the workspace's): a fact relates only
   * to facts of its own scope, so one end user's words never hide or move another's facts.
   */
  endUserId: string | null;
  agent: string | null;
  /** Duplicate-normalised text: a restatement is told by its words. */
  normalized: string;
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

/** A fact stored earlier in the same call, as a later statement of the call sees it. */
type BatchFact = UpdateCandidate & { endUserId: string | null; agent: string | null };

/** Under the capture lock: duplicates, claims and supersession, the insert. */
async function storeAnalysed(
  tx: Queryable,
  workspaceId: string,
  analysed: readonly Analysed[],
  updateSides: readonly (UpdateSide | null)[],
  recentByScope: ReadonlyMap<string, UpdateCandidate[]>,
  jobFor: (factIds: readonly string[]) => NewJob | null,
): Promise<CaptureResult & { queued: boolean }> {
  const now = new Date();
  const endUsers = new Map<string, EndUser>();
  for (const { item } of analysed) if (item.endUser) endUsers.set(item.endUser.id, item.endUser);
  for (const user of endUsers.values()) await upsertEndUser(tx, workspaceId, user.id, user.name);
  // Duplicates within this call; duplicates of stored facts are refused by the unique index.
  const known = new Set<string>();
  const wanted = analysed.flatMap((a) => (a.analysis.claim === null ? [] : [a.analysis.claim]));
  const stored = await liveClaims(
    tx,
    workspaceId,
    [...new Set(wanted.map(claimKey))],
    [...new Set(wanted.filter((c) => c.replaces !== undefined || c.cardinality === "one").map((c) => c.subject))],
    [...new Set(analysed.map((a) => a.agent ?? ""))],
    now,
  );
  // Live facts with a claim (several per key: many-valued relations, or values that coexist), kept current as the batch goes.
  const preparedOf = (key: string | null, value: string | null, negated: boolean): PreparedClaim | null => {
    const parts = key === null || value === null ? null : parseClaimKey(key);
    return parts === null ? null : prepareClaim({ ...parts, value: value!, negated });
  };
  let live: LiveFactClaim[] = stored.map((row) => ({
    id: row.id,
    endUserId: row.end_user_id,
    agent: row.agent_slug,
    normalized: row.normalized,
    text: row.text,
    recordedAt: row.recorded_ms,
    first: preparedOf(row.claim_key, row.claim_value, row.claim_negated),
  }));

  // Facts this call stored or replaced, for change statements later in the same call.
  const batch: BatchFact[] = [];
  const replacedInBatch = new Set<string>();
  const rows: NewFactRow[] = [];
  const replaces: { newId: string; oldIds: string[] }[] = [];
  /** Facts observed before the live value of their claim: stored superseded by it. */
  const history: { id: string; keptBy: string }[] = [];
  const factIds: string[] = [];
  let skipped = 0;
  for (const [at, { item, endUserId, agent, analysis }] of analysed.entries()) {
    const recordedAt = item.recordedAt ?? now;
    const duplicateKey = `${endUserId ?? ""}\n${agent ?? ""}\n${analysis.normalized}`;
    const storedEndUser = analysis.subjectType === "end_user" ? endUserId : null;
    const scoped = live.filter((old) => old.agent === agent && old.endUserId === storedEndUser);
    const first = analysis.claim === null ? null : prepareClaim(analysis.claim);
    // The same claim with the same value adds nothing when its words are all in the live fact's.
    const restated = scoped.some(
      (old) => first !== null && old.first !== null && relatePrepared(first, old.first) === "duplicate" && restates(analysis.normalized, old.normalized),
    );
    if (known.has(duplicateKey) || restated) {
      skipped += 1;
      continue;
    }
    known.add(duplicateKey);
    const linked = scoped.flatMap((old) => {
      const link = linkOf(first, old);
      return link === null ? [] : [{ old, link }];
    });
    const replaced = linked.filter((l) => l.link.kind === "replaces").map((l) => l.old);
    const replacedIds = new Set(replaced.map((old) => old.id));
    // An update links to what was observed before it; what was observed after it already says the later state.
    const updated = linked.filter((l) => l.link.kind === "updates" && l.old.recordedAt <= recordedAt.getTime());
    const claim =
      analysis.claim === null
        ? null
        : continuedClaim(
            analysis.claim,
            replaced.flatMap((old) => (old.first ? [old.first.claim] : [])),
          );
    const id = sortableId("fact");
    const side = updateSides[at]!;
    // A statement that something changed, read by its words: it may update, never replace.
    const changed =
      linked.length === 0 && side !== null
        ? updatedStatements(
            side,
            [...batch.filter((b) => b.endUserId === storedEndUser && b.agent === agent).reverse(), ...(recentByScope.get(scopeOf(analysed[at]!)) ?? [])].filter(
              (c) => c.recordedAt <= recordedAt.getTime() && !replacedInBatch.has(c.id),
            ),
          )
        : [];
    const links = [
      ...linked.filter((l) => l.link.kind === "replaces").map((l) => l.link.reason),
      ...updated.map((l) => l.link.reason),
      ...changed.map((c) => c.reason),
    ];
    const updates = [...new Set([...updated.map((l) => l.old.id), ...changed.filter((c) => !c.weak).map((c) => c.id)])];
    const weakUpdates = changed.filter((c) => c.weak).map((c) => c.id);
    const keptBy = observedLater(replaced, recordedAt.getTime());
    rows.push({
      id,
      text: item.text,
      normalized: analysis.normalized,
      kind: analysis.kind,
      origin: item.origin,
      subject: analysis.subject,
      subjectType: analysis.subjectType,
      endUserId: storedEndUser,
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
      updates: keptBy === null ? updates : [],
      weakUpdates: keptBy === null ? weakUpdates : [],
      linkReason: keptBy === null && links.length > 0 ? links.join("; ") : null,
      source: item.source ?? null,
    });
    factIds.push(id);
    if (keptBy !== null) {
      history.push({ id, keptBy: keptBy.id });
      continue;
    }
    if (replaced.length > 0) replaces.push({ newId: id, oldIds: replaced.map((old) => old.id) });
    const kept: LiveFactClaim = {
      id,
      endUserId: storedEndUser,
      agent,
      normalized: analysis.normalized,
      text: item.text,
      recordedAt: recordedAt.getTime(),
      first: claim === null ? null : prepareClaim(claim),
    };
    live = [...live.filter((old) => !replacedIds.has(old.id)), ...(claim !== null ? [kept] : [])];
    for (const old of replaced) replacedInBatch.add(old.id);
    if (side !== null) batch.push({ side, id, endUserId: storedEndUser, agent, recordedAt: recordedAt.getTime() });
  }

  if (rows.length === 0) return { accepted_fact_count: analysed.length, created: 0, superseded: 0, skipped, factIds: [], queued: false };
  const seq = await nextFactSeq(tx, workspaceId);
  const job = jobFor(rows.map((r) => r.id));
  const inserted = await insertFacts(tx, workspaceId, seq, rows, job);
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
    ...supersededFacts.map((f) => factSuperseded(f)),
  ]);

  const superseded = replacing.length;
  const created = inserted.size - superseded + revived.length;
  return {
    accepted_fact_count: analysed.length,
    created,
    superseded,
    skipped: skipped + (rows.length - inserted.size - revived.length),
    factIds: [...factIds.filter((id) => inserted.has(id)), ...revived.map((r) => r.id)],
    queued: job !== null,
  };
}

/** How many recent facts each statement is compared with, and how many it may update. */
const CHANGE_CANDIDATES = 50;
const MAX_UPDATED = 3;

/** A live fact an update may link to, with its words read once. */
interface UpdateCandidate {
  id: string;
  recordedAt: number;
  side: UpdateSide;
}

/**
 * The recent short live facts of each scope the call writes to that share a word with one of its
 * statements: one query per scope for the whole call (most recent first), read before any of the
 * call's facts is stored.
 */
async function recentStatements(
  db: Queryable,
  workspaceId: string,
  analysed: readonly Analysed[],
  sides: readonly (UpdateSide | null)[],
  now: Date,
): Promise<Map<string, UpdateCandidate[]>> {
  const words = new Map<string, { endUserId: string | null; agent: string | null; words: Set<string>; statements: number }>();
  analysed.forEach((a, i) => {
    const side = sides[i];
    // Only a statement that says something changed can update: the others need no candidates.
    if (side === null || side === undefined || side.cue === undefined || side.words.length === 0) return;
    const scope = scopeOf(a);
    const entry = words.get(scope) ?? {
      endUserId: a.analysis.subjectType === "end_user" ? a.endUserId : null,
      agent: a.agent,
      words: new Set(),
      statements: 0,
    };
    for (const w of side.words) entry.words.add(w);
    entry.statements += 1;
    words.set(scope, entry);
  });
  const byScope = new Map<string, UpdateCandidate[]>();
  for (const [scope, entry] of words) {
    const rows = await liveStatementsMentioning(db, workspaceId, entry.endUserId, entry.agent, [...entry.words], CHANGE_CANDIDATES * entry.statements, now);
    byScope.set(
      scope,
      rows.filter((row) => isPlainStatement(row.text)).map((row) => ({ id: row.id, recordedAt: row.recorded_ms, side: updateSideOf(row.text) })),
    );
  }
  return byScope;
}

/** The candidates a statement updates (capture/updates.ts), the most recent first, at most MAX_UPDATED. */
function updatedStatements(newer: UpdateSide, candidates: readonly UpdateCandidate[]): { id: string; recordedAt: number; reason: string; weak: boolean }[] {
  const found: { id: string; recordedAt: number; reason: string; weak: boolean }[] = [];
  for (const c of candidates) {
    const link = updateOf(newer, c.side);
    if (link !== null) found.push({ id: c.id, recordedAt: c.recordedAt, ...link });
    if (found.length === MAX_UPDATED) break;
  }
  return found;
}
