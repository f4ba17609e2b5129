import { notFound } from "../errors";
import { actingAs } from "../agents/acting";
import type { Fact, FactList, FactListQuery, FactQuery, FactWithHistory, ListedFact } from "../schema/memory";
import type { ServiceContext } from "../service";
import { readView } from "./as-of";
import { deleteFact, olderVersions } from "./browse";
import { KINDS } from "./index/fact-table";
import type { FactIndex } from "./index/fact-index";
import { isVisible, readFilter } from "./index/filter";
import { recallStats } from "./recalls";
import { visibilityFor, visibleFacts } from "./visibility";

/** The facts with their recall statistics as stored (counts reach the database in batches, seconds late). */
async function withRecalls(ctx: ServiceContext, facts: Fact[]): Promise<ListedFact[]> {
  const stats = await recallStats(
    ctx.db,
    facts.map((f) => f.fact_id),
  );
  return facts.map((f) => ({ ...f, ...stats.get(f.fact_id)! }));
}

/** The ordinal of a fact this caller may see (naming `endUserId`), or a 404 that says nothing more. */
async function visibleOrdinal(ctx: ServiceContext, factId: string, endUserId: string | null): Promise<{ index: FactIndex; ord: number }> {
  const v = visibilityFor(ctx.caller, endUserId);
  const index = await ctx.index.read(v.workspaceId, ctx.caller.factSeq);
  const ord = index.ordinal(factId);
  if (ord === undefined || !isVisible(index, ord, readFilter(index, v))) throw notFound(`fact "${factId}"`);
  return { index, ord };
}

/**
 * The facts a key may see, newest first, through the same index and visibility rule as search;
 * naming an end user lists only that person's facts; with `as_of`, the facts as they stood then.
 * Keyset paging on the id.
 */
export async function listFacts(caller: ServiceContext, query: FactListQuery): Promise<FactList> {
  const ctx = await actingAs(caller, query.agent);
  const v = visibilityFor(ctx.caller, query.end_user ?? null);
  const { index, now } = await readView(ctx, v.workspaceId, query.as_of);
  const filter = readFilter(index, v, now);
  const kind = query.kind === undefined ? -1 : KINDS.indexOf(query.kind);
  const matching: number[] = [];
  for (let ord = 0; ord < index.count; ord++) {
    if (!isVisible(index, ord, filter)) continue;
    if (kind >= 0 && index.kindOf[ord] !== kind) continue;
    if (query.end_user !== undefined && index.endUserOf[ord]! < 0) continue;
    if (query.subject !== undefined && index.subjects[index.subjectOf[ord]!]!.name !== query.subject) continue;
    if (query.cursor !== undefined && index.ids[ord]! >= query.cursor) continue;
    matching.push(ord);
  }
  matching.sort((a, b) => (index.ids[a]! < index.ids[b]! ? 1 : -1));
  const page = await withRecalls(
    ctx,
    matching.slice(0, query.limit).map((ord) => index.factAt(ord)),
  );
  return { facts: page, next_cursor: matching.length > query.limit ? (page.at(-1)?.fact_id ?? null) : null };
}

/** A visible fact and the earlier versions of its claim the key may see (newest first). */
export async function getFact(caller: ServiceContext, factId: string, query: FactQuery): Promise<FactWithHistory> {
  const ctx = await actingAs(caller, query.agent);
  const endUserId = query.end_user ?? null;
  const { index, ord } = await visibleOrdinal(ctx, factId, endUserId);
  const v = visibilityFor(ctx.caller, endUserId);
  const replaced = await ctx.db.sql<{
    id: string;
    text: string;
    kind: Fact["kind"];
    origin: Fact["origin"];
    subject: string;
    confidence: number;
    recorded_at: Date;
  }>`
    ${olderVersions(factId)}
    SELECT f.id, f.text, f.kind, f.origin, f.subject, f.confidence, f.recorded_at
      FROM older o JOIN facts f ON f.id = o.id
     WHERE ${visibleFacts(v, { history: true })}
     ORDER BY f.recorded_at DESC, f.id DESC`;
  const [fact] = await withRecalls(ctx, [index.factAt(ord)]);
  return {
    fact: fact!,
    replaced: replaced.map((r) => ({
      fact_id: r.id,
      fact_text: r.text,
      kind: r.kind,
      origin: r.origin,
      subject: r.subject,
      confidence_level: Math.round(Number(r.confidence) * 1000) / 1000,
      recorded_time: new Date(r.recorded_at).toISOString(),
    })),
  };
}

/**
 * Deletes a fact the key may see; once this returns no read on any instance serves it (its
 * tombstone commits with the delete). Versions it had replaced become current again.
 */
export async function deleteVisibleFact(caller: ServiceContext, factId: string, query: FactQuery): Promise<{ fact_id: string; restored: string[] }> {
  const ctx = await actingAs(caller, query.agent);
  await visibleOrdinal(ctx, factId, query.end_user ?? null);
  return deleteFact(ctx.db, factId);
}
