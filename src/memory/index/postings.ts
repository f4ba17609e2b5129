import { intentTermsOf } from "../lexicon/intents";
import { categoryTermsOf, MEANING_MAX_TERMS } from "../lexicon/lexicon";
import { termsOf } from "./terms";

/** Ordinals are packed with the term frequency (low 8 bits) into one Uint32 per posting. */
export const TF_BITS = 8;
export const TF_MAX = (1 << TF_BITS) - 1;

/** The facts holding one term: packed (ordinal, tf) in ordinal order, dead ordinals included. */
export interface Postings {
  data: Uint32Array;
  size: number;
  /** Live facts holding the term: the document frequency of BM25's IDF. */
  df: number;
  /**
   * The largest tf and the shortest fact among the postings (dead ones included until
   * compaction): what bounds the term's BM25 weight for MaxScore. A removal leaves them as they
   * are, which keeps them bounds.
   */
  maxTf: number;
  minLength: number;
  /**
   * The postings of the facts short enough to match by meaning (at most MEANING_MAX_TERMS terms),
   * kept once the list holds a longer fact; absent while every fact in it is short. A match by
   * meaning walks only these: in a memory of pasted chat turns most facts are long, and walking
   * their postings for a word that gives them nothing was a third of a search's postings.
   */
  short?: Postings;
}

/** BM25's IDF of a term held by `df` of `n` live facts (never negative). */
export const idfOf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

export const newPostings = (): Postings => ({ data: new Uint32Array(2), size: 0, df: 0, maxTf: 0, minLength: 0xffff });

/** Adds one to the term frequency of the list's last posting (up to TF_MAX). */
export function countAgain(p: Postings): void {
  const last = p.data[p.size - 1]!;
  const tf = last & TF_MAX;
  if (tf === TF_MAX) return;
  p.data[p.size - 1] = last + 1;
  p.maxTf = Math.max(p.maxTf, tf + 1);
}

/** Heap bytes of a postings object and its array beyond the array's contents (measured in bench/). */
export const POSTINGS_OVERHEAD = 96;

/**
 * The terms a fact is indexed under: the terms of its subject and text (repeats kept, their count
 * is the term frequency), and, each once, the categories of those words, so a question naming the
 * category ("which sports") finds the fact naming a member ("tennis"), and the attributes its text
 * names, so a question asking for one ("where did I grow up?") finds the fact stating it ("I was
 * raised in York"). A fact longer than MEANING_MAX_TERMS gets neither: it matches nothing by meaning.
 */
export function factTerms(subject: string, text: string): { terms: string[]; meaningTerms: string[] } {
  const terms = termsOf(`${subject} ${text}`);
  if (terms.length > MEANING_MAX_TERMS) return { terms, meaningTerms: [] };
  return { terms, meaningTerms: [...categoryTermsOf(terms), ...intentTermsOf(text)] };
}
