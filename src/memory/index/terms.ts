import { stem } from "porter2";

/**
 * PostgreSQL's `english` stop words (the Snowball list): words that say nothing about what a fact
 * is about. Query and fact text go through the same list, so a query of only these words has no
 * terms at all.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under again " +
    "further then once here there when where why how all any both each few more most other some such no nor not only own " +
    "same so than too very s t can will just don should now"
  ).split(" "),
);

/** Longer "words" (hashes, base64, URLs run together) are not searchable terms. */
const MAX_WORD_LENGTH = 64;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const ENGLISH_WORD = /^[a-z]+$/;

/**
 * Stems of recently seen words. Facts and queries reuse a small vocabulary, and stemming is most
 * of tokenising; a bounded map, cleared when full, keeps memory flat.
 */
const stems = new Map<string, string>();
const STEM_CACHE_ENTRIES = 200_000;

export function termOf(word: string): string {
  const known = stems.get(word);
  if (known !== undefined) return known;
  // Snowball English (the stemmer PostgreSQL's `english` configuration uses) for English words;
  // numbers and other scripts are kept as they are.
  const term = ENGLISH_WORD.test(word) ? stem(word) : word;
  if (stems.size >= STEM_CACHE_ENTRIES) stems.clear();
  stems.set(word, term);
  return term;
}

function isWordCode(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD_CHARACTER.test(String.fromCodePoint(code));
}

/**
 * The lower-cased words of a text: runs of letters and digits of any script. A hand-written scan
 * (ASCII decided by char code, the rest by Unicode property) because index builds tokenise every
 * fact and a global Unicode regex is several times slower.
 */
export function wordsOf(text: string): string[] {
  const lower = text.toLowerCase();
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length; ) {
    const code = lower.codePointAt(i)!;
    if (isWordCode(code)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      words.push(lower.slice(start, i));
      start = -1;
    }
    i += code > 0xffff ? 2 : 1;
  }
  if (start >= 0) words.push(lower.slice(start));
  return words;
}

/**
 * The searchable terms of a text, in order, repeats kept: lower-cased words (letters and digits of
 * any script; an apostrophe or any punctuation splits), stop words dropped, English words stemmed
 * ("managers" and "manager" are both "manag"). Used for facts and queries alike.
 */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    if (word.length > MAX_WORD_LENGTH || STOP_WORDS.has(word)) continue;
    terms.push(termOf(word));
  }
  return terms;
}

/**
 * The trigrams of a text as pg_trgm forms them: per lower-cased word, padded with two spaces in
 * front and one behind ("cat" -> "  c", " ca", "cat", "at "). Used for typo expansion and for the
 * phrasing re-score.
 */
export function trigramsOf(text: string, into: Set<string> = new Set()): Set<string> {
  for (const word of wordsOf(text)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) into.add(padded.slice(i, i + 3));
  }
  return into;
}

/** pg_trgm's `similarity`: shared trigrams over the union of both sets. */
export function trigramSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}
