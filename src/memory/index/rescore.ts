import type { FactIndex } from "./fact-index";
import { lendToNeighbours, type Loan } from "./neighbours";
import type { RankingParams } from "./params";
import { phrasingSignal } from "./phrasing";
import type { QueryPlan } from "./plan";
import { spreadOverConversations } from "./spread";
import { better } from "./top-k";

/**
 * The re-score of the best `rerankDepth`: phrasing, then what the strongest matches lend their
 * conversation neighbours. A fixed depth, so a smaller limit returns a prefix of a larger one.
 */
export function rescore(
  index: FactIndex,
  plan: QueryPlan,
  p: RankingParams,
  ranked: number[],
  score: Float64Array,
  limit: number,
  accepts: (ord: number) => boolean,
  scoreOf: (ord: number) => number,
): { result: number[]; loans: Map<number, Loan>; lifts: Map<number, number> } {
  const phrased = plan.trigrams !== null && p.phrasing > 0;
  const loans = new Map<number, Loan>();
  const lifts = new Map<number, number>();
  const final = new Map<number, number>();
  const finish = (ordered: number[]): { result: number[]; loans: Map<number, Loan>; lifts: Map<number, number> } => ({
    result: spreadOverConversations(index, p, ordered, (ord) => final.get(ord) ?? score[ord]!, lifts).slice(0, limit),
    loans,
    lifts,
  });
  if (!phrased && p.neighbour === 0) return finish(ranked.slice(0, Math.max(limit, p.rerankDepth)));
  const head = ranked.slice(0, p.rerankDepth);
  for (const ord of head) final.set(ord, score[ord]! + (phrased ? phrasingSignal(index, plan.trigrams!, p, ord) : 0));
  head.sort((a, b) => (better(index, final, a, b) ? -1 : 1));
  lendToNeighbours(index, p, head, final, accepts, loans);
  if (loans.size === 0) return finish([...head, ...ranked.slice(p.rerankDepth)]);
  // The first `neighbourAfter` keep their places, so a loan takes no fact past the last of them:
  // an explanation's score stays the order's.
  const kept = head.slice(0, p.neighbourAfter);
  const cap = kept.length > 0 ? final.get(kept.at(-1)!)! : Number.POSITIVE_INFINITY;
  for (const [ord, entry] of loans) {
    if (kept.includes(ord)) {
      loans.delete(ord);
      continue;
    }
    // A neighbour from past the head ranks by its own score (no phrasing: that is the head's). One
    // that matches the query neither by word nor by meaning is not lent to: a search never
    // returns a fact unrelated to it.
    const own = final.get(ord) ?? scoreOf(ord);
    entry.loan = Math.min(entry.loan, cap - own);
    if (own === Number.NEGATIVE_INFINITY || !(entry.loan > 0)) loans.delete(ord);
    else final.set(ord, own + entry.loan);
  }
  if (loans.size === 0) return finish([...head, ...ranked.slice(p.rerankDepth)]);
  const rest = [...new Set([...head.slice(p.neighbourAfter), ...loans.keys()])].filter((ord) => !kept.includes(ord));
  const rescored = [...kept, ...rest.sort((a, b) => (better(index, final, a, b) ? -1 : 1))];
  const taken = new Set(rescored);
  return finish([...rescored, ...ranked.slice(p.rerankDepth).filter((ord) => !taken.has(ord))]);
}
