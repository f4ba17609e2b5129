import { INTENT_PREFIX } from "../lexicon/intents";
import { CATEGORY_PREFIX, lexicon, MEANING_MAX_TERMS } from "../lexicon/lexicon";
import type { FactIndex } from "./fact-index";
import { idfOf, type Postings } from "./postings";
import type { RankingParams } from "./params";

/** A fact term that matches a query word by meaning, and what a match is worth. */
export interface MeaningMatch {
  /** The fact's term (a category term without its prefix; for an intent, the attribute). */
  term: string;
  via: "neighbour" | "category" | "intent";
  similarity: number;
  /** The facts to walk: the term's postings, or only its short facts' when nothing longer can score by meaning. */
  postings: Postings;
  /** What one occurrence weighs in place of the query word's IDF: similarity², the smaller IDF of the two, the signal's weights. */
  idf: number;
}

/**
 * The fact terms that mean what the query word means, by the shipped lexicon: its nearest
 * neighbours above the floor (siblings weighed down), and the category term when facts hold
 * members of it. Each weighs similarity² times the smaller IDF of the word and the match, so a
 * match by meaning never outweighs the word itself; the strongest `meaningTerms` are kept.
 */
export function meaningMatches(index: FactIndex, word: string, wordIdf: number, known: readonly string[], p: RankingParams): MeaningMatch[] {
  const n = Math.max(index.live, 1);
  const found: MeaningMatch[] = [];
  const consider = (term: string, indexTerm: string, via: MeaningMatch["via"], similarity: number, factor: number): void => {
    const postings = index.postings.get(indexTerm);
    if (postings === undefined || postings.df <= 0 || known.includes(indexTerm)) return;
    const idf = p.meaning * factor * similarity * similarity * Math.min(wordIdf, idfOf(n, postings.df));
    // Only facts of at most MEANING_MAX_TERMS terms get anything by meaning (RankingParams.meaningMaxLength).
    const walked = p.meaningMaxLength <= MEANING_MAX_TERMS ? (postings.short ?? postings) : postings;
    found.push({ term, via, similarity, postings: walked, idf });
  };
  consider(word, CATEGORY_PREFIX + word, "category", p.category, 1);
  const common = lexicon().rankOf(word) < p.commonWords;
  for (const neighbour of lexicon().neighboursOf(word)) {
    if (neighbour.similarity < p.meaningFloor) break;
    if (neighbour.rank < p.generalWords || (common && neighbour.rank < p.commonWords)) continue;
    consider(neighbour.term, neighbour.term, "neighbour", neighbour.similarity, neighbour.sibling ? p.sibling : 1);
  }
  return found.sort((a, b) => b.idf - a.idf || (a.term < b.term ? -1 : 1)).slice(0, p.meaningTerms);
}

/**
 * The facts that state the attribute a query asks for (an intent: lexicon/intents.ts), weighed as
 * a match by meaning of similarity `intent`: its square times the intent's IDF in this workspace.
 * Null when no fact here states it.
 */
export function intentMatch(index: FactIndex, attribute: string, p: RankingParams): MeaningMatch | null {
  const postings = index.postings.get(INTENT_PREFIX + attribute);
  if (postings === undefined || postings.df <= 0) return null;
  const idf = p.meaning * p.intent * p.intent * idfOf(Math.max(index.live, 1), postings.df);
  const walked = p.meaningMaxLength <= MEANING_MAX_TERMS ? (postings.short ?? postings) : postings;
  return { term: attribute, via: "intent", similarity: p.intent, postings: walked, idf };
}
