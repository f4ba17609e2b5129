import type { SemanticQuery } from "../embeddings/semantic";
import { observedRange } from "../capture/fact-time";
import type { RestSearchRequest, ScoreExplanation, SearchResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import type { FactIndex } from "./index/fact-index";
import { readView } from "./as-of";
import { FUSION_DEPTH, fuseWithVectors } from "./index/fusion";
import { planQuery, RANKING, rankFacts, readFilter, recentFacts, type RankingParams } from "./index/ranking";
import { timeOnlyExplanation } from "./time/fact-lift";
import { visibilityFor, type Visibility } from "./visibility";

/**
 * POST /v1/memory/search (docs/api.md): the facts most relevant to a query. No model in the path,
 * unless the operator configured an embeddings endpoint: then one call for the query's vector,
 * made while the index is read and bounded by its timeout.
 */
export async function searchFacts(ctx: ServiceContext, input: RestSearchRequest): Promise<SearchResult> {
  const v = visibilityFor(ctx.caller, input.end_user?.id ?? null);
  const [view, semantic] = await Promise.all([readView(ctx, v.workspaceId, input.as_of), semanticQuery(ctx, v.workspaceId, input.query)]);
  return searchIndex(view.index, v, input, undefined, view.now, semantic);
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
  const filter = readFilter(index, v, now, observedRange(input));
  const plan = planQuery(index, input.query, params, now);
  const explain = input.explain === true ? new Map<number, ScoreExplanation>() : undefined;
  const depth = semantic === null ? input.limit : Math.max(input.limit, FUSION_DEPTH);
  // A query of only stop words or punctuation asks for nothing in particular: the latest facts are
  // the sensible answer, not an empty list or an error. One whose only known words name a time
  // ("what happened last week?") gets the facts nearest that time, unless vectors can rank it.
  const byTime = !plan.hasTerms || (plan.onlyTime && semantic === null);
  const lexical = byTime
    ? recentFacts(index, filter, { limit: input.limit, now }, plan.time.windows)
    : rankFacts(index, plan, filter, { limit: depth, now, ...(params && { params }), ...(explain && { explain }) });
  if (byTime && explain !== undefined && plan.time.windows.length > 0) {
    for (const ord of lexical) explain.set(ord, timeOnlyExplanation(index, plan.time.windows, ord, (params ?? RANKING).time));
  }
  const fused = semantic !== null && plan.hasTerms ? fuseWithVectors(index, lexical, semantic, filter, { limit: input.limit }) : null;
  return {
    facts: (fused?.ords ?? lexical).map((ord) => {
      const vector = fused?.vector.get(ord);
      const lexical = explain?.get(ord) ?? (explain !== undefined && vector !== undefined ? emptyExplanation() : undefined);
      const explanation = lexical === undefined || vector === undefined ? lexical : { ...lexical, vector };
      return explanation === undefined ? index.factAt(ord) : { ...index.factAt(ord), explanation };
    }),
  };
}

/** A fact found by its vector alone has no word, meaning or other part. */
function emptyExplanation(): ScoreExplanation {
  return { score: 0, words: [], meaning: [], subject: 0, end_user: 0, confidence: 0, recency: 0, question: 0, phrasing: 0, time: 0 };
}
