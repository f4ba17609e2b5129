/**
 * What rankFacts' MaxScore walk runs on: each query term's postings as a cursor, the heap that
 * hands over the cursors on the next fact, galloping search for the terms only looked up, and
 * the per-index scratch the scores are kept in.
 */
import type { FactIndex } from "./fact-index";
import type { MeaningMatch } from "./meaning";
import { TF_BITS } from "./postings";

/** Per-index scratch space for scoring, reused by every query (JavaScript runs one at a time). */
export interface Scratch {
  score: Float64Array;
  /** The query a fact was scored in ahead of the walk (see rankFacts' PREFILL_MAX). */
  doneIn: Uint32Array;
  epoch: number;
}
const scratches = new WeakMap<FactIndex, Scratch>();

/** The index's scratch, grown to its ordinals; `doneIn` is cleared before the epoch wraps. */
export function scratchFor(index: FactIndex): Scratch {
  let s = scratches.get(index);
  if (!s || s.score.length < index.count) {
    const size = Math.max(index.flags.length, 64);
    s = { score: new Float64Array(size), doneIn: new Uint32Array(size), epoch: 0 };
    scratches.set(index, s);
  }
  if (s.epoch >= 0xfffffff0) {
    s.doneIn.fill(0);
    s.epoch = 0;
  }
  return s;
}

/**
 * The first posting at or after `from` whose ordinal is at least `ord` (postings are in ordinal
 * order): galloping, then binary search, so skipping far ahead costs a logarithm, not a scan.
 */
export function seek(data: Uint32Array, size: number, from: number, ord: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < size && data[hi]! >>> TF_BITS < ord) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, size);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (data[mid]! >>> TF_BITS < ord) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Cursor indices ordered by the ordinal each is on (`current`), the smallest on top: which
 * cursors hold the next fact, without looking at every cursor for every fact.
 */
export class CursorHeap {
  private readonly items: Int32Array;
  size = 0;

  constructor(private readonly current: Int32Array) {
    this.items = new Int32Array(current.length);
  }

  top(): number {
    return this.items[0]!;
  }

  push(cursor: number): void {
    const { items, current } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (current[items[parent]!]! <= current[cursor]!) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = cursor;
  }

  pop(): void {
    this.size -= 1;
    if (this.size > 0) {
      this.items[0] = this.items[this.size]!;
      this.settleTop();
    }
  }

  /** Restores the order after the top cursor moved on to a later ordinal. */
  settleTop(): void {
    const { items, current, size } = this;
    const cursor = items[0]!;
    const key = current[cursor]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && current[items[right]!]! < current[items[left]!]! ? right : left;
      if (current[items[child]!]! >= key) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = cursor;
  }
}

/** One query term's postings as the ranking walks them. */
export interface Cursor {
  data: Uint32Array;
  size: number;
  /** The query word's group, and whether the cursor is a match by meaning (the group's best one counts) or by word (all count). */
  group: number;
  meaning: boolean;
  /** What explain names: the query word and the fact term; "" for a named subject. */
  word: string;
  term: string;
  via: MeaningMatch["via"] | null;
  similarity: number;
  idfK1: number;
  /** The weight of every posting when it does not depend on tf (a named subject's facts), else 0. */
  fixed: number;
  /** No fact can get more than this from the term (BM25 at the list's largest tf and shortest fact). */
  bound: number;
}
