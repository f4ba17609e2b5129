/**
 * The freshness link at read time: a fact that matches a query and has a newer fact that updates
 * it (capture/links.ts; a replaced fact is not in the index at all) gets that newer fact directly
 * above it, brought in when it did not match on its own words ("how do I get to work?" finds "I
 * ride a Vespa to work"; "Traded the Vespa for an e-bike last week" follows it in, first). A
 * question about the past keeps the plain order.
 */
import type { FactIndex } from "./fact-index";
import { isVisible, type ReadFilter } from "./filter";
import type { QueryPlan } from "./plan";
import { PLAIN } from "./fact-index";
import { termsOf, wordsOf } from "./terms";
import type { TimeWindow } from "../time/query-time";

/** Words that ask how things were: the newer fact is then not the answer. Lower case. */
const PAST_WORDS: ReadonlySet<string> = new Set([
  "before",
  "used",
  "previously",
  "previous",
  "originally",
  "original",
  "formerly",
  "former",
  "earlier",
  "prior",
  "old",
  "ago",
  "history",
  "initially",
]);

/** How many links are followed from one fact (a chain of updates): each step is a newer fact. */
const MAX_CHAIN = 4;

/** Whether the query asks about the past: a past word, or a time window that ended before now. */
export function asksAboutThePast(query: string, windows: readonly TimeWindow[], now: number): boolean {
  return wordsOf(query).some((w) => PAST_WORDS.has(w.toLowerCase())) || windows.some((w) => w.to <= now);
}

/**
 * The newest live fact the caller may see that updates the fact at `ord`, directly or along a
 * chain of updates; undefined when there is none.
 */
export function newestUpdate(index: FactIndex, ord: number, filter: ReadFilter, found: ReadonlySet<number>): number | undefined {
  let newest: number | undefined;
  let frontier = [index.ids[ord]!];
  for (let step = 0; step < MAX_CHAIN && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const link of index.newerThan(id)) {
        const newer = index.ordinal(link.id);
        // A weak link only reorders: the newer fact must be among what the question found.
        if (newer === undefined || !isVisible(index, newer, filter) || (link.weak && !found.has(newer))) continue;
        if (newest === undefined || index.observedBefore(newest, newer)) newest = newer;
        next.push(link.id);
      }
    }
    frontier = next;
  }
  return newest !== undefined && index.observedBefore(ord, newest) ? newest : undefined;
}

/**
 * The ranked ordinals with each fact's newest update placed directly above it: moved up when it
 * ranked lower, brought in when it was not ranked (nor in `elsewhere`). Each fact appears once;
 * `moved` learns, for explain, which fact each update was placed for.
 */
export function putNewerFirst(
  index: FactIndex,
  ranked: readonly number[],
  filter: ReadFilter,
  moved?: Map<number, number>,
  elsewhere: ReadonlySet<number> = new Set(),
): number[] {
  const out: number[] = [];
  // A fact another layer of the packet already holds is not brought in twice.
  const placed = new Set<number>(elsewhere);
  const found = new Set(ranked);
  for (const ord of ranked) {
    if (placed.has(ord)) continue;
    const newer = newestUpdate(index, ord, filter, found);
    if (newer !== undefined && !placed.has(newer)) {
      out.push(newer);
      placed.add(newer);
      moved?.set(newer, ord);
    }
    out.push(ord);
    placed.add(ord);
  }
  return out;
}

/** How far above itself a newer fact may go on a tie; a search ranks this much deeper than its limit. */
export const TIE_WINDOW = 5;

/**
 * Among short statements, a newer fact that holds every query word an older one above it holds
 * goes directly above it: when the words cannot tell two facts apart, the newer is the better
 * guess at how things are now ("Puffin is on Fly.io" before "The Puffin service is hosted on
 * Heroku" for "where do we deploy Puffin?"; "Puffin's owner is Mei" keeps its place for "who owns
 * Puffin?", which it answers with more of the question's words).
 */
export function preferNewerOnTies(index: FactIndex, ranked: readonly number[], plan: QueryPlan): number[] {
  // Most searches over chat turns or notes hold no two plain statements: nothing to reorder.
  if (ranked.filter((ord) => (index.flags[ord]! & PLAIN) !== 0).length < 2) return [...ranked];
  const held = new Map<number, ReadonlySet<number> | null>();
  const heldOf = (ord: number): ReadonlySet<number> | null => {
    let groups = held.get(ord);
    if (groups === undefined) {
      // The fact's own words, not its subject's (the postings hold both): a subject shared by two facts tells nothing apart.
      const terms = (index.flags[ord]! & PLAIN) === 0 ? null : new Set(termsOf(index.text(ord)));
      groups = terms === null ? null : new Set(plan.groups.flatMap((g, i) => (g.terms.some((t) => terms.has(t)) ? [i] : [])));
      held.set(ord, groups);
    }
    return groups;
  };
  // Each fact's place is decided by the TIE_WINDOW facts ranked just above it, never by a fact
  // further down: so a search with a smaller limit returns the head of a larger one (ranked
  // TIE_WINDOW deeper than its limit).
  const keys = ranked.map((newer, j) => {
    const words = heldOf(newer);
    if (words === null || words.size === 0) return j;
    for (let i = Math.max(0, j - TIE_WINDOW); i < j; i++) {
      const older = ranked[i]!;
      const olderWords = heldOf(older);
      if (index.observedBefore(older, newer) && olderWords !== null && olderWords.size > 0 && [...olderWords].every((g) => words.has(g))) return i - 0.5;
    }
    return j;
  });
  // Two facts placed above one are in observed order, newest first; else in rank order.
  const order = ranked.map((_, j) => j);
  order.sort((a, b) => keys[a]! - keys[b]! || (keys[a] !== a && keys[b] !== b ? (index.observedBefore(ranked[a]!, ranked[b]!) ? 1 : -1) : a - b));
  return order.map((j) => ranked[j]!);
}
