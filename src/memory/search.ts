import type { SearchRequest, SearchResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import { planQuery, rankFacts, readFilter, recentFacts } from "./index/ranking";
import { visibilityFor } from "./visibility";

/** 4.1: the facts most relevant to a query, no model in the path. */
export async function searchFacts(ctx: ServiceContext, input: SearchRequest): Promise<SearchResult> {
  const v = visibilityFor(ctx.caller, input.end_user?.id ?? null);
  const index = await ctx.index.read(v.workspaceId, ctx.caller.factSeq);
  const filter = readFilter(index, v);
  const plan = planQuery(index, input.query);
  // A query of only stop words or punctuation asks for nothing in particular: the latest facts
  // are the sensible answer, not an empty list or an error.
  const found = plan.hasTerms ? rankFacts(index, plan, filter, { limit: input.limit }) : recentFacts(index, filter, { limit: input.limit });
  return { facts: found.map((ord) => index.factAt(ord)) };
}
