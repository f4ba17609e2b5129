/**
 * Values of recently seen words, found by the word's characters where they stand in the text.
 * Tokenising looks up every word of every fact; slicing each out of its text to ask a Map (a new
 * string, hashed again) cost more than the rest of an index build's tokenising. Here the scan
 * hashes the word as it reads it, and a hit compares characters in place: no string is made.
 *
 * An open-addressing table (linear probing, at most half full); cleared when it holds
 * `maxEntries` words, so memory stays flat whatever the vocabulary.
 */

/** FNV-1a over UTF-16 units: `hashUnit` folds one unit into a hash begun at `HASH_SEED`. */
export const HASH_SEED = 0x811c9dc5 | 0;
export const hashUnit = (hash: number, unit: number): number => Math.imul(hash ^ unit, 0x01000193);

export function hashOf(word: string): number {
  let hash = HASH_SEED;
  for (let i = 0; i < word.length; i++) hash = hashUnit(hash, word.charCodeAt(i));
  return hash;
}

const INITIAL_CAPACITY = 1024;

export class TermCache {
  private words: (string | undefined)[] = [];
  private values: string[] = [];
  private hashes = new Int32Array(0);
  private mask = 0;
  private size = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly compute: (word: string) => string,
  ) {
    this.reset(INITIAL_CAPACITY);
  }

  /** The value of `text.slice(start, end)`, whose `hashOf` is `hash`. */
  lookup(text: string, start: number, end: number, hash: number): string {
    const length = end - start;
    let slot = hash & this.mask;
    for (let word = this.words[slot]; word !== undefined; word = this.words[slot]) {
      if (this.hashes[slot] === hash && word.length === length && sameUnits(word, text, start)) return this.values[slot]!;
      slot = (slot + 1) & this.mask;
    }
    const word = text.slice(start, end);
    const value = this.compute(word);
    if (this.size >= this.maxEntries) this.reset(INITIAL_CAPACITY);
    else if ((this.size + 1) * 2 <= this.words.length) {
      this.put(slot, word, value, hash);
      return value;
    } else this.reset(this.words.length * 2);
    this.insert(word, value, hash);
    return value;
  }

  private insert(word: string, value: string, hash: number): void {
    let slot = hash & this.mask;
    while (this.words[slot] !== undefined) slot = (slot + 1) & this.mask;
    this.put(slot, word, value, hash);
  }

  private put(slot: number, word: string, value: string, hash: number): void {
    this.words[slot] = word;
    this.values[slot] = value;
    this.hashes[slot] = hash;
    this.size += 1;
  }

  /** A table of `capacity` slots holding what this one held, unless it was full: then empty. */
  private reset(capacity: number): void {
    const keep = this.size < this.maxEntries ? this.words.map((w, i) => [w, this.values[i]!, this.hashes[i]!] as const) : [];
    this.words = new Array<string | undefined>(capacity).fill(undefined);
    this.values = new Array<string>(capacity).fill("");
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.size = 0;
    for (const [word, value, hash] of keep) if (word !== undefined) this.insert(word, value, hash);
  }
}

function sameUnits(word: string, text: string, start: number): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}
