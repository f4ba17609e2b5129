import type { FactIndex } from "./fact-index";
import type { RankingParams } from "./params";

/** What a strong match lent a conversation neighbour: the lender, and the score added. */
export interface Loan {
  source: number;
  loan: number;
}

/**
 * Conversation neighbours (docs/memory.md): the answer is often the turn next to the best match
 * ("what did the doctor say?" matches the user's turn; the reply holds the answer). Each of the
 * `neighbourSources` best facts lends `neighbour` times its score to the nearest fact on either
 * side that the caller may see, when the two were taught one after the other, about the same end
 * user (or none), observed within `NEIGHBOUR_WINDOW_MS`. A fact keeps its largest loan only.
 */
export function lendToNeighbours(
  index: FactIndex,
  p: RankingParams,
  head: readonly number[],
  final: ReadonlyMap<number, number>,
  accepts: (ord: number) => boolean,
  loans: Map<number, Loan>,
): void {
  // In a workspace of long texts (pasted notes, an assistant's long replies) each fact stands on its
  // own many words, and loans there cost more than they find (bench/RESULTS.md, issue 45).
  if (p.neighbour === 0 || index.totalLength > p.neighbourMaxLength * index.live) return;
  for (const source of head.slice(0, p.neighbourSources)) {
    const loan = p.neighbour * final.get(source)!;
    if (!(loan > 0)) continue;
    for (const step of [-1, 1]) {
      let reached = 0;
      let share = loan;
      for (let ord = source + step, hops = 0; ord >= 0 && ord < index.count && hops < NEIGHBOUR_HOPS + p.neighbourReach; ord += step, hops++) {
        if (!sameConversation(index, ord - step, ord)) break;
        if (!accepts(ord)) continue;
        // A long turn takes its place in the conversation, but no loan.
        if (index.lengthOf[ord]! <= p.neighbourMaxLength && share > (loans.get(ord)?.loan ?? 0)) loans.set(ord, { source, loan: share });
        if (++reached >= p.neighbourReach) break;
        share *= p.neighbourDecay;
      }
    }
  }
}

/** Facts further apart than this in observed time are not one conversation's turns. */
const NEIGHBOUR_WINDOW_MS = 10 * 60_000;
/** Facts stepped over (superseded, or not the caller's to see) looking for a neighbour, at most. */
const NEIGHBOUR_HOPS = 3;

export function sameConversation(index: FactIndex, a: number, b: number): boolean {
  return index.endUserOf[a] === index.endUserOf[b] && Math.abs(index.recordedAt[a]! - index.recordedAt[b]!) <= NEIGHBOUR_WINDOW_MS;
}
