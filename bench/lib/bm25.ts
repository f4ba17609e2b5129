/**
 * A bare in-process BM25 (Okapi, k1 = 1.2, b = 0.75) over plain lower-cased word tokens: no
 * stemming, and no stop words unless given. The comparison row the service's ranking is measured against.
 */
export const tokenize = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A common short English stop-word list (the NLTK one), for the "with stop words" variant. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under again " +
    "further then once here there when where why how all any both each few more most other some such no nor not only own " +
    "same so than too very s t can will just don should now"
  ).split(" "),
);

export class Bm25 {
  private readonly docs: Map<string, number>[] = [];
  private readonly lengths: number[] = [];
  private readonly df = new Map<string, number>();
  private avgdl = 1;

  constructor(
    texts: readonly string[],
    private readonly stopWords: ReadonlySet<string> = new Set(),
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    let total = 0;
    for (const text of texts) {
      const tf = new Map<string, number>();
      const tokens = this.tokens(text);
      for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
      for (const token of tf.keys()) this.df.set(token, (this.df.get(token) ?? 0) + 1);
      this.docs.push(tf);
      this.lengths.push(tokens.length);
      total += tokens.length;
    }
    this.avgdl = Math.max(total / Math.max(texts.length, 1), 1);
  }

  private tokens(text: string): string[] {
    return tokenize(text).filter((token) => !this.stopWords.has(token));
  }

  /** Indexes of the best `limit` documents (score > 0); ties go to the earlier document. */
  search(query: string, limit: number): number[] {
    const n = this.docs.length;
    const terms = [...new Set(this.tokens(query))];
    const scored: { index: number; score: number }[] = [];
    for (let i = 0; i < n; i++) {
      const doc = this.docs[i] as Map<string, number>;
      const norm = this.k1 * (1 - this.b + (this.b * (this.lengths[i] ?? 0)) / this.avgdl);
      let score = 0;
      for (const term of terms) {
        const tf = doc.get(term);
        if (tf === undefined) continue;
        const df = this.df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (this.k1 + 1)) / (tf + norm);
      }
      if (score > 0) scored.push({ index: i, score });
    }
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, limit).map((s) => s.index);
  }
}
