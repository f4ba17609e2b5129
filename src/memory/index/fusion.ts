/**
 * Lexical and vector rankings as one (only with an embeddings endpoint configured): reciprocal
 * rank fusion. Each list gives a fact 1 / (K + rank); a fact in both gets both. Ranks, not
 * scores, are fused, so neither list's scale (BM25 sums, cosines) has to be calibrated against
 * the other, and a fact not yet embedded still ranks by its words: reads see writes.
 */
import type { SemanticQuery } from "../../embeddings/semantic";
import type { FactIndex } from "./fact-index";
import { isVisible, type ReadFilter } from "./filter";

/** The fusion constant of Cormack et al.: ranks past the first few differ little. */
const RRF_K = 60;
/** How deep each list is read, at least. */
export const FUSION_DEPTH = 50;

export interface FusedRanking {
  ords: number[];
  /** Cosine similarity of each fact the vector list held, and its rank there (1-based). */
  vector: Map<number, { similarity: number; rank: number }>;
}

/**
 * The fused order of `lexical` (ordinals, best first) and the facts nearest the query vector, the
 * same visibility applied before either is ranked, the first `limit`.
 */
export function fuseWithVectors(
  index: FactIndex,
  lexical: readonly number[],
  semantic: SemanticQuery,
  filter: ReadFilter,
  options: { limit: number; exclude?: ReadonlySet<number>; onlyEndUser?: boolean },
): FusedRanking {
  // A vector rank counts only for a fact at least this similar to the query: an unrelated
  // question finds nothing by vector, and a fact the words found gains nothing from a vector that
  // is merely among the nearest of a small workspace.
  const floor = semantic.minSimilarity;
  const accept = (factId: string): boolean => {
    const ord = index.ordinal(factId);
    if (ord === undefined || !isVisible(index, ord, filter) || options.exclude?.has(ord)) return false;
    return options.onlyEndUser !== true || (filter.endUser >= 0 && index.endUserOf[ord] === filter.endUser);
  };
  const depth = Math.max(FUSION_DEPTH, options.limit);
  const hits = semantic.vectors.nearest(semantic.query, depth, accept);
  const vector = new Map<number, { similarity: number; rank: number }>();
  for (const [i, hit] of hits.entries()) vector.set(index.ordinal(hit.factId)!, { similarity: hit.similarity, rank: i + 1 });

  const scores = new Map<number, number>();
  for (const [i, ord] of lexical.slice(0, depth).entries()) scores.set(ord, 1 / (RRF_K + i + 1));
  for (const [ord, { similarity, rank }] of vector) {
    if (similarity < floor) continue;
    scores.set(ord, (scores.get(ord) ?? 0) + 1 / (RRF_K + rank));
  }
  const ords = [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || a - b).slice(0, options.limit);
  return { ords, vector };
}
