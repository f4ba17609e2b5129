import { MEANING_MAX_TERMS } from "../lexicon/lexicon";

/**
 * The ranking function's parameters as one table, chosen on the development sets by
 * bench/retrieval.ts (LoCoMo's short chat turns and LongMemEval's long sessions, each beside a
 * plain BM25); docs/architecture.md says what each signal is for.
 */
export interface RankingParams {
  /** BM25 term-frequency saturation: how much a word said again adds. */
  k1: number;
  /** BM25 length normalisation: 0 ignores a fact's length, 1 divides by it in full. */
  b: number;
  /**
   * Lengths (in terms) below this count as this: among one-line statements length says little
   * about focus, so normalisation only sets in for longer texts (notes, pasted turns).
   */
  minLength: number;
  /** Added when the query names the fact's subject as a phrase ("what did Priya decide"). */
  subject: number;
  /** Added to facts about the end user named in the call. */
  endUser: number;
  /** Times the fact's confidence (0-1). */
  confidence: number;
  /** Times exp(-age / recencyDays). */
  recency: number;
  recencyDays: number;
  /** Taken from a short fact phrased as a question: it asks rather than records. */
  question: number;
  /** Times the share of the query's trigrams the fact holds, for the best `rerankDepth`. */
  phrasing: number;
  rerankDepth: number;
  /** The share of its score a strong match lends its conversation neighbours (0: none). */
  neighbour: number;
  /** How many of the best facts lend. */
  neighbourSources: number;
  /** How many facts on each side a match lends to; each further one gets `neighbourDecay` times the last's loan. */
  neighbourReach: number;
  neighbourDecay: number;
  /**
   * Facts longer than this (in terms) are not lent to, and a workspace whose facts are this long on
   * average lends nothing: a long turn is ranked on its own many words.
   */
  neighbourMaxLength: number;
  /** The best this many keep their places; loans rank neighbours among the rest. */
  neighbourAfter: number;
  /**
   * Spread over conversations: a fact of another conversation takes a place among the first
   * `spreadDepth` from one of a conversation already holding `spreadPerConversation` of them when
   * it scores at least this times the best left. 0 spreads nothing.
   */
  spread: number;
  spreadDepth: number;
  spreadPerConversation: number;
  /**
   * The meaning signal (docs/memory.md, "Search by meaning"): a query word the fact does not hold
   * scores through its best match by meaning in the fact, at similarity² times this times the
   * word's IDF. 0 turns the signal off (the bench's switch).
   */
  meaning: number;
  /** The least similarity a neighbour needs to count: below it, neighbours are mostly noise. */
  meaningFloor: number;
  /** The similarity a category match counts as ("sports" against a fact naming "tennis"). */
  category: number;
  /**
   * The similarity a match of intents counts as: the query asks for an attribute the fact states
   * ("where did I grow up?" against "I was raised in York"). 0 reads no intents.
   */
  intent: number;
  /** Times a sibling neighbour's weight ("monday"/"tuesday": related, rarely the same thing). */
  sibling: number;
  /** Neighbours (and categories) tried per query word at most, the most similar first. */
  meaningTerms: number;
  /**
   * Words this common (by frequency rank) are general: between two of them ("call"/"follow",
   * "night"/"friday") closeness says nothing, so a neighbour counts only when one side is rarer.
   */
  commonWords: number;
  /** Words this common ("time", "day", "every") stand for nothing in particular: never a neighbour that counts. */
  generalWords: number;
  /**
   * Facts longer than this (in terms) get nothing by meaning: a pasted chat turn or note holds so
   * many words that some neighbour of any query word is in it by chance. The index keeps no
   * categories past MEANING_MAX_TERMS, so a larger value only lets neighbours in.
   */
  meaningMaxLength: number;
  /**
   * Times a fact's lift by the time the query names (docs/memory.md, "Time in the question"):
   * 1 when observed inside the window, fading outside it. 0 reads no time in queries (the
   * bench's switch): the expressions' words are then plain terms again.
   */
  time: number;
}

export const RANKING: Readonly<RankingParams> = {
  k1: 1.6,
  b: 1.0,
  minLength: 25,
  subject: 3.0,
  endUser: 0.5,
  confidence: 0.2,
  recency: 0.2,
  recencyDays: 180,
  question: 1.0,
  phrasing: 2.0,
  rerankDepth: 40,
  neighbour: 0.4,
  neighbourSources: 5,
  neighbourReach: 2,
  neighbourDecay: 0.8,
  neighbourMaxLength: 40,
  neighbourAfter: 5,
  spread: 0.8,
  spreadDepth: 5,
  spreadPerConversation: 2,
  meaning: 1.0,
  meaningFloor: 0.5,
  category: 0.7,
  intent: 0.7,
  sibling: 0.5,
  meaningTerms: 8,
  commonWords: 2000,
  generalWords: 300,
  meaningMaxLength: MEANING_MAX_TERMS,
  time: 3.0,
};
