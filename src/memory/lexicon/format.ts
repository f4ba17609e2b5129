/**
 * The lexicon file's layout (little-endian), written by scripts/build-lexicon.ts and read by
 * `Lexicon`: a header, the terms as UTF-8 joined by newlines, then per term its neighbours and its
 * categories as ranges of flat arrays, so reading it allocates a few typed-array views and one
 * string table, whatever its size.
 *
 *   "MDLX" | version | termCount | stringBytes | neighbourTotal | categoryTotal   (u32 each)
 *   terms (UTF-8, "\n"-joined), zero-padded to 4 bytes
 *   neighbourStart u32[termCount + 1] | neighbourIds u32[neighbourTotal]
 *   categoryStart u32[termCount + 1]  | categoryIds u32[categoryTotal]
 *   neighbourCodes u8[neighbourTotal]: bit 7 sibling, bits 0-6 round(similarity * 127)
 */
const MAGIC = 0x584c444d; // "MDLX"
export const LEXICON_VERSION = 1;
const HEADER_WORDS = 6;
const SIBLING_BIT = 0x80;
const SIMILARITY_STEPS = 127;

export interface LexiconEntry {
  term: string;
  neighbours: { id: number; similarity: number; sibling: boolean }[];
  categories: number[];
}

/** The file for `terms` (ids index it); `entries[i]` describes `terms[i]`, later terms have none. */
export function encodeLexicon(terms: readonly string[], entries: readonly LexiconEntry[]): Uint8Array {
  const strings = new TextEncoder().encode(terms.join("\n"));
  const padded = Math.ceil(strings.byteLength / 4) * 4;
  const neighbourTotal = entries.reduce((sum, e) => sum + e.neighbours.length, 0);
  const categoryTotal = entries.reduce((sum, e) => sum + e.categories.length, 0);
  const words = HEADER_WORDS + padded / 4 + (terms.length + 1) * 2 + neighbourTotal + categoryTotal;
  const bytes = new Uint8Array(words * 4 + neighbourTotal);
  const u32 = new Uint32Array(bytes.buffer, 0, words);
  u32.set([MAGIC, LEXICON_VERSION, terms.length, strings.byteLength, neighbourTotal, categoryTotal]);
  bytes.set(strings, HEADER_WORDS * 4);
  let at = HEADER_WORDS + padded / 4;
  const ranges = (lists: readonly number[][]): void => {
    const starts = at;
    const total = lists.reduce((sum, l) => sum + l.length, 0);
    let next = starts + terms.length + 1;
    for (let i = 0; i <= terms.length; i++) {
      u32[starts + i] = next - (starts + terms.length + 1);
      if (i < lists.length) for (const id of lists[i]!) u32[next++] = id;
    }
    at = starts + terms.length + 1 + total;
  };
  ranges(entries.map((e) => e.neighbours.map((n) => n.id)));
  ranges(entries.map((e) => e.categories));
  let code = words * 4;
  for (const e of entries) {
    for (const n of e.neighbours) bytes[code++] = Math.round(Math.max(0, Math.min(1, n.similarity)) * SIMILARITY_STEPS) | (n.sibling ? SIBLING_BIT : 0);
  }
  return bytes;
}

/** One neighbour of a term as the ranking uses it. */
export interface Neighbour {
  term: string;
  /** How common the word is: its place in the frequency order of the source (0 is the most common). */
  rank: number;
  similarity: number;
  /** Both words fall directly under one WordNet category ("monday"/"tuesday"): related, rarely the same thing. */
  sibling: boolean;
}

/** The decoded lexicon: lookups by term, no copies of the file's arrays. */
export class Lexicon {
  readonly terms: string[];
  private readonly idOf: Map<string, number>;
  private readonly neighbourStart: Uint32Array;
  private readonly neighbourIds: Uint32Array;
  private readonly neighbourCodes: Uint8Array;
  private readonly categoryStart: Uint32Array;
  private readonly categoryIds: Uint32Array;
  private readonly neighbourCache = new Map<string, readonly Neighbour[]>();

  constructor(bytes: Uint8Array) {
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const header = new Uint32Array(aligned.buffer, aligned.byteOffset, HEADER_WORDS);
    const [magic, version, termCount, stringBytes, neighbourTotal, categoryTotal] = header as unknown as [number, number, number, number, number, number];
    if (magic !== MAGIC || version !== LEXICON_VERSION) throw new Error("lexicon: not a lexicon file of this version");
    this.terms = new TextDecoder().decode(aligned.subarray(HEADER_WORDS * 4, HEADER_WORDS * 4 + stringBytes)).split("\n");
    if (this.terms.length !== termCount) throw new Error("lexicon: term table does not match its header");
    this.idOf = new Map(this.terms.map((t, i) => [t, i]));
    let at = aligned.byteOffset + HEADER_WORDS * 4 + Math.ceil(stringBytes / 4) * 4;
    const take = (n: number): Uint32Array => {
      const view = new Uint32Array(aligned.buffer, at, n);
      at += n * 4;
      return view;
    };
    this.neighbourStart = take(termCount + 1);
    this.neighbourIds = take(neighbourTotal);
    this.categoryStart = take(termCount + 1);
    this.categoryIds = take(categoryTotal);
    this.neighbourCodes = new Uint8Array(aligned.buffer, at, neighbourTotal);
  }

  /** The term is a known word (one of the most frequent English words the lexicon keeps). */
  has(term: string): boolean {
    return this.idOf.has(term);
  }

  /** The term's place in the frequency order (0 is the most common word); Infinity for a term the lexicon lacks. */
  rankOf(term: string): number {
    return this.idOf.get(term) ?? Number.POSITIVE_INFINITY;
  }

  /** The term's nearest neighbours by meaning, most similar first; empty for a term the lexicon lacks. */
  neighboursOf(term: string): readonly Neighbour[] {
    const cached = this.neighbourCache.get(term);
    if (cached !== undefined) return cached;
    const id = this.idOf.get(term);
    const found: Neighbour[] = [];
    if (id !== undefined) {
      for (let i = this.neighbourStart[id]!; i < this.neighbourStart[id + 1]!; i++) {
        const code = this.neighbourCodes[i]!;
        found.push({
          term: this.terms[this.neighbourIds[i]!]!,
          rank: this.neighbourIds[i]!,
          similarity: (code & ~SIBLING_BIT) / SIMILARITY_STEPS,
          sibling: (code & SIBLING_BIT) !== 0,
        });
      }
    }
    this.neighbourCache.set(term, found);
    return found;
  }

  /** The categories the term belongs to (WordNet hypernyms as terms, nearest first). */
  categoriesOf(term: string): string[] {
    const id = this.idOf.get(term);
    if (id === undefined) return [];
    const found: string[] = [];
    for (let i = this.categoryStart[id]!; i < this.categoryStart[id + 1]!; i++) found.push(this.terms[this.categoryIds[i]!]!);
    return found;
  }
}
