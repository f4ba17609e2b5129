/**
 * What the judging model is shown for a new fact: live facts of exactly its scope (workspace, end
 * user, agent) found by search (words, and meaning when an embeddings endpoint is configured) and by
 * the same claim subject. Never a fact of another end user or agent: the model never sees them, so
 * it can neither hide nor read them. Sensitive facts stay with the model-free path.
 */
import type { Db, Queryable } from "../../db/types";
import { fragment } from "../../db/fragment";
import type { FactIndexes } from "../../memory/index/registry";
import { searchFacts } from "../../memory/search";
import { OPERATOR_KEY_ID } from "../../service";

/** Candidates shown per new fact. */
export const MAX_CANDIDATES = 6;
/** Longest query sent to search (a fact may be longer). */
const MAX_QUERY_CHARS = 500;

/** A live fact as the judge reads it. */
export interface LiveFact {
  id: string;
  workspace_id: string;
  text: string;
  end_user_id: string | null;
  agent_slug: string | null;
  recorded_at: Date;
  pinned: boolean;
  sensitive: boolean;
  claim_subject: string | null;
  updates: string[] | null;
  link_reason: string | null;
  subject_type: string;
  origin: string;
}

/** Live facts by id (superseded and deleted ones are not returned), in the order asked. */
export async function liveFactsByIds(db: Queryable, workspaceId: string, ids: readonly string[], lock = false): Promise<LiveFact[]> {
  if (ids.length === 0) return [];
  const rows = await db.sql<LiveFact>`
    SELECT id, workspace_id, text, end_user_id, agent_slug, recorded_at, pinned, sensitive, claim_subject, updates, link_reason, subject_type, origin
      FROM facts
     WHERE workspace_id = ${workspaceId} AND id = ANY(${[...ids]}::text[]) AND superseded_by IS NULL
       AND (expires_at IS NULL OR expires_at > now())
     ${lock ? fragment`FOR UPDATE` : fragment``}`;
  const byId = new Map(rows.map((r) => [r.id, { ...r, recorded_at: new Date(r.recorded_at) }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Live facts of one scope with the same claim subject, most recently observed first. */
async function sameSubject(db: Queryable, fact: LiveFact, limit: number): Promise<string[]> {
  if (fact.claim_subject === null) return [];
  const rows = await db.sql<{ id: string }>`
    SELECT id FROM facts
     WHERE workspace_id = ${fact.workspace_id} AND claim_subject = ${fact.claim_subject} AND superseded_by IS NULL AND id <> ${fact.id}
       AND ${fact.end_user_id === null ? fragment`end_user_id IS NULL` : fragment`end_user_id = ${fact.end_user_id}`}
       AND ${fact.agent_slug === null ? fragment`agent_slug IS NULL` : fragment`agent_slug = ${fact.agent_slug}`}
     ORDER BY recorded_at DESC, id DESC
     LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/**
 * An end user's most recent live facts (of the fact's agent scope): what they say of themselves is
 * mostly about them, in words search does not connect ("I live in Austin" and "I'm in Denver now").
 */
async function endUserRecent(db: Queryable, fact: LiveFact, limit: number): Promise<string[]> {
  if (fact.end_user_id === null) return [];
  const rows = await db.sql<{ id: string }>`
    SELECT id FROM facts
     WHERE workspace_id = ${fact.workspace_id} AND end_user_id = ${fact.end_user_id} AND superseded_by IS NULL AND id <> ${fact.id}
       AND ${fact.agent_slug === null ? fragment`agent_slug IS NULL` : fragment`agent_slug = ${fact.agent_slug}`}
       AND recorded_at <= ${fact.recorded_at.toISOString()}::timestamptz
     ORDER BY recorded_at DESC, id DESC
     LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

const sameScope = (a: LiveFact, b: LiveFact): boolean => a.workspace_id === b.workspace_id && a.end_user_id === b.end_user_id && a.agent_slug === b.agent_slug;

/**
 * The candidates of a new fact: what a search for its text finds in its scope, then facts of its
 * claim's subject, then (for an end user's fact) that end user's latest facts, at most MAX_CANDIDATES: never itself, a fact of its batch taught after it
 * (`exclude`), a sensitive fact or a fact of another scope.
 */
export async function candidatesOf(db: Db, index: FactIndexes, fact: LiveFact, exclude: ReadonlySet<string>): Promise<LiveFact[]> {
  const ctx = {
    db,
    index,
    caller: {
      workspaceId: fact.workspace_id,
      keyId: OPERATOR_KEY_ID,
      audience: "internal" as const,
      channel: "worker" as const,
      agent: fact.agent_slug,
      boundAgent: null,
      factSeq: null,
    },
  };
  const found = await searchFacts(ctx, {
    query: fact.text.slice(0, MAX_QUERY_CHARS),
    limit: MAX_CANDIDATES * 2,
    ...(fact.end_user_id === null ? {} : { end_user: { id: fact.end_user_id } }),
  });
  const ids = [...new Set([...found.facts.map((f) => f.fact_id), ...(await sameSubject(db, fact, MAX_CANDIDATES))])].filter(
    (id) => id !== fact.id && !exclude.has(id),
  );
  const shown = (await liveFactsByIds(db, fact.workspace_id, ids)).filter((row) => sameScope(row, fact) && !row.sensitive).slice(0, MAX_CANDIDATES);
  if (shown.length >= MAX_CANDIDATES || fact.end_user_id === null) return shown;
  const seen = new Set([fact.id, ...exclude, ...shown.map((f) => f.id)]);
  const recent = (await endUserRecent(db, fact, MAX_CANDIDATES * 2)).filter((id) => !seen.has(id));
  const more = (await liveFactsByIds(db, fact.workspace_id, recent)).filter((row) => !row.sensitive);
  return [...shown, ...more].slice(0, MAX_CANDIDATES);
}
