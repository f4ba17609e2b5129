import { observedRange } from "../capture/fact-time";
import type { ContextPacket, RestContextRequest } from "../schema/memory";
import { countsRecalls, type ServiceContext } from "../service";
import type { SemanticQuery } from "../embeddings/semantic";
import type { FactIndex } from "./index/fact-index";
import { asksAboutThePast, preferNewerOnTies, putNewerFirst } from "./index/freshness";
import { FUSION_DEPTH, fuseWithVectors } from "./index/fusion";
import { pinnedFacts, recentFacts } from "./index/listing";
import { planQuery } from "./index/plan";
import { rankFacts } from "./index/ranking";
import { readFilter } from "./index/filter";
import { semanticQuery } from "./search";
import { actingAs } from "../agents/acting";
import { readView } from "./as-of";
import { renderPacket } from "./packet";
import { type Visibility, visibilityFor } from "./visibility";

const MAX_PINNED = 50;
const MAX_ABOUT_ACTOR = 40;
/** Facts run ~15-40 tokens a line; fetch enough to fill the budget, never unboundedly many. */
const retrievedLimit = (tokenBudget: number): number => Math.min(300, Math.max(20, Math.ceil(tokenBudget / 15)));

/**
 * 4.2: the memory block for a prompt. Layers by priority: pinned facts (always), facts about the
 * named end user (most relevant to the query first, then most recent), then what the query
 * retrieves. `renderPacket` enforces the token budget. With `as_of`, memory as it stood then.
 */
export async function buildContext(caller: ServiceContext, input: RestContextRequest): Promise<ContextPacket> {
  const ctx = await actingAs(caller, input.agent);
  const v = visibilityFor(ctx.caller, input.end_user?.id ?? null);
  const [{ index, now }, semantic] = await Promise.all([readView(ctx, v.workspaceId, input.as_of), semanticQuery(ctx, v.workspaceId, input.query)]);
  const packet = contextFromIndex(index, v, input, now, semantic);
  if (countsRecalls(ctx.caller)) ctx.index.recalls.record(packet.facts.map((f) => f.fact_id));
  return packet;
}

/** The packet half of `buildContext`, over an index already current (the agent-memory bench profiles it directly). */
export function contextFromIndex(index: FactIndex, v: Visibility, input: RestContextRequest, now: number, semantic: SemanticQuery | null): ContextPacket {
  const endUserId = v.endUserId;
  const filter = readFilter(index, v, now, observedRange(input));
  const plan = planQuery(index, input.query, undefined, now);
  const pinned = pinnedFacts(index, filter, MAX_PINNED);
  const seen = new Set(pinned);

  const aboutActor: number[] = [];
  const past = asksAboutThePast(input.query, plan.time.windows, now);
  // With an embeddings endpoint, each ranked layer fuses the rank by words with the rank by vector;
  // then, as on search, the newer fact of an update goes directly above the one it updates.
  const ranked = (limit: number, onlyEndUser: boolean): number[] => {
    if (!plan.hasTerms) return [];
    const depth = semantic === null ? limit : Math.max(limit, FUSION_DEPTH);
    const lexical = rankFacts(index, plan, filter, { limit: depth, onlyEndUser, exclude: seen, now });
    const ords = semantic === null ? lexical : fuseWithVectors(index, lexical, semantic, filter, { limit, exclude: seen, onlyEndUser }).ords;
    return past ? ords : putNewerFirst(index, preferNewerOnTies(index, ords, plan), filter, undefined, seen);
  };
  if (endUserId !== null) {
    const relevant = ranked(MAX_ABOUT_ACTOR, true);
    for (const ord of relevant) seen.add(ord);
    const recent = recentFacts(index, filter, { limit: MAX_ABOUT_ACTOR - relevant.length, onlyEndUser: true, exclude: seen, now }, plan.time.windows);
    for (const ord of recent) seen.add(ord);
    aboutActor.push(...relevant, ...recent);
  }

  const limit = retrievedLimit(input.token_budget);
  // As on search: the facts nearest a time the query names when it has no other known word, unless vectors can rank it.
  const byTime = !plan.hasTerms || (plan.onlyTime && semantic === null);
  const retrieved = byTime ? recentFacts(index, filter, { limit, exclude: seen, now }, plan.time.windows) : ranked(limit, false);

  const facts = (ords: readonly number[]) => ords.map((ord) => index.factAt(ord));
  return renderPacket({
    pinned: facts(pinned),
    aboutActor: facts(aboutActor),
    retrieved: facts(retrieved),
    tokenBudget: input.token_budget,
    actorName: input.end_user?.name ?? input.end_user?.id,
    lineCosts: index.lineCosts,
    inObservedOrder: plan.time.order,
  });
}
