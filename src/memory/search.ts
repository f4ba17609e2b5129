import type { SearchRequest, SearchResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import { analyseQuery, rankFacts } from "./rank";
import { recentFacts, toFact } from "./store";
import { visibilityFor } from "./visibility";

/** 4.1: the facts most relevant to a query, no model in the path. */
export async function searchFacts(ctx: ServiceContext, input: SearchRequest): Promise<SearchResult> {
  const v = visibilityFor(ctx.auth, ctx.channel, input.end_user?.id ?? null);
  const analysed = await analyseQuery(ctx.db, v.workspaceId, input.query);
  // A query of only stop words or punctuation asks for nothing in particular: the latest facts
  // are the sensible answer, not an empty list or an error.
  const rows = analysed.hasTerms
    ? await rankFacts(ctx.db, v, analysed, { query: input.query, limit: input.limit })
    : await recentFacts(ctx.db, v, { limit: input.limit });
  return { facts: rows.map(toFact) };
}
