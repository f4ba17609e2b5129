import { fragment, type Fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { FactRow } from "./store";
import { visibleFacts, type Visibility } from "./visibility";

/**
 * Candidate budget: terms join candidate selection rarest first while the sum of their document
 * frequencies stays within it (the rarest always joins). Commoner terms still score. This bounds
 * the rows ranked per query whatever the workspace size.
 */
const CANDIDATE_BUDGET = 400;
/** Ranked candidates at most (the most recent, if the rarest term alone matches more). */
const CANDIDATE_CAP = 400;
/** Terms that score (the rarest); commoner ones add little IDF and cost a check per row. */
const SCORED_TERMS = 16;
/** What ranking reads of a candidate, in the one pass over the index matches. */
const CANDIDATE_COLUMNS: Fragment = fragment`f.id, f.text, f.kind, f.origin, f.subject, f.confidence, f.recorded_at, f.end_user_id,
  f.pinned, f.search, f.subject_query`;
/** Index matches read at most to choose those candidates from. */
const CANDIDATE_SCAN_LIMIT = 4 * CANDIDATE_CAP;
/** How many of the best candidates (at least) are re-scored with trigram similarity. */
const RERANK_DEPTH = 40;
/** Queries longer than this skip the trigram re-scoring: long text carries no phrasing signal. */
const TRIGRAM_SCORE_MAX_QUERY = 200;
/** Weight of the query's trigram word similarity to the fact text (a 0-1 measure). */
const TRIGRAM_WEIGHT = 2.0;
/**
 * Bonus when the query names the fact's subject as a phrase ("what did Priya decide" and a fact
 * about Priya): about one rare matching term, so facts about the person asked about come first
 * among comparable matches without burying a strong match about someone else.
 */
const SUBJECT_WEIGHT = 4.0;
/** What a "fact" phrased as a question loses: it asks rather than records. */
const QUESTION_PENALTY = 1.0;
/** Query words the workspace has never seen are expanded to at most this many known lexemes. */
const PREFIX_EXPANSIONS = 3;
const FUZZY_EXPANSIONS = 2;
/** Trigram similarity a known lexeme needs to stand in for an unknown query word (a typo). */
const FUZZY_MIN_SIMILARITY = 0.3;

export interface QueryTerm {
  lexeme: string;
  df: number;
  idf: number;
}

export interface AnalysedQuery {
  /** The query had words the full-text index can use (not only stop words or punctuation). */
  hasTerms: boolean;
  terms: QueryTerm[];
}

/**
 * The query's stemmed terms with their document frequency in the workspace. A word the workspace
 * has never seen (a typo, a partial word) is replaced by known lexemes that start with it or are
 * spelled closely, found through the byte-ordered term_stats key: a range scan, not a table scan.
 */
export async function analyseQuery(db: Queryable, workspaceId: string, query: string): Promise<AnalysedQuery> {
  const rows = await db.sql<{ lexeme: string | null; df: number | null; n: number; asked: number }>`
    WITH asked AS (
      SELECT DISTINCT lexeme FROM unnest(tsvector_to_array(to_tsvector('english', ${query}))) AS lexeme LIMIT 64
    ),
    known AS (
      SELECT ts.lexeme, ts.df FROM asked a
        JOIN term_stats ts ON ts.workspace_id = ${workspaceId} AND ts.lexeme = a.lexeme
    ),
    unknown AS (
      SELECT a.lexeme FROM asked a WHERE length(a.lexeme) >= 3 AND NOT EXISTS (SELECT 1 FROM known k WHERE k.lexeme = a.lexeme)
    ),
    expanded AS (
      SELECT x.lexeme, x.df FROM unknown u CROSS JOIN LATERAL (
        (SELECT ts.lexeme, ts.df FROM term_stats ts
          WHERE ts.workspace_id = ${workspaceId}
            AND ts.lexeme >= u.lexeme COLLATE "C" AND ts.lexeme < (u.lexeme || chr(1114111)) COLLATE "C"
          ORDER BY ts.df DESC, ts.lexeme LIMIT ${PREFIX_EXPANSIONS})
        UNION
        (SELECT ts.lexeme, ts.df FROM term_stats ts
          WHERE ts.workspace_id = ${workspaceId}
            AND ts.lexeme >= left(u.lexeme, 2) COLLATE "C" AND ts.lexeme < (left(u.lexeme, 2) || chr(1114111)) COLLATE "C"
            AND similarity(ts.lexeme, u.lexeme) >= ${FUZZY_MIN_SIMILARITY}
          ORDER BY similarity(ts.lexeme, u.lexeme) DESC, ts.df DESC, ts.lexeme LIMIT ${FUZZY_EXPANSIONS})
      ) x
    ),
    found AS (SELECT lexeme, df FROM known UNION SELECT lexeme, df FROM expanded)
    SELECT found.lexeme, found.df,
           (SELECT greatest(coalesce(max(fact_count), 0), 1)::int FROM memory_stats WHERE workspace_id = ${workspaceId}) AS n,
           (SELECT count(*)::int FROM asked) AS asked
      FROM (SELECT 1) one LEFT JOIN found ON true`;
  const n = rows[0]?.n ?? 1;
  const terms: QueryTerm[] = [];
  for (const row of rows) {
    if (row.lexeme === null || row.df === null) continue;
    terms.push({ lexeme: row.lexeme, df: row.df, idf: Math.log(1 + (n - row.df + 0.5) / (row.df + 0.5)) });
  }
  terms.sort((a, b) => a.df - b.df || (a.lexeme < b.lexeme ? -1 : 1));
  return { hasTerms: (rows[0]?.asked ?? 0) > 0, terms };
}

/** A lexeme as a quoted tsquery operand (quotes and backslashes doubled, as tsquery input wants). */
const quoted = (lexeme: string): string => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
const orQuery = (terms: readonly QueryTerm[]): string | null => (terms.length === 0 ? null : terms.map((t) => quoted(t.lexeme)).join(" | "));

/**
 * The tsquery that selects candidates from the GIN index: the rarest terms (OR) while their
 * document frequencies fit the budget; commoner terms only score. When even the rarest term is
 * common (a large workspace, everyday words), facts holding two of the three rarest terms
 * together: far fewer rows, and the ones a reader would expect first.
 */
function candidateQuery(terms: readonly QueryTerm[]): string {
  const selective: QueryTerm[] = [];
  let budget = CANDIDATE_BUDGET;
  for (const term of terms) {
    if (selective.length > 0 && term.df > budget) break;
    selective.push(term);
    budget -= term.df;
  }
  const rarest = terms.slice(0, 3);
  if (selective.length === 1 && (selective[0]?.df ?? 0) > CANDIDATE_BUDGET && rarest.length >= 2) {
    const pairs: string[] = [];
    for (let i = 0; i < rarest.length; i++) {
      for (let j = i + 1; j < rarest.length; j++) pairs.push(`(${quoted(rarest[i]!.lexeme)} & ${quoted(rarest[j]!.lexeme)})`);
    }
    return pairs.join(" | ");
  }
  return orQuery(selective) ?? "";
}

export interface RankOptions {
  query: string;
  limit: number;
  /** Restrict to facts about this end user (the context packet's about_actor layer). */
  onlyEndUser?: boolean;
  excludeIds?: readonly string[];
}

/**
 * Ranks visible facts for an analysed query. Candidates come from the GIN index only: the matches
 * of the selective terms (bounded by the budget, capped by recency). Score: the IDF (from term_stats; ts_rank has none) of every query term the
 * fact contains, which is BM25 with term frequency saturated at one and no length normalisation
 * (facts are short statements of similar size, rarely repeating a word), the query naming the fact's
 * subject, end-user match, confidence and recency; the best candidates are then re-scored with
 * trigram similarity to the query's phrasing. Ties break by recency, then id: deterministic.
 */
export async function rankFacts(db: Queryable, v: Visibility, analysed: AnalysedQuery, options: RankOptions): Promise<FactRow[]> {
  if (analysed.terms.length === 0) return [];
  const select = candidateQuery(analysed.terms);
  const onlyEndUser = options.onlyEndUser === true;
  const exclude = [...(options.excludeIds ?? [])];
  const scope = fragment`${visibleFacts(v)}
    AND (NOT ${onlyEndUser}::boolean OR f.end_user_id IS NOT NULL) AND f.id <> ALL(${exclude}::text[])`;
  const scoreTrigram = options.query.length <= TRIGRAM_SCORE_MAX_QUERY;
  // One CASE per scored term, unrolled: no per-row subquery. The rarest terms carry the weight.
  const termScore = analysed.terms
    .slice(0, SCORED_TERMS)
    .reduce<Fragment>(
      (sum, t) => fragment`${sum} + CASE WHEN c.search @@ ${quoted(t.lexeme)}::tsquery THEN ${t.idf}::float8 ELSE 0 END`,
      fragment`0`,
    );
  return db.sql<FactRow>`
    WITH asked AS MATERIALIZED (SELECT to_tsvector('english', ${options.query}) AS vector),
    -- materialised and unordered, so the planner answers it from the GIN index, reading each row
    -- once; the limit bounds the work when document frequencies were underestimated
    matched AS MATERIALIZED (
      SELECT ${CANDIDATE_COLUMNS} FROM facts f
       WHERE ${scope} AND f.search @@ ${select}::tsquery
       LIMIT ${CANDIDATE_SCAN_LIMIT}
    ),
    candidates AS (
      SELECT * FROM matched ORDER BY recorded_at DESC, id DESC LIMIT ${CANDIDATE_CAP}
    ),
    scored AS (
      SELECT c.id, c.text, c.kind, c.origin, c.subject, c.confidence, c.recorded_at, c.end_user_id, c.pinned,
             ${termScore}
             -- the query names the subject as whole words ("Priya's" names Priya; "Al" is not in "also")
             + CASE WHEN q.vector @@ c.subject_query THEN ${SUBJECT_WEIGHT}::float8 ELSE 0 END
             + CASE WHEN c.end_user_id IS NOT NULL THEN 0.5 ELSE 0 END
             -- a fact phrased as a question states nothing: it should not outrank a statement
             - CASE WHEN right(rtrim(c.text), 1) = '?' THEN ${QUESTION_PENALTY}::float8 ELSE 0 END
             + 0.2 * c.confidence
             + 0.2 * exp(-extract(epoch FROM now() - c.recorded_at) / (180 * 86400.0)) AS score
        FROM candidates c CROSS JOIN asked q
    ),
    best AS (
      SELECT * FROM scored ORDER BY score DESC, recorded_at DESC, id DESC LIMIT ${Math.max(RERANK_DEPTH, options.limit)}
    )
    SELECT id, text, kind, origin, subject, confidence, recorded_at, end_user_id, pinned
      FROM best
     ORDER BY score + CASE WHEN ${scoreTrigram}::boolean
                           THEN ${TRIGRAM_WEIGHT}::float8 * word_similarity(${options.query}, text) ELSE 0 END DESC,
              recorded_at DESC, id DESC
     LIMIT ${options.limit}`;
}
