import { fragment, type Fragment } from "../db/fragment";
import type { Db, Queryable } from "../db/types";
import type { VectorSet } from "../embeddings/vectors";
import { ApiError, notFound } from "../errors";
import type { DuplicateList, DuplicateQuery, MergeRequest, MergeResult } from "../schema/browse";
import { factSuperseded, recordEvents, type FactFlags } from "../webhooks/outbox";
import { factsWhere } from "./browse";
import { nextFactSeq } from "./changes";

/**
 * Subjects with more live facts than this are not compared: a comparison is every pair of the
 * subject's facts, and a catch-all subject ("workspace") can hold most of a workspace.
 */
const MAX_SUBJECT_FACTS = 300;
/** Facts longer than this are not compared (a pasted document is no near-duplicate of a note). */
const MAX_TEXT = 500;
const MAX_GROUPS = 100;

interface AlikePair {
  a: string;
  b: string;
  sim: number;
  subject: string;
  by: "words" | "vectors";
}

/**
 * Possible duplicates: live facts of one subject, end user and agent that say nearly the same
 * thing, grouped (a fact alike to two others joins them into one group), the most alike groups
 * first. By words: their normalised texts share at least `min_similarity` of their trigrams
 * (pg_trgm's `similarity`). By vectors, when the operator configured an embeddings endpoint
 * (`vectors`): their vectors' cosine is at least `min_vector_similarity`, which finds the same
 * thing said in other words. Trade-off: only subjects of at most MAX_SUBJECT_FACTS live facts are
 * compared, pair by pair.
 */
export async function findDuplicates(db: Queryable, workspaceId: string, q: DuplicateQuery, vectors: VectorSet | null = null): Promise<DuplicateList> {
  const pairs: AlikePair[] = (
    await db.sql<{ a: string; b: string; sim: number; subject: string }>`
      WITH ${comparable(workspaceId)}
      SELECT a.id AS a, b.id AS b, similarity(a.normalized, b.normalized)::float8 AS sim, a.subject
        FROM small s
        JOIN live a ON a.subject = s.subject AND a.end_user = s.end_user AND a.agent = s.agent
        JOIN live b ON b.subject = s.subject AND b.end_user = s.end_user AND b.agent = s.agent AND a.id < b.id
       WHERE similarity(a.normalized, b.normalized) >= ${q.min_similarity}`
  ).map((p) => ({ ...p, by: "words" as const }));
  if (vectors !== null && vectors.size > 1) pairs.push(...(await alikeByVectors(db, workspaceId, vectors, q.min_vector_similarity)));
  const groups = groupPairs(pairs).slice(0, MAX_GROUPS);
  const facts = new Map(
    (
      await factsWhere(
        db,
        groups.flatMap((g) => g.ids),
      )
    ).map((f) => [f.fact_id, f]),
  );
  return {
    groups: groups.map((g) => ({
      subject: g.subject,
      similarity: Math.round(g.similarity * 1000) / 1000,
      by: [...g.by].sort(),
      facts: g.ids.flatMap((id) => facts.get(id) ?? []),
    })),
  };
}

/** The live facts compared (`live`) and the subjects and scopes small enough to compare (`small`), as CTEs. */
function comparable(workspaceId: string): Fragment {
  return fragment`live AS (
      SELECT f.id, f.subject, coalesce(f.end_user_id, '') AS end_user, coalesce(f.agent_slug, '') AS agent, f.normalized
        FROM facts f
       WHERE f.workspace_id = ${workspaceId} AND f.superseded_by IS NULL AND length(f.text) <= ${MAX_TEXT}
    ),
    small AS (
      SELECT subject, end_user, agent FROM live GROUP BY subject, end_user, agent HAVING count(*) BETWEEN 2 AND ${MAX_SUBJECT_FACTS}
    )`;
}

/** Pairs of the same subject and scope whose vectors are at least `min` alike. */
async function alikeByVectors(db: Queryable, workspaceId: string, vectors: VectorSet, min: number): Promise<AlikePair[]> {
  const rows = await db.sql<{ id: string; subject: string; end_user: string; agent: string }>`
    WITH ${comparable(workspaceId)}
    SELECT l.id, l.subject, l.end_user, l.agent FROM live l JOIN small s USING (subject, end_user, agent) ORDER BY l.id`;
  const bySubject = new Map<string, typeof rows>();
  for (const r of rows) {
    const key = JSON.stringify([r.subject, r.end_user, r.agent]);
    bySubject.set(key, [...(bySubject.get(key) ?? []), r]);
  }
  const pairs: AlikePair[] = [];
  for (const facts of bySubject.values()) {
    for (let i = 0; i < facts.length; i++) {
      for (let j = i + 1; j < facts.length; j++) {
        const sim = vectors.similarityOf(facts[i]!.id, facts[j]!.id);
        if (sim !== null && sim >= min) pairs.push({ a: facts[i]!.id, b: facts[j]!.id, sim, subject: facts[i]!.subject, by: "vectors" });
      }
    }
  }
  return pairs;
}

/** Connected groups of alike facts (union-find over the pairs), the most alike first, each group's ids sorted. */
function groupPairs(pairs: readonly AlikePair[]): { subject: string; similarity: number; by: Set<AlikePair["by"]>; ids: string[] }[] {
  const parent = new Map<string, string>();
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(id, r);
    return r;
  };
  for (const { a, b } of pairs) {
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    parent.set(root(a), root(b));
  }
  const groups = new Map<string, { subject: string; similarity: number; by: Set<AlikePair["by"]>; ids: string[] }>();
  for (const { a, sim, subject, by } of pairs) {
    const r = root(a);
    const group = groups.get(r) ?? { subject, similarity: sim, by: new Set(), ids: [] };
    group.similarity = Math.max(group.similarity, sim);
    group.by.add(by);
    groups.set(r, group);
  }
  for (const id of [...parent.keys()].sort()) groups.get(root(id))?.ids.push(id);
  return [...groups.values()].sort((x, y) => y.similarity - x.similarity || (x.ids[0]! < y.ids[0]! ? -1 : 1));
}

/**
 * Merges possible duplicates: `keep` stays live and every fact of `merge` becomes its history
 * (superseded by it), in one transaction stamped with the change sequence, with `fact.superseded`
 * for each. All of them must be live facts of one workspace and scope (end user, agent): a merge
 * never moves a fact across the lines visibility draws (422 naming the field otherwise).
 */
export async function mergeFacts(db: Db, request: MergeRequest): Promise<MergeResult> {
  if (request.merge.includes(request.keep)) {
    throw new ApiError("validation_error", "keep is also in merge", { fields: [{ path: "merge", reason: "holds the fact to keep" }] });
  }
  return db.transaction(async (tx) => {
    const ids = [request.keep, ...request.merge];
    const rows = await tx.sql<{ id: string; workspace_id: string; end_user_id: string | null; agent_slug: string | null; superseded_by: string | null }>`
      SELECT id, workspace_id, end_user_id, agent_slug, superseded_by FROM facts WHERE id = ANY(${ids}::text[]) ORDER BY id FOR UPDATE`;
    const kept = rows.find((r) => r.id === request.keep);
    if (!kept) throw notFound(`fact "${request.keep}"`);
    const missing = request.merge.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length > 0) throw notFound(`fact "${missing[0]}"`);
    const apart = rows.filter(
      (r) => r.workspace_id !== kept.workspace_id || r.end_user_id !== kept.end_user_id || r.agent_slug !== kept.agent_slug || r.superseded_by !== null,
    );
    if (apart.length > 0) {
      throw new ApiError("validation_error", `fact "${apart[0]!.id}" is not a live fact of the kept fact's workspace, end user and agent`, {
        fields: [{ path: apart[0]!.id === kept.id ? "keep" : "merge", reason: "not live, or another workspace, end user or agent" }],
      });
    }
    const seq = await nextFactSeq(tx, kept.workspace_id);
    const superseded = await tx.sql<FactFlags & { id: string; superseded_by: string; end_user_id: string | null }>`
      UPDATE facts SET superseded_by = ${kept.id}, changed_seq = ${seq} WHERE id = ANY(${[...request.merge]}::text[])
      RETURNING id, superseded_by, end_user_id, agent_slug, sensitive, subject_type, origin`;
    await recordEvents(
      tx,
      kept.workspace_id,
      superseded.map((f) => factSuperseded(f)),
    );
    return { kept: kept.id, superseded: superseded.map((r) => r.id).sort() };
  });
}
