import type { FactIndex } from "./fact-index";
import { sameConversation } from "./neighbours";
import type { RankingParams } from "./params";

/**
 * Spread over conversations (docs/memory.md): when the best matches crowd into one conversation,
 * the first `spreadDepth` places take at most `spreadPerConversation` facts of one while a fact of
 * another scores at least `spread` times the best left; the crowded ones follow, in order. An
 * answer told across several sessions then has each of them among the first few. A fact moved up
 * is lifted (`lifts`) to the score of the one it went before, so the scores stay the order's. Facts of
 * one conversation: the same end user (or none), observed within NEIGHBOUR_WINDOW_MS of each other.
 */
export function spreadOverConversations(
  index: FactIndex,
  p: RankingParams,
  ordered: readonly number[],
  scoreOf: (ord: number) => number,
  lifts: Map<number, number>,
): number[] {
  if (p.spread === 0 || ordered.length <= 1) return [...ordered];
  const head = ordered.slice(0, p.rerankDepth);
  const picked: number[] = [];
  while (picked.length < p.spreadDepth && head.length > 0) {
    const best = scoreOf(head[0]!);
    const crowded = (ord: number): boolean => picked.filter((q) => sameConversation(index, q, ord)).length >= p.spreadPerConversation;
    const at = head.findIndex((ord) => !crowded(ord) && scoreOf(ord) >= p.spread * best);
    const [ord] = head.splice(Math.max(at, 0), 1);
    if (at > 0) lifts.set(ord!, best - scoreOf(ord!));
    picked.push(ord!);
  }
  return [...picked, ...head, ...ordered.slice(p.rerankDepth)];
}
