import type { SemanticQuery } from "../embeddings/semantic";
import { observedRange } from "../capture/fact-time";
import type { RestSearchRequest, ScoreExplanation, SearchResult } from "../schema/memory";
import { countsRecalls, type ServiceContext } from "../service";
import type { FactIndex } from "./index/fact-index";
import { actingAs } from "../agents/acting";
import { readView } from "./as-of";
import { asksAboutThePast, preferNewerOnTies, putNewerFirst, TIE_WINDOW } from "./index/freshness";
import { FUSION_DEPTH, fuseWithVectors } from "./index/fusion";
import { planQuery, type QueryPlan } from "./index/plan";
import { RANKING, type RankingParams } from "./index/params";
import { rankFacts } from "./index/ranking";
import { type ReadFilter, readFilter } from "./index/filter";
import { recentFacts } from "./index/listing";
import { timeOnlyExplanation } from "./time/fact-lift";
import { visibilityFor, type Visibility } from "./visibility";

/**
 * POST /v1/memory/search (docs/api.md): the facts most relevant to a query. No model in the path,
 * unless the operator configured an embeddings endpoint: then one call for the query's vector,
 * sent first; the index is read and the words ranked while it is on its way.
 */
export async function searchFacts(caller: ServiceContext, input: RestSearchRequest): Promise<SearchResult> {
  const ctx = await actingAs(caller, input.agent);
  const v = visibilityFor(ctx.caller, input.end_user?.id ?? null);
  const semantic = semanticQuery(ctx, v.workspaceId, input.query);
  const view = await readView(ctx, v.workspaceId, input.as_of);
  const ranked = rankByWords(view.index, v, input, undefined, view.now, ctx.index.semantic !== undefined);
  const result = finishSearch(ranked, await semantic);
  if (countsRecalls(ctx.caller)) ctx.index.recalls.record(result.facts.map((f) => f.fact_id));
  return result;
}

/** The query's vector and the workspace's, when an embeddings endpoint is configured and answers in time. */
export function semanticQuery(ctx: ServiceContext, workspaceId: string, query: string): Promise<SemanticQuery | null> {
  return ctx.index.semantic?.forQuery(workspaceId, query) ?? Promise.resolve(null);
}

/** The ranking half of `searchFacts`, over an index already current (the retrieval bench calls it directly). */
export function searchIndex(
  index: FactIndex,
  v: Visibility,
  input: RestSearchRequest,
  params?: RankingParams,
  now: number = Date.now(),
  semantic: SemanticQuery | null = null,
): SearchResult {
  return finishSearch(rankByWords(index, v, input, params, now, semantic !== null), semantic);
}

/** A search ranked by its words, waiting for the query's vector (or its absence) to be finished. */
interface WordRanking {
  index: FactIndex;
  input: RestSearchRequest;
  filter: ReadFilter;
  plan: QueryPlan;
  params: RankingParams | undefined;
  now: number;
  explain: Map<number, ScoreExplanation> | undefined;
  /** Ranked as deep as fusion reads, for a vector that may come. */
  forVectors: boolean;
  /** The facts by their words (or by time), best first: `limit` of them, or fusion's depth. */
  lexical: number[];
}

/**
 * The words' half of a search. With `forVectors` it ranks as deep as fusion reads, since a vector
 * may still come; a query the vector will not rank (no terms) is listed by time either way.
 */
function rankByWords(
  index: FactIndex,
  v: Visibility,
  input: RestSearchRequest,
  params: RankingParams | undefined,
  now: number,
  forVectors: boolean,
): WordRanking {
  const filter = readFilter(index, v, now, observedRange(input));
  const plan = planQuery(index, input.query, params, now);
  const explain = input.explain === true ? new Map<number, ScoreExplanation>() : undefined;
  const ranking: WordRanking = { index, input, filter, plan, params, now, explain, forVectors, lexical: [] };
  // A query of only stop words or punctuation asks for nothing in particular: the latest facts are
  // the sensible answer, not an empty list or an error.
  if (!plan.hasTerms) ranking.lexical = byTime(ranking);
  // One whose only known words name a time ("what happened last week?") gets the facts nearest that
  // time, unless vectors rank it: then it is ranked by words too, and which to use waits for the vector.
  else if (!(plan.onlyTime && !forVectors)) {
    // Ranked TIE_WINDOW deeper: the freshness pass may lift a newer fact from just below the limit.
    const depth = forVectors ? Math.max(input.limit + TIE_WINDOW, FUSION_DEPTH) : input.limit + TIE_WINDOW;
    ranking.lexical = rankFacts(index, plan, filter, { limit: depth, now, ...(params && { params }), ...(explain && { explain }) });
  }
  return ranking;
}

function byTime({ index, filter, input, now, plan, params, explain }: WordRanking): number[] {
  const ords = recentFacts(index, filter, { limit: input.limit, now }, plan.time.windows);
  if (explain !== undefined && plan.time.windows.length > 0) {
    for (const ord of ords) explain.set(ord, timeOnlyExplanation(index, plan.time.windows, ord, (params ?? RANKING).time));
  }
  return ords;
}

function finishSearch(ranking: WordRanking, semantic: SemanticQuery | null): SearchResult {
  const { index, input, filter, plan, explain } = ranking;
  let lexical = ranking.lexical;
  if (plan.hasTerms && plan.onlyTime && semantic === null) {
    explain?.clear();
    lexical = byTime(ranking);
  }
  const fused = semantic !== null && plan.hasTerms ? fuseWithVectors(index, lexical, semantic, filter, { limit: input.limit + TIE_WINDOW }) : null;
  const ranked = fused?.ords ?? lexical;
  // The newer fact of an update goes directly above the one it updates, unless the query asks how things were.
  const placedFor = new Map<number, number>();
  const ords = asksAboutThePast(input.query, plan.time.windows, ranking.now)
    ? ranked.slice(0, input.limit)
    : putNewerFirst(index, preferNewerOnTies(index, ranked, plan), filter, placedFor).slice(0, input.limit);
  const updatedBy = new Map([...placedFor].map(([newer, older]) => [older, newer]));
  return {
    facts: ords.map((ord) => {
      const vector = fused?.vector.get(ord);
      const placed = placedFor.get(ord);
      const lexical = explain?.get(ord) ?? (explain !== undefined && (vector !== undefined || placed !== undefined) ? emptyExplanation() : undefined);
      const explanation =
        lexical === undefined
          ? undefined
          : {
              ...lexical,
              ...(vector !== undefined && { vector }),
              ...(placed !== undefined && { updates: index.ids[placed]! }),
              ...(updatedBy.has(ord) && { updated_by: index.ids[updatedBy.get(ord)!]! }),
            };
      return explanation === undefined ? index.factAt(ord) : { ...index.factAt(ord), explanation };
    }),
  };
}

/** A fact found by its vector alone has no word, meaning or other part. */
function emptyExplanation(): ScoreExplanation {
  return { score: 0, words: [], meaning: [], subject: 0, end_user: 0, confidence: 0, recency: 0, question: 0, phrasing: 0, time: 0 };
}
