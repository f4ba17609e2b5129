/** Evidence recall@k and hit@k, per category and overall, and latency percentiles. */
export const KS = [1, 5, 10, 20] as const;

export interface QuestionResult {
  category: number;
  evidence: readonly string[];
  /** Turn ids of the ranked results, best first (a result may stand for several identical turns). */
  ranked: readonly (readonly string[])[];
}

export interface Scores {
  n: number;
  recall: Record<(typeof KS)[number], number>;
  hit10: number;
}

function foundWithin(q: QuestionResult, k: number): Set<string> {
  const found = new Set<string>();
  for (const ids of q.ranked.slice(0, k)) for (const id of ids) found.add(id);
  return found;
}

export function score(results: readonly QuestionResult[]): Scores {
  const recall = { 1: 0, 5: 0, 10: 0, 20: 0 };
  let hit10 = 0;
  for (const q of results) {
    for (const k of KS) {
      const found = foundWithin(q, k);
      recall[k] += q.evidence.filter((id) => found.has(id)).length / q.evidence.length;
    }
    const top10 = foundWithin(q, 10);
    if (q.evidence.some((id) => top10.has(id))) hit10 += 1;
  }
  const n = results.length;
  const pct = (x: number): number => (n === 0 ? Number.NaN : (100 * x) / n);
  return { n, recall: { 1: pct(recall[1]), 5: pct(recall[5]), 10: pct(recall[10]), 20: pct(recall[20]) }, hit10: pct(hit10) };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}
