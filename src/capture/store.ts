import { captureJobClause, type NewJob } from "./model/queue";
import { fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { FactKind, Origin, SubjectType } from "../schema/memory";
import type { FactFlags } from "../webhooks/outbox";

export interface NewFactRow {
  id: string;
  text: string;
  normalized: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  subjectType: SubjectType;
  endUserId: string | null;
  /** The agent whose own fact it is (teach's scope "agent"); null: a workspace fact. */
  agent: string | null;
  confidence: number;
  recordedAt: Date;
  expiresAt: Date | null;
  sensitive: boolean;
  pinned: boolean;
  claimKey: string | null;
  claimSubject: string | null;
  claimValue: string | null;
  claimNegated: boolean;
  /** Where the fact came from (migration 022); null: not recorded. */
  source?: Provenance | null;
  /** The live facts this one updates (migration 023): readers put it first, nothing is hidden. */
  updates?: readonly string[];
  /** The live facts it updates on weaker evidence: readers reorder, never bring it in. */
  weakUpdates?: readonly string[];
  /** Why it replaces or updates what it does, for review; null: it does neither. */
  linkReason?: string | null;
}

/** Where a fact came from: the key that taught it (null: the operator or the CLI), the agent the call acted as, the route or tool. */
export interface Provenance {
  keyId: string | null;
  agent: string | null;
  via: string;
}

/** A claim as its columns hold it. */
export interface StoredClaim {
  key: string;
  subject: string;
  value: string;
  negated: boolean;
}

export interface LiveClaim {
  id: string;
  text: string;
  end_user_id: string | null;
  agent_slug: string | null;
  normalized: string;
  claim_key: string | null;
  claim_value: string | null;
  claim_negated: boolean;
  /** When the fact was observed, epoch milliseconds. */
  recorded_ms: number;
}

/**
 * Serialises writers of one workspace's facts (on every instance): without it two concurrent
 * calls could each supersede the same claim and leave two contradicting facts live.
 */
export async function lockWorkspaceFacts(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.sql`SELECT pg_advisory_xact_lock(hashtext(${`capture:${workspaceId}`}))`;
}

/**
 * The capture lock, and in the same round trip whether the workspace has a capture model: a call
 * queues work for it only then, so a workspace without one pays no statement for the feature.
 */
export async function lockForCapture(tx: Queryable, workspaceId: string): Promise<{ captureModel: boolean }> {
  const [row] = await tx.sql<{ model: boolean | null }>`
    SELECT (SELECT capture_provider IS NOT NULL FROM workspaces WHERE id = ${workspaceId}) AS model
      FROM (SELECT pg_advisory_xact_lock(hashtext(${`capture:${workspaceId}`}))) AS locked`;
  return { captureModel: row?.model === true };
}

export async function teamMemberNames(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db.sql<{ name: string }>`SELECT name FROM team_members WHERE workspace_id = ${workspaceId}`;
  return rows.map((r) => r.name);
}

/** Records the end user; a name given later fills in (or updates) the display name. */
export async function upsertEndUser(db: Queryable, workspaceId: string, id: string, name: string | undefined): Promise<void> {
  await db.sql`
    INSERT INTO end_users (workspace_id, id, name) VALUES (${workspaceId}, ${id}, ${name ?? null})
    ON CONFLICT (workspace_id, id) DO UPDATE SET name = coalesce(EXCLUDED.name, end_users.name)`;
}

/**
 * The live claims with one of these keys, and every live claim of these subjects (one-valued
 * attributes named more or less fully), and by a subject's first word. Every arm uses a partial index on live
 * claims, so a workspace's history does not slow them. Expired facts are not claims any more: a
 * new value neither supersedes nor repeats them. Only the workspace's facts (agent "") and these
 * agents' own: a claim relates to claims of its own scope.
 */
export async function liveClaims(
  db: Queryable,
  workspaceId: string,
  claimKeys: readonly string[],
  subjects: readonly string[],
  agents: readonly string[],
  now: Date,
): Promise<LiveClaim[]> {
  if (claimKeys.length === 0 && subjects.length === 0) return [];
  // A person named by first name alone or in full is found either way (relation.ts, samePersonClaim).
  // Trade-off: the first-word arm also fetches other subjects sharing a first word ("acme labs" for
  // "acme"); relating them rejects those, at the cost of a few more rows read under the lock.
  const firstWords = [...new Set(subjects.map((s) => s.split(" ")[0] ?? s))];
  return db.sql<LiveClaim>`
    SELECT id, text, end_user_id, agent_slug, normalized, claim_key, claim_value, claim_negated,
           (extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms FROM facts
     WHERE workspace_id = ${workspaceId} AND superseded_by IS NULL
       AND (claim_key = ANY(${[...claimKeys]}::text[]) OR claim_subject = ANY(${[...subjects]}::text[])
            OR (claim_subject IS NOT NULL AND split_part(claim_subject, ' ', 1) = ANY(${firstWords}::text[])))
       AND coalesce(agent_slug, '') = ANY(${[...agents]}::text[])
       AND (expires_at IS NULL OR expires_at > ${now})
     ORDER BY recorded_at, id`;
}

/**
 * Inserts facts in one statement, stamped with the transaction's change sequence. The live-duplicate
 * unique index is the duplicate check: a row that repeats a live fact (earlier, or a racing replay
 * on another connection) is dropped by ON CONFLICT and simply absent from the result. Non-text
 * columns travel as text arrays and are cast in SQL: postgres.js cannot infer array types for
 * booleans and numbers. Returns the ids stored. `job`: the capture model's job for these facts,
 * queued in the same statement (capture/model/queue.ts).
 */
export async function insertFacts(
  db: Queryable,
  workspaceId: string,
  seq: number,
  rows: readonly NewFactRow[],
  job: NewJob | null = null,
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const col = <K extends keyof NewFactRow>(key: K): NewFactRow[K][] => rows.map((r) => r[key]);
  const inserted = await db.sql<{ id: string }>`
    ${captureJobClause(workspaceId, job)}
    INSERT INTO facts (id, workspace_id, text, normalized, kind, origin, subject, subject_type, end_user_id, agent_slug,
                       confidence, recorded_at, expires_at, sensitive, pinned, claim_key, claim_subject, claim_value, claim_negated,
                       taught_by_key, taught_by_agent, taught_via, updates, weak_updates,
                       link_reason, changed_seq)
    SELECT r.id, ${workspaceId}, r.text, r.normalized, r.kind, r.origin, r.subject, r.subject_type, r.end_user_id, r.agent_slug,
           r.confidence, r.recorded_at, r.expires_at, r.sensitive, r.pinned, r.claim_key, r.claim_subject, r.claim_value, r.claim_negated,
           r.taught_by_key, r.taught_by_agent, r.taught_via,
           string_to_array(r.updates, ' '), string_to_array(r.weak_updates, ' '), r.link_reason, ${seq}
      FROM unnest(${col("id")}::text[], ${col("text")}::text[], ${col("normalized")}::text[], ${col("kind")}::text[],
                  ${col("origin")}::text[], ${col("subject")}::text[], ${col("subjectType")}::text[],
                  ${col("endUserId")}::text[], ${col("agent")}::text[], ${col("confidence").map(String)}::text[]::real[],
                  ${col("recordedAt").map((d) => d.toISOString())}::timestamptz[], ${col("expiresAt").map((d) => d?.toISOString() ?? null)}::timestamptz[],
                  ${col("sensitive").map(String)}::text[]::boolean[],
                  ${col("pinned").map(String)}::text[]::boolean[], ${col("claimKey")}::text[], ${col("claimSubject")}::text[], ${col("claimValue")}::text[],
                  ${col("claimNegated").map(String)}::text[]::boolean[],
                  ${rows.map((r) => r.source?.keyId ?? null)}::text[], ${rows.map((r) => r.source?.agent ?? null)}::text[],
                  ${rows.map((r) => r.source?.via ?? null)}::text[],
                  -- A fact's updates travel as one space-separated string: unnest cannot carry an array per row.
                  ${rows.map((r) => (r.updates && r.updates.length > 0 ? r.updates.join(" ") : null))}::text[],
                  ${rows.map((r) => (r.weakUpdates && r.weakUpdates.length > 0 ? r.weakUpdates.join(" ") : null))}::text[],
                  ${rows.map((r) => r.linkReason ?? null)}::text[])
           AS r(id, text, normalized, kind, origin, subject, subject_type, end_user_id, agent_slug, confidence, recorded_at, expires_at,
                sensitive, pinned, claim_key, claim_subject, claim_value, claim_negated,
                taught_by_key, taught_by_agent, taught_via, updates, weak_updates, link_reason)
    ON CONFLICT DO NOTHING
    RETURNING id`;
  return new Set(inserted.map((r) => r.id));
}

/** A fact as a webhook event carries it (`fact.created`). */
export interface StoredFact {
  id: string;
  text: string;
  normalized: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  subject_type: SubjectType;
  end_user_id: string | null;
  agent_slug: string | null;
  confidence: number;
  recorded_at: Date;
  expires_at: Date | null;
  sensitive: boolean;
}

/**
 * Brings back expired facts that these rows repeat word for word (same scope): the row was not
 * inserted (the live-duplicate index refused it), and the old fact takes the new row's expiry
 * (and will be announced again when that passes). Returns the facts revived.
 */
export async function reviveExpired(db: Queryable, workspaceId: string, seq: number, now: Date, rows: readonly NewFactRow[]): Promise<StoredFact[]> {
  if (rows.length === 0) return [];
  return db.sql<StoredFact>`
    UPDATE facts f SET expires_at = r.expires_at, expiry_announced = false, changed_seq = ${seq}
      FROM unnest(${rows.map((r) => r.endUserId ?? "")}::text[], ${rows.map((r) => r.agent ?? "")}::text[], ${rows.map((r) => r.normalized)}::text[],
                  ${rows.map((r) => r.expiresAt?.toISOString() ?? null)}::timestamptz[]) AS r(end_user_id, agent_slug, normalized, expires_at)
     WHERE f.workspace_id = ${workspaceId} AND f.superseded_by IS NULL
       AND coalesce(f.end_user_id, '') = r.end_user_id AND coalesce(f.agent_slug, '') = r.agent_slug AND md5(f.normalized) = md5(r.normalized)
       AND f.expires_at <= ${now} AND (r.expires_at IS NULL OR r.expires_at > f.recorded_at)
    RETURNING f.id, f.text, f.normalized, f.kind, f.origin, f.subject, f.subject_type, f.end_user_id, f.agent_slug, f.confidence, f.recorded_at,
              f.expires_at, f.sensitive`;
}

/** A fact just superseded, with what external visibility needs to know of it. */
export interface SupersededFact extends FactFlags {
  id: string;
  superseded_by: string;
  end_user_id: string | null;
}

/** Marks older claim values superseded, stamped with the change sequence so indexes drop them. */
export async function markSuperseded(db: Queryable, seq: number, pairs: readonly { oldId: string; newId: string }[]): Promise<SupersededFact[]> {
  if (pairs.length === 0) return [];
  return db.sql<SupersededFact>`
    UPDATE facts f SET superseded_by = p.new_id, changed_seq = ${seq}
      FROM unnest(${pairs.map((p) => p.oldId)}::text[], ${pairs.map((p) => p.newId)}::text[]) AS p(old_id, new_id)
     WHERE f.id = p.old_id AND f.superseded_by IS NULL
    RETURNING f.id, f.superseded_by, f.end_user_id, f.agent_slug, f.sensitive, f.subject_type, f.origin`;
}

/** A live fact a statement that something changed may update (capture/updates.ts). */
export interface LiveStatement {
  id: string;
  /** When the fact was observed, epoch milliseconds. */
  recorded_ms: number;
  text: string;
}

/**
 * One end user's facts, or the workspace's own. Two shapes rather than `IS NOT DISTINCT FROM`,
 * which no index serves: an end user's facts come from their own index (facts_live_end_user)
 * instead of a walk through every live fact of the workspace.
 */
const endUserScope = (endUserId: string | null) => (endUserId === null ? fragment`end_user_id IS NULL` : fragment`end_user_id = ${endUserId}`);
/** A scope's agent: the workspace's facts (null) or one agent's own. */
const agentScope = (agent: string | null) => (agent === null ? fragment`agent_slug IS NULL` : fragment`agent_slug = ${agent}`);

/**
 * How many of a scope's latest short facts an update's candidates are looked for in. A word no
 * recent fact holds would otherwise read every live fact of the scope (35 ms at 25k facts, seconds
 * at a million) under the workspace's write lock, while every other writer of the workspace waits.
 * A change to a state nobody mentioned in that long is left to the lexicon's claims, which are
 * looked up by key at any age.
 */
const CHANGE_WINDOW = 5_000;

/**
 * The most recent live, short facts of one end user's scope (or the workspace's own, for null),
 * in one agent's own facts (or the workspace's, for null), that contain one of these words: the
 * candidates a new fact may update.
 *
 * Trade-off: the words are matched as substrings, which no index serves, so this walks the
 * scope's live facts newest first (the live-recent index) until it has enough, reading at most
 * CHANGE_WINDOW of them.
 */
export async function liveStatementsMentioning(
  db: Queryable,
  workspaceId: string,
  endUserId: string | null,
  agent: string | null,
  words: readonly string[],
  limit: number,
  now: Date,
): Promise<LiveStatement[]> {
  if (words.length === 0) return [];
  return db.sql<LiveStatement>`
    SELECT id, (extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms, text FROM (
      SELECT id, text, normalized, recorded_at FROM facts
       WHERE workspace_id = ${workspaceId} AND superseded_by IS NULL
         AND ${endUserScope(endUserId)}
         AND ${agentScope(agent)}
         AND length(text) <= 240
         AND (expires_at IS NULL OR expires_at > ${now})
       ORDER BY recorded_at DESC, id DESC
       LIMIT ${CHANGE_WINDOW}
    ) recent
     WHERE EXISTS (SELECT 1 FROM unnest(${[...words]}::text[]) AS w(word) WHERE strpos(normalized, w.word) > 0)
     ORDER BY recorded_at DESC, id DESC
     LIMIT ${limit}`;
}
