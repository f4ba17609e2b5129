import { FACT_COLUMN_NAMES, FACT_COLUMNS, setColumn, type FactColumns } from "./fact-table";
import { FactIndex, type IndexParts } from "./fact-index";
import type { Postings } from "./postings";
import { intentSources } from "../lexicon/intents";
import { LEXICON_SHA256 } from "../lexicon/lexicon";
import { STOP_WORDS, termsOf } from "./terms";
import { readFactTime, TIME_MAX_CHARS } from "../time/query-time";
import * as timeWords from "../time/words";

/**
 * A workspace's index as bytes, so a cold start reads one row and copies arrays instead of reading
 * every fact and tokenising it again. The layout is the index's own: per-fact columns as typed
 * arrays, strings as UTF-8 with their UTF-16 lengths, the fact texts as the index's own UTF-8
 * buffer, postings as one array with per-term sizes.
 * Sections are aligned to 8 bytes so each array is read with one copy. Little-endian, as every
 * platform the binary is built for.
 */

/** Bump when the layout below or what `FactIndex.add` derives from a fact changes. */
const LAYOUT = 10;
const MAGIC = 0x3158_444d; // "MDX1" read as a little-endian u32

/**
 * Terms are derived data: a snapshot is only valid with the tokeniser that wrote it. The probe's
 * terms and the stop words are hashed into the format, so a change to stemming, splitting or the
 * stop list retires every snapshot (the index is rebuilt from facts and written again); so does
 * a new lexicon, whose categories the index holds as terms, and new intent records (intents.ts).
 */
const PROBE =
  "The Runners were RUNNING generously through Zürich's cafés: naïve résumés, organisations' 2024-05-01 " +
  "x86_64 İstanbul ΣΊΣΥΦΟΣ straße 東京タワー 👩‍💻 don't they'll we've jumping jumped happily";
/**
 * The time facts name is derived data too: a change to its rules (the records of words.ts, the
 * length read) or to how chrono-node reads a probe retires every snapshot.
 */
const TIME_PROBE = JSON.stringify([
  ["I cleaned my sneakers last month", "we met two weeks ago", "on Valentine's day", "in March 2022", "last Tuesday"].map((text) =>
    readFactTime(text, Date.UTC(2024, 4, 24, 12)),
  ),
  // By name: a bundler may order a module's exports otherwise, and the binary's snapshots must be the source's.
  Object.entries(timeWords)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, value]) => (value instanceof Set ? [...value] : value)),
  timeWords.HOLIDAYS.map((h) => [h.date(2024), h.date(2025)]),
  TIME_MAX_CHARS,
]);
const DERIVED = [termsOf(PROBE).join(" "), [...STOP_WORDS].join(" "), LEXICON_SHA256, intentSources(), TIME_PROBE].join("|");
export const SNAPSHOT_FORMAT = `${LAYOUT}.${Bun.hash(DERIVED).toString(36)}`;

type Column = Int32Array | Uint32Array | Uint8Array | Uint16Array | Float32Array | Float64Array;
type ColumnType<T extends Column> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

class Writer {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  u32s(...values: number[]): void {
    this.column(Uint32Array.from(values));
  }

  column(values: Column): void {
    this.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    this.align();
  }

  /** False (nothing written) when the strings cannot round-trip through UTF-8: a lone surrogate. */
  strings(values: readonly string[]): boolean {
    const joined = values.join("");
    if (!joined.isWellFormed()) return false;
    this.column(fill(new Uint32Array(values.length), values, (v) => v.length));
    const bytes = new TextEncoder().encode(joined);
    this.u32s(bytes.length);
    this.push(bytes);
    this.align();
    return true;
  }

  postings(list: readonly Postings[]): void {
    this.column(fill(new Uint32Array(list.length), list, (p) => p.size));
    this.column(fill(new Uint32Array(list.length), list, (p) => p.df));
    this.column(fill(new Uint8Array(list.length), list, (p) => p.maxTf));
    this.column(fill(new Uint16Array(list.length), list, (p) => p.minLength));
    let total = 0;
    for (const p of list) total += p.size;
    const data = new Uint32Array(total);
    let at = 0;
    for (const p of list) {
      data.set(p.data.subarray(0, p.size), at);
      at += p.size;
    }
    this.column(data);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  /** Pads to the next multiple of 8: every column starts aligned for its type. */
  private align(): void {
    const pad = (8 - (this.length % 8)) % 8;
    if (pad > 0) this.push(new Uint8Array(pad));
  }
}

/** A column of one number per item (a plain loop: `TypedArray.from` with a map function is several times slower). */
function fill<T extends Column, I>(column: T, items: readonly I[], value: (item: I) => number): T {
  for (let i = 0; i < items.length; i++) column[i] = value(items[i]!);
  return column;
}

/** Thrown inside `decodeIndex` only, when the bytes end early or do not add up. */
class Malformed extends Error {}

class Reader {
  private at = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    // A plain view: a Node Buffer's `slice` shares memory where Uint8Array's copies.
    this.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Every byte was read: a longer or shorter input is not the snapshot that was written. */
  atEnd(): boolean {
    return this.at === this.bytes.length;
  }

  u32(): number {
    return this.column(Uint32Array, 1)[0]!;
  }

  /**
   * The next column, as a view into the snapshot's bytes (copied only when they are not aligned for
   * the type): nearly all of a snapshot is the index itself (texts, postings, columns), so the index
   * keeps the bytes instead of copying them while restoring. A view is only read or replaced: a
   * column or list that grows is copied into a new array.
   */
  column<T extends Column>(Type: ColumnType<T>, n: number): T {
    const byteLength = n * Type.BYTES_PER_ELEMENT;
    if (this.at + byteLength > this.bytes.length) throw new Malformed();
    const offset = this.bytes.byteOffset + this.at;
    const column =
      offset % Type.BYTES_PER_ELEMENT === 0
        ? new Type(this.bytes.buffer as ArrayBuffer, offset, n)
        : new Type(this.bytes.slice(this.at, this.at + byteLength).buffer as ArrayBuffer, 0, n);
    this.at += byteLength;
    this.at += (8 - (this.at % 8)) % 8;
    return column;
  }

  strings(n: number): string[] {
    const lengths = this.column(Uint32Array, n);
    const byteLength = this.u32();
    if (this.at + byteLength > this.bytes.length) throw new Malformed();
    const joined = new TextDecoder("utf-8", { fatal: true }).decode(this.bytes.subarray(this.at, this.at + byteLength));
    this.at += byteLength;
    this.at += (8 - (this.at % 8)) % 8;
    const out = new Array<string>(n);
    let start = 0;
    for (let i = 0; i < n; i++) {
      out[i] = joined.slice(start, start + lengths[i]!);
      start += lengths[i]!;
    }
    if (start !== joined.length) throw new Malformed();
    return out;
  }

  postings(n: number): Postings[] {
    const sizes = this.column(Uint32Array, n);
    const df = this.column(Uint32Array, n);
    const maxTf = this.column(Uint8Array, n);
    const minLength = this.column(Uint16Array, n);
    let total = 0;
    for (const size of sizes) total += size;
    const data = this.column(Uint32Array, total);
    const out = new Array<Postings>(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const size = sizes[i]!;
      // Views into one array: postings grow by copying, so a view is only ever read or replaced.
      out[i] = { data: size === 0 ? new Uint32Array(2) : data.subarray(at, at + size), size, df: df[i]!, maxTf: maxTf[i]!, minLength: minLength[i]! };
      at += size;
    }
    return out;
  }
}

/**
 * The index as snapshot bytes (compacting it first), or null when a string could not round-trip
 * through UTF-8 (a lone surrogate; the database cannot store one, so only a hand-made index has it).
 */
export function encodeIndex(index: FactIndex): Uint8Array | null {
  const parts = index.parts();
  const w = new Writer();
  w.u32s(MAGIC, LAYOUT, parts.ids.length, parts.subjects.length, parts.endUsers.length, parts.agents.length, parts.terms.length);
  if (!w.strings(parts.ids)) return null;
  w.u32s(parts.textBytes.length);
  w.column(parts.textBytes);
  for (const name of FACT_COLUMN_NAMES) w.column(parts[name]);
  if (!w.strings(parts.subjects.map((s) => s.name))) return null;
  w.postings(parts.subjects.map((s) => s.facts));
  if (!w.strings(parts.endUsers) || !w.strings(parts.agents) || !w.strings(parts.terms)) return null;
  w.postings(parts.postings);
  // The short facts' lists (Postings.short), for the terms that have one.
  w.column(fill(new Uint8Array(parts.postings.length), parts.postings, (p) => (p.short === undefined ? 0 : 1)));
  w.postings(parts.postings.flatMap((p) => (p.short === undefined ? [] : [p.short])));
  w.u32s(parts.links.length);
  if (!w.strings(parts.links)) return null;
  w.u32s(parts.weakLinks.length);
  if (!w.strings(parts.weakLinks)) return null;
  return w.finish();
}

/**
 * The index a snapshot holds, or null when the bytes are not a snapshot of this layout. The index
 * takes the bytes over (its columns, texts and postings are views into them, changed in place as
 * facts come and go): the caller must not use them again.
 */
export function decodeIndex(bytes: Uint8Array): FactIndex | null {
  try {
    const r = new Reader(bytes);
    const [magic, layout, count = 0, subjectCount = 0, endUserCount = 0, agentCount = 0, termCount = 0] = r.column(Uint32Array, 7);
    if (magic !== MAGIC || layout !== LAYOUT) return null;
    const ids = r.strings(count);
    const textBytes = r.column(Uint8Array, r.u32());
    const columns = {} as FactColumns;
    for (const name of FACT_COLUMN_NAMES) setColumn(columns, name, r.column<FactColumns[typeof name]>(FACT_COLUMNS[name], count));
    const subjectNames = r.strings(subjectCount);
    const subjectFacts = r.postings(subjectCount);
    const endUsers = r.strings(endUserCount);
    const agents = r.strings(agentCount);
    const terms = r.strings(termCount);
    const postings = r.postings(termCount);
    const hasShort = r.column(Uint8Array, termCount);
    const shorts = r.postings(hasShort.reduce((sum, flag) => sum + flag, 0));
    let next = 0;
    hasShort.forEach((flag, i) => {
      if (flag === 1) postings[i]!.short = shorts[next++]!;
    });
    const links = r.strings(r.u32());
    const weakLinks = r.strings(r.u32());
    const subjects = subjectNames.map((name, i) => ({ name, facts: subjectFacts[i]! }));
    const parts: IndexParts = { ...columns, ids, textBytes, subjects, endUsers, agents, terms, postings, links, weakLinks };
    return r.atEnd() ? FactIndex.restore(parts) : null;
  } catch (error) {
    if (error instanceof Malformed || error instanceof TypeError || error instanceof RangeError) return null;
    throw error;
  }
}
