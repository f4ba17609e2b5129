import { fragment, type Fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { Fact, FactKind, Origin } from "../schema/memory";
import { visibleFacts, type Visibility } from "./visibility";

/** A fact row as reads select it (FACT_COLUMNS). */
export interface FactRow {
  id: string;
  text: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  confidence: number;
  recorded_at: Date;
  end_user_id: string | null;
  pinned: boolean;
}

/** A lexeme as a quoted tsquery operand (quotes and backslashes doubled, as tsquery input wants). */
const quoteLexeme: Fragment = fragment`'''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''`;

const FACT_COLUMNS: Fragment = fragment`f.id, f.text, f.kind, f.origin, f.subject, f.confidence, f.recorded_at, f.end_user_id, f.pinned`;

export function toFact(row: FactRow): Fact {
  return {
    fact_id: row.id,
    fact_text: row.text,
    kind: row.kind,
    origin: row.origin,
    subject: row.subject,
    confidence_level: Math.round(Number(row.confidence) * 1000) / 1000,
    recorded_time: new Date(row.recorded_at).toISOString(),
  };
}

/** Queries with more characters than this find no candidates by trigram: long text has no useful typo signal. */
const TRIGRAM_MAX_QUERY = 64;
/**
 * Queries up to this length still score candidates by trigram word similarity: it rewards facts
 * that share the query's phrasing (and near-spellings of its words) beyond exact stems.
 */
const TRIGRAM_SCORE_MAX_QUERY = 200;
/** Ranking reads at most this many candidates (the most recent matches) to keep latency bounded. */
const CANDIDATE_CAP = 1000;
/** Terms in more than this share of facts only weigh in scoring, not in candidate selection. */
const COMMON_TERM_SHARE = 0.25;
/** BM25 term-frequency saturation. */
const BM25_K1 = 1.2;
/**
 * BM25 length normalisation, 0 = none. Facts are short statements of similar size, not documents
 * of any length: normalising by length mostly lifts near-empty facts ("Thanks, Priya!") over the
 * ones that say something, so it is off.
 */
const BM25_B = 0;
/** Weight of the query's trigram word similarity to the fact text (a 0-1 measure). */
const TRIGRAM_WEIGHT = 2.0;
/**
 * Bonus when the query names the fact's subject as a phrase ("what did Priya decide" and a fact
 * about Priya): about one rare matching term, so facts about the person asked about come first
 * among comparable matches without burying a strong match about someone else.
 */
const SUBJECT_WEIGHT = 4.0;

export interface RankOptions {
  query: string;
  limit: number;
  /** Restrict to facts about this end user (the context packet's about_actor layer). */
  onlyEndUser?: boolean;
  excludeIds?: readonly string[];
}

/**
 * Ranks visible facts for a query. Candidates: full-text OR-match over the query's stemmed terms
 * (stop words dropped; very common terms left to scoring) plus trigram word-similarity for short
 * queries (typos, partial words). Score: BM25 over the stored tsvector with IDF from term_stats
 * (ts_rank has no IDF; no length normalisation, see BM25_B), plus trigram similarity, the query
 * naming the fact's subject, end-user match, confidence and recency. Ties break by recency, then
 * id, so the order is deterministic.
 */
export async function rankFacts(db: Queryable, v: Visibility, options: RankOptions): Promise<FactRow[]> {
  const useTrigram = options.query.length <= TRIGRAM_MAX_QUERY;
  const scoreTrigram = options.query.length <= TRIGRAM_SCORE_MAX_QUERY;
  const onlyEndUser = options.onlyEndUser === true;
  const exclude = [...(options.excludeIds ?? [])];
  const scopeFilter = fragment`(NOT ${onlyEndUser}::boolean OR f.end_user_id IS NOT NULL) AND f.id <> ALL(${exclude}::text[])`;
  return db.sql<FactRow>`
    WITH stats AS (
      SELECT greatest(coalesce(max(fact_count), 0), 1)::float8 AS n,
             greatest(coalesce(max(total_length)::float8 / greatest(max(fact_count), 1), 1), 1) AS avgdl
        FROM memory_stats WHERE workspace_id = ${v.workspaceId}
    ),
    asked AS (
      SELECT to_tsvector('english', ${options.query}) AS vector
    ),
    terms AS (
      SELECT DISTINCT lexeme FROM asked, unnest(tsvector_to_array(asked.vector)) AS lexeme
    ),
    weights AS (
      SELECT t.lexeme, ts.df,
             ln(1 + (s.n - ts.df + 0.5) / (ts.df + 0.5)) AS idf
        FROM terms t
        JOIN term_stats ts ON ts.workspace_id = ${v.workspaceId} AND ts.lexeme = t.lexeme
        CROSS JOIN stats s
       ORDER BY ts.df
       LIMIT 32
    ),
    selective AS (
      SELECT w.lexeme FROM weights w, stats s
       WHERE w.df <= s.n * ${COMMON_TERM_SHARE}
          OR NOT EXISTS (SELECT 1 FROM weights w2 WHERE w2.df <= s.n * ${COMMON_TERM_SHARE})
    ),
    tsq AS (
      SELECT (SELECT string_agg(${quoteLexeme}, ' | ')::tsquery FROM selective) AS rare,
             (SELECT string_agg(${quoteLexeme}, ' | ')::tsquery FROM weights) AS every
    ),
    candidates AS (
      -- every match of the selective terms (bounded) ...
      (SELECT f.id FROM facts f
        WHERE ${visibleFacts(v)} AND ${scopeFilter}
          AND f.search @@ (SELECT rare FROM tsq)
        ORDER BY f.recorded_at DESC, f.id DESC
        LIMIT ${CANDIDATE_CAP})
      UNION
      -- ... plus the latest matches of any term, which a recency index scan finds quickly
      (SELECT f.id FROM facts f
        WHERE ${visibleFacts(v)} AND ${scopeFilter}
          AND f.search @@ (SELECT every FROM tsq)
        ORDER BY f.recorded_at DESC, f.id DESC
        LIMIT ${options.limit})
      UNION
      -- ... plus close spellings, for typos and partial words in short queries
      (SELECT f.id FROM facts f
        WHERE ${useTrigram}::boolean AND ${visibleFacts(v)} AND ${scopeFilter}
          AND ${options.query} <% f.text
        LIMIT ${CANDIDATE_CAP})
    ),
    scored AS (
      SELECT ${FACT_COLUMNS},
             coalesce((
               SELECT sum(w.idf * (tf * (${BM25_K1}::float8 + 1)) / (tf + ${BM25_K1}::float8 * (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * length(f.search) / s.avgdl)))
                 FROM (SELECT u.lexeme, coalesce(cardinality(u.positions), 1)::float8 AS tf FROM unnest(f.search) u) d
                 JOIN weights w ON w.lexeme = d.lexeme
             ), 0)
             + CASE WHEN ${scoreTrigram}::boolean THEN ${TRIGRAM_WEIGHT}::float8 * word_similarity(${options.query}, f.text) ELSE 0 END
             -- the subject named in the query as whole words (stemmed, so "Priya's" names Priya; "Al" is not in "also")
             + CASE WHEN q.vector @@ phraseto_tsquery('english', f.subject) THEN ${SUBJECT_WEIGHT}::float8 ELSE 0 END
             + CASE WHEN f.end_user_id IS NOT NULL THEN 0.5 ELSE 0 END
             + 0.2 * f.confidence
             + 0.2 * exp(-extract(epoch FROM now() - f.recorded_at) / (180 * 86400.0)) AS score
        FROM candidates c JOIN facts f ON f.id = c.id CROSS JOIN stats s CROSS JOIN asked q
    )
    SELECT id, text, kind, origin, subject, confidence, recorded_at, end_user_id, pinned
      FROM scored
     ORDER BY score DESC, recorded_at DESC, id DESC
     LIMIT ${options.limit}`;
}

/** Latest visible facts: what a query with no searchable words gets, and the about_actor fill. */
export async function recentFacts(
  db: Queryable,
  v: Visibility,
  options: { limit: number; onlyEndUser?: boolean; excludeIds?: readonly string[] },
): Promise<FactRow[]> {
  const onlyEndUser = options.onlyEndUser === true;
  const exclude = [...(options.excludeIds ?? [])];
  return db.sql<FactRow>`
    SELECT ${FACT_COLUMNS} FROM facts f
     WHERE ${visibleFacts(v)}
       AND (NOT ${onlyEndUser}::boolean OR f.end_user_id IS NOT NULL)
       AND f.id <> ALL(${exclude}::text[])
     ORDER BY f.recorded_at DESC, f.id DESC
     LIMIT ${options.limit}`;
}

/** Pinned facts: the packet's always-present core. */
export async function pinnedFacts(db: Queryable, v: Visibility, limit: number): Promise<FactRow[]> {
  return db.sql<FactRow>`
    SELECT ${FACT_COLUMNS} FROM facts f
     WHERE ${visibleFacts(v)} AND f.pinned
     ORDER BY f.recorded_at DESC, f.id DESC
     LIMIT ${limit}`;
}

/** Whether the query has any term the full-text index can use. */
export async function hasSearchTerms(db: Queryable, query: string): Promise<boolean> {
  const rows = await db.sql<{ n: number }>`SELECT length(to_tsvector('english', ${query}))::int AS n`;
  return (rows[0]?.n ?? 0) > 0;
}
