import type { ContextPacket, ContextRequest } from "../schema/memory";
import type { ServiceContext } from "../service";
import { renderPacket } from "./packet";
import { analyseQuery, rankFacts } from "./rank";
import { pinnedFacts, recentFacts, toFact, type FactRow } from "./store";
import { visibilityFor } from "./visibility";

const MAX_PINNED = 50;
const MAX_ABOUT_ACTOR = 40;
/** Facts run ~15-40 tokens a line; fetch enough to fill the budget, never unboundedly many. */
const retrievedLimit = (tokenBudget: number): number => Math.min(300, Math.max(20, Math.ceil(tokenBudget / 15)));

/**
 * 4.2: the memory block for a prompt. Layers by priority: pinned facts (always), facts about the
 * named end user (most relevant to the query first, then most recent), then what the query
 * retrieves. `renderPacket` enforces the token budget.
 */
export async function buildContext(ctx: ServiceContext, input: ContextRequest): Promise<ContextPacket> {
  const endUserId = input.end_user?.id ?? null;
  const v = visibilityFor(ctx.auth, ctx.channel, endUserId);
  const pinned = await pinnedFacts(ctx.db, v, MAX_PINNED);
  const seen = pinned.map((f) => f.id);
  const analysed = await analyseQuery(ctx.db, v.workspaceId, input.query);

  const aboutActor: FactRow[] = [];
  if (endUserId !== null) {
    const relevant = await rankFacts(ctx.db, v, analysed, { query: input.query, limit: MAX_ABOUT_ACTOR, onlyEndUser: true, excludeIds: seen });
    seen.push(...relevant.map((f) => f.id));
    const recent = await recentFacts(ctx.db, v, { limit: MAX_ABOUT_ACTOR - relevant.length, onlyEndUser: true, excludeIds: seen });
    seen.push(...recent.map((f) => f.id));
    aboutActor.push(...relevant, ...recent);
  }

  const limit = retrievedLimit(input.token_budget);
  const retrieved = analysed.hasTerms
    ? await rankFacts(ctx.db, v, analysed, { query: input.query, limit, excludeIds: seen })
    : await recentFacts(ctx.db, v, { limit, excludeIds: seen });

  return renderPacket({
    pinned: pinned.map(toFact),
    aboutActor: aboutActor.map(toFact),
    retrieved: retrieved.map(toFact),
    tokenBudget: input.token_budget,
    actorName: input.end_user?.name ?? input.end_user?.id,
  });
}
