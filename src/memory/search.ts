import type { RestSearchRequest, ScoreExplanation, SearchResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import type { FactIndex } from "./index/fact-index";
import { readView } from "./as-of";
import { planQuery, rankFacts, readFilter, recentFacts, type RankingParams } from "./index/ranking";
import { visibilityFor, type Visibility } from "./visibility";

/** POST /v1/memory/search (docs/api.md): the facts most relevant to a query, no model in the path. */
export async function searchFacts(ctx: ServiceContext, input: RestSearchRequest): Promise<SearchResult> {
  const v = visibilityFor(ctx.caller, input.end_user?.id ?? null);
  const view = await readView(ctx, v.workspaceId, input.as_of);
  return searchIndex(view.index, v, input, undefined, view.now);
}

/** The ranking half of `searchFacts`, over an index already current (the retrieval bench calls it directly). */
export function searchIndex(index: FactIndex, v: Visibility, input: RestSearchRequest, params?: RankingParams, now: number = Date.now()): SearchResult {
  const filter = readFilter(index, v, now);
  const plan = planQuery(index, input.query, params);
  const explain = input.explain === true ? new Map<number, ScoreExplanation>() : undefined;
  // A query of only stop words or punctuation asks for nothing in particular: the latest facts
  // are the sensible answer, not an empty list or an error.
  const found = plan.hasTerms
    ? rankFacts(index, plan, filter, { limit: input.limit, now, ...(params && { params }), ...(explain && { explain }) })
    : recentFacts(index, filter, { limit: input.limit, now });
  return {
    facts: found.map((ord) => {
      const explanation = explain?.get(ord);
      return explanation === undefined ? index.factAt(ord) : { ...index.factAt(ord), explanation };
    }),
  };
}
