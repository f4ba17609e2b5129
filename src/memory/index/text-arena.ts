/**
 * The fact texts of one index as UTF-8 in one growable buffer, each found by its ordinal's start
 * and length (the index's `textStart` / `textLength` columns). A search reads a few dozen texts
 * (the phrasing re-score, the facts returned), so decoding those on demand costs microseconds,
 * while holding 68,000 chat turns as JavaScript strings cost up to twice their UTF-8 size (a text
 * with one character past Latin-1 is stored at two bytes a character) plus a header each, and a
 * snapshot had to join and re-encode them all. A snapshot now stores the buffer as it is.
 */
const encoder = new TextEncoder();
const GROW_BY_QUARTER = 16 * 1024 * 1024;
const decoder = new TextDecoder();

export class TextArena {
  bytes: Uint8Array;
  used = 0;

  constructor(bytes: Uint8Array = new Uint8Array(1024), used = 0) {
    this.bytes = bytes;
    this.used = used;
  }

  /**
   * Appends a text and returns where it starts and how many bytes it takes. A lone surrogate
   * (which no database column can hold, so only a hand-made index meets one) is stored as U+FFFD.
   */
  append(text: string): { start: number; length: number } {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    this.reserve(text.length * 3);
    const { written } = encoder.encodeInto(text, this.bytes.subarray(this.used));
    const start = this.used;
    this.used += written;
    return { start, length: written };
  }

  text(start: number, length: number): string {
    return decoder.decode(this.bytes.subarray(start, start + length));
  }

  /** A dense copy holding the given texts in order (compaction); `moved` receives each one's new start. */
  compacted(starts: ArrayLike<number>, lengths: ArrayLike<number>, count: number, moved: (i: number, start: number) => void): TextArena {
    let total = 0;
    for (let i = 0; i < count; i++) total += lengths[i]!;
    const next = new TextArena(new Uint8Array(Math.max(1024, total)));
    for (let i = 0; i < count; i++) {
      const start = starts[i]!;
      next.bytes.set(this.bytes.subarray(start, start + lengths[i]!), next.used);
      moved(i, next.used);
      next.used += lengths[i]!;
    }
    return next;
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.bytes.length) return;
    // Double while small; past GROW_BY_QUARTER a quarter more: a restored arena is exactly full,
    // and doubling 68 MB of chat turns for the first fact taught after a restart would be a spike
    // of that much.
    const factor = this.bytes.length < GROW_BY_QUARTER ? 2 : 1.25;
    const grown = new Uint8Array(Math.max(this.used + extra, Math.ceil(this.bytes.length * factor)));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }
}
