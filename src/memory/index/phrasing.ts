import type { FactIndex } from "./fact-index";
import type { RankingParams } from "./params";
import type { TrigramProbe } from "./terms";

/** Queries longer than this skip the phrasing re-score: long text carries no phrasing signal. */
export const PHRASING_MAX_QUERY = 200;

/**
 * The phrasing signal of the re-score: `phrasing` times the share of the query's trigrams (planned
 * once, `QueryPlan.trigrams`) that the fact's text holds. Only the best `rerankDepth` get it.
 */
export function phrasingSignal(index: FactIndex, trigrams: TrigramProbe, p: RankingParams, ord: number): number {
  return p.phrasing * trigrams.shareIn(index.text(ord));
}
