import { idfOf, type Postings } from "./postings";
import type { FactIndex } from "./fact-index";
import { lexicon } from "../lexicon/lexicon";
import { intentsOf } from "../lexicon/intents";
import { intentMatch, type MeaningMatch, meaningMatches } from "./meaning";
import { RANKING, type RankingParams } from "./params";
import { PHRASING_MAX_QUERY } from "./phrasing";
import { termsOf, TrigramProbe, trigramsOf, trigramSimilarity } from "./terms";
import { type QueryTime, readQueryTime, withoutExpressions } from "../time/query-time";

/** Attributes a query asks for, considered at most (the first it names). */
const MAX_QUERY_INTENTS = 4;
/** Distinct query terms considered at most (a 2000-character query has hundreds of words). */
const MAX_QUERY_TERMS = 64;
/** A query word the workspace has never seen expands to at most this many known terms. */
const PREFIX_EXPANSIONS = 3;
const FUZZY_EXPANSIONS = 2;
/** Trigram similarity a known term needs to stand in for an unknown query word (a typo). */
const FUZZY_MIN_SIMILARITY = 0.3;

interface TermGroup {
  /** The query word's term. */
  word: string;
  /** The query word's own term, or the known terms it expands to (empty when only meaning matches). */
  terms: string[];
  postings: Postings[];
  idf: number[];
  /** Fact terms that match the word by meaning; a fact scores the best one only when it lacks the word. */
  meaning: MeaningMatch[];
  /** Facts holding any of the terms (counted once per term). */
  df: number;
}

/** A query, analysed once against one index and reusable across the packet's layers. */
export interface QueryPlan {
  /** The query has searchable words (not only stop words or punctuation). */
  hasTerms: boolean;
  /**
   * It names a time and none of its words is known here ("what happened last week?"): the time
   * is what it asks for, so the facts nearest it are the answer rather than none.
   */
  onlyTime: boolean;
  groups: TermGroup[];
  namedSubjects: Set<number>;
  /** The query's trigrams for the phrasing re-score; null when the query is too long to have phrasing. */
  trigrams: TrigramProbe | null;
  /** The times the query names, read at the read's instant. */
  time: QueryTime;
}

/**
 * Reads the times the query names at the read's instant `now`, splits the rest into terms, weighs
 * each by its IDF in this workspace, expands words the workspace has never seen (a typo, a partial
 * word) to known terms that start with them or are spelled closely, and finds the subjects the
 * query names as a phrase.
 */
export function planQuery(index: FactIndex, query: string, params: RankingParams = RANKING, now: number = Date.now()): QueryPlan {
  const time: QueryTime = params.time > 0 ? readQueryTime(query, now) : { windows: [], spans: [], order: false };
  const words = time.spans.length > 0 ? withoutExpressions(query, time) : query;
  const sequence = termsOf(words);
  const distinct = [...new Set(sequence)].slice(0, MAX_QUERY_TERMS);
  const n = Math.max(index.live, 1);
  const groups: TermGroup[] = [];
  for (const term of distinct) {
    const own = index.postings.get(term);
    // A word the workspace lacks is read as a partial word, and as a typo only when it is no known
    // English word: "pet" is not a misspelt "per", it asks for a match by meaning.
    const known = own && own.df > 0 ? [term] : term.length >= 3 ? expand(index, term, !(params.meaning > 0 && lexicon().has(term))) : [];
    const meaning = params.meaning > 0 ? meaningMatches(index, term, idfOf(n, own?.df ?? 0), known, params) : [];
    if (known.length === 0 && meaning.length === 0) continue;
    const postings = known.map((t) => index.postings.get(t)!);
    groups.push({ word: term, terms: known, postings, idf: postings.map((p) => idfOf(n, p.df)), meaning, df: postings.reduce((sum, p) => sum + p.df, 0) });
  }
  // The attributes the query asks for are matches by meaning of the words that asked (the last
  // of them the workspace knows: "family doctor" -> "doctor"), so a fact holding those words
  // scores them once, as words; the words known nowhere get a group of their own.
  if (params.meaning > 0 && params.intent > 0) {
    for (const intent of intentsOf(words).slice(0, MAX_QUERY_INTENTS)) {
      const match = intentMatch(index, intent.attribute, params);
      if (match === null) continue;
      const asked = termsOf(intent.words);
      const group = groups.findLast((g) => asked.includes(g.word));
      if (group !== undefined) group.meaning.push(match);
      else groups.push({ word: asked.at(-1) ?? intent.phrase, terms: [], postings: [], idf: [], meaning: [match], df: match.postings.df });
    }
  }
  groups.sort((a, b) => a.df - b.df);
  // A named subject's terms must be planned terms too: its facts hold them, so the bonus only
  // ever lifts a fact that matches the query (past MAX_QUERY_TERMS it would not).
  const planned = new Set(distinct);
  const namedSubjects = new Set<number>();
  for (let i = 0; i < sequence.length; i++) {
    for (const subject of index.subjectsByFirstTerm.get(sequence[i]!) ?? []) {
      const terms = index.subjects[subject]!.terms;
      if (terms.every((t, j) => sequence[i + j] === t && planned.has(t))) namedSubjects.add(subject);
    }
  }
  const trigrams = query.length <= PHRASING_MAX_QUERY ? new TrigramProbe(trigramsOf(words)) : null;
  return { hasTerms: sequence.length > 0, onlyTime: time.windows.length > 0 && groups.length === 0, groups, namedSubjects, trigrams, time };
}

function expand(index: FactIndex, word: string, typos: boolean): string[] {
  const bucket = (index.termsByPrefix.get(word.slice(0, 2)) ?? []).filter((t) => index.postings.get(t)!.df > 0);
  const df = (t: string): number => index.postings.get(t)!.df;
  const prefixed = bucket
    .filter((t) => t.startsWith(word))
    .sort((a, b) => df(b) - df(a) || (a < b ? -1 : 1))
    .slice(0, PREFIX_EXPANSIONS);
  if (!typos) return prefixed;
  const wordTrigrams = trigramsOf(word);
  const close = bucket
    .map((t) => ({ t, sim: trigramSimilarity(wordTrigrams, trigramsOf(t)) }))
    .filter((c) => c.sim >= FUZZY_MIN_SIMILARITY)
    .sort((a, b) => b.sim - a.sim || df(b.t) - df(a.t) || (a.t < b.t ? -1 : 1))
    .slice(0, FUZZY_EXPANSIONS)
    .map((c) => c.t);
  return [...new Set([...prefixed, ...close])];
}
