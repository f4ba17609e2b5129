import { stem } from "porter2";
import { HASH_SEED, hashOf, hashUnit, TermCache } from "./term-cache";

/**
 * PostgreSQL's `english` stop words (the Snowball list): words that say nothing about what a fact
 * is about. Query and fact text go through the same list, so a query of only these words has no
 * terms at all.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
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
 * Terms of recently seen words ("" for a stop word or an over-long word). Facts and queries reuse
 * a small vocabulary, and stemming is most of tokenising; bounded, so memory stays flat. One
 * lookup answers both "is it a term" and "which".
 */
const terms = new TermCache(200_000, (word) => (word.length > MAX_WORD_LENGTH || STOP_WORDS.has(word) ? "" : stemOf(word)));

/** The term of one lower-cased word: stemmed when it is an English word. */
export function termOf(word: string): string {
  return terms.lookup(word, 0, word.length, hashOf(word)) || stemOf(word);
}

// Snowball English (the stemmer PostgreSQL's `english` configuration uses) for English words;
// numbers and other scripts are kept as they are.
const stemOf = (word: string): string => (ENGLISH_WORD.test(word) ? stem(word) : word);

/** Which ASCII characters are word characters (letters and digits). */
const ASCII_WORD = new Uint8Array(128).map((_, code) => ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90) ? 1 : 0));

function isWordCode(code: number): boolean {
  return code < 128 ? ASCII_WORD[code] === 1 : WORD_CHARACTER.test(String.fromCodePoint(code));
}

/**
 * Calls `each` with the start, end and `hashOf` of every word of `lower`: runs of letters and
 * digits of any script. A hand-written scan (ASCII decided by a table, the rest by Unicode
 * property) because index builds tokenise every fact and a global Unicode regex is several times slower.
 */
function scanWords(lower: string, each: (start: number, end: number, hash: number) => void): void {
  let start = -1;
  let hash = HASH_SEED;
  for (let i = 0; i < lower.length; ) {
    let code = lower.charCodeAt(i);
    let width = 1;
    if (code >= 0xd800) {
      code = lower.codePointAt(i)!;
      width = code > 0xffff ? 2 : 1;
    }
    if (isWordCode(code)) {
      if (start < 0) {
        start = i;
        hash = HASH_SEED;
      }
      hash = hashUnit(hash, lower.charCodeAt(i));
      if (width === 2) hash = hashUnit(hash, lower.charCodeAt(i + 1));
    } else if (start >= 0) {
      each(start, i, hash);
      start = -1;
    }
    i += width;
  }
  if (start >= 0) each(start, lower.length, hash);
}

/** The lower-cased words of a text: runs of letters and digits of any script. */
export function wordsOf(text: string): string[] {
  const lower = text.toLowerCase();
  const words: string[] = [];
  scanWords(lower, (start, end) => words.push(lower.slice(start, end)));
  return words;
}

/**
 * The searchable terms of a text, in order, repeats kept: lower-cased words (letters and digits of
 * any script; an apostrophe or any punctuation splits), stop words dropped, English words stemmed
 * ("managers" and "manager" are both "manag"). Used for facts and queries alike.
 */
export function termsOf(text: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  scanWords(lower, (start, end, hash) => {
    const term = terms.lookup(lower, start, end, hash);
    if (term !== "") found.push(term);
  });
  return found;
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

const SPACE = 0x20;
/** A trigram of three UTF-16 units as one exact number (48 bits). */
const trigramCode = (a: number, b: number, c: number): number => a * 2 ** 32 + b * 2 ** 16 + c;
const trigramHash = (a: number, b: number, c: number): number => Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0x85ebca6b) ^ c;

/**
 * A query's trigrams compiled to answer "what share of them does this text hold" in one pass over
 * the text: the text's padded trigrams (as trigramsOf forms them) are rolled over its words as
 * numbers and looked up in an open-addressing table of the query's. No string is built per text,
 * which matters because the phrasing re-score runs on every search.
 */
export class TrigramProbe {
  readonly size: number;
  /** Trigram codes by hash slot (-1: empty), at most a quarter full so probes stay short. */
  private readonly keys: Float64Array;
  private readonly mask: number;
  /** When each slot's trigram was last counted (`stamp` of the text). */
  private readonly seenIn: Uint32Array;
  private stamp = 0;

  constructor(trigrams: Iterable<string>) {
    const distinct = [...new Set(trigrams)].filter((t) => t.length === 3);
    let capacity = 16;
    while (capacity < distinct.length * 4) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(-1);
    this.mask = capacity - 1;
    this.seenIn = new Uint32Array(capacity);
    for (const t of distinct) {
      const [a, b, c] = [t.charCodeAt(0), t.charCodeAt(1), t.charCodeAt(2)];
      let slot = trigramHash(a, b, c) & this.mask;
      while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask;
      this.keys[slot] = trigramCode(a, b, c);
    }
    this.size = distinct.length;
  }

  /** The share of the probe's trigrams the text holds (0 for an empty probe). */
  shareIn(text: string): number {
    if (this.size === 0) return 0;
    const stamp = ++this.stamp;
    const lower = text.toLowerCase();
    const n = lower.length;
    let shared = 0;
    // The two units before the current one in the padded word ("  " at a word's start); `a`
    // is -1 outside a word.
    let a = -1;
    let b = SPACE;
    for (let i = 0; i < n; i++) {
      const unit = lower.charCodeAt(i);
      const code = lower.codePointAt(i)!;
      if (!isWordCode(code)) {
        // The closing space of a word's padding.
        if (a >= 0) shared += this.take(a, b, SPACE, stamp);
        a = -1;
        continue;
      }
      if (a < 0) {
        a = SPACE;
        b = SPACE;
      }
      shared += this.take(a, b, unit, stamp);
      a = b;
      b = unit;
      if (code > 0xffff) {
        const low = lower.charCodeAt(++i);
        shared += this.take(a, b, low, stamp);
        a = b;
        b = low;
      }
    }
    if (a >= 0) shared += this.take(a, b, SPACE, stamp);
    return shared / this.size;
  }

  /** 1 when the trigram (a, b, c) is the probe's and not yet counted for this text, else 0. */
  private take(a: number, b: number, c: number, stamp: number): number {
    const code = trigramCode(a, b, c);
    const keys = this.keys;
    for (let slot = trigramHash(a, b, c) & this.mask; keys[slot] !== -1; slot = (slot + 1) & this.mask) {
      if (keys[slot] !== code) continue;
      if (this.seenIn[slot] === stamp) return 0;
      this.seenIn[slot] = stamp;
      return 1;
    }
    return 0;
  }
}

/** pg_trgm's `similarity`: shared trigrams over the union of both sets. */
export function trigramSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}
