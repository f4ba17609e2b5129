/**
 * Token counting with OpenAI's o200k_base encoding, the unit of a context packet's token budget.
 *
 * The vocabulary comes from js-tiktoken's o200k_base rank file (imported by its own subpath so only
 * that rank file is bundled), but the byte-pair merge is ours: js-tiktoken's merge rescans the whole
 * piece after every merge and builds a string key for every pair on every scan, so one pre-token
 * of a few thousand bytes takes seconds (measured: 4,000 CJK characters without punctuation 14 s,
 * 1,333 emoji 28 s). Fact text is user input of up to 4,000 characters, so that would let any
 * caller stall a request. The merge below follows the same rule (lowest rank first, leftmost on a
 * tie) with a heap, in O(n log n); test/memory/tokens.test.ts checks it against js-tiktoken's own
 * `Tiktoken.encode` on random text.
 *
 * Special tokens (`<|endoftext|>`, ...) are counted as ordinary text, as `encode(text, [], [])`
 * does: the input is data, and js-tiktoken's default would throw on them.
 */
import o200kBase from "js-tiktoken/ranks/o200k_base";

interface Encoder {
  /** Byte sequence (one char per byte, "latin1" string) -> rank. */
  readonly ranks: Map<string, number>;
  readonly pattern: RegExp;
}

let cached: Encoder | undefined;

/** Built on first use: parsing 200k ranks costs ~0.2 s that a process which never counts should not pay. */
function encoder(): Encoder {
  if (cached) return cached;
  const ranks = new Map<string, number>();
  // Rank file format (as js-tiktoken parses it): lines of "<name> <first rank> <base64 token>...".
  for (const line of o200kBase.bpe_ranks.split("\n")) {
    if (!line) continue;
    const [, offsetText, ...tokens] = line.split(" ");
    const offset = Number.parseInt(offsetText ?? "", 10);
    // atob yields exactly the one-char-per-byte string we key on, with no intermediate array.
    for (const [i, token] of tokens.entries()) ranks.set(atob(token), offset + i);
  }
  cached = { ranks, pattern: new RegExp(o200kBase.pat_str, "gu") };
  return cached;
}

const utf8 = new TextEncoder();
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included.
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** UTF-8 bytes of `text` as a one-char-per-byte string, the rank map's key format. */
function byteString(text: string): string {
  // Most pre-tokens are ASCII, whose UTF-8 bytes are the characters themselves.
  if (ASCII_ONLY.test(text)) return text;
  // TextEncoder turns lone surrogates into U+FFFD, exactly as js-tiktoken does.
  const bytes = utf8.encode(text);
  let out = "";
  // Chunked because spreading a large array into fromCharCode can overflow the argument limit.
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** Heap keys pack (rank, start offset) into one float: ordering by it is "lowest rank, then leftmost". */
const POSITION_SPAN = 2 ** 32;

/** A binary min-heap of numbers; a plain array keeps it allocation-free per push. */
class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as number;
      if (p <= value) break;
      items[i] = p;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    const n = items.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && (items[right] as number) < (items[left] as number)) child = right;
      const c = items[child] as number;
      if (c >= last) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/** Number of tokens byte-pair encoding gives for one pre-token that is not itself in the vocabulary. */
function mergedTokenCount(piece: string, ranks: Map<string, number>): number {
  const n = piece.length;
  if (n <= 1) return n;
  // Parts are identified by their start offset. end[s] is the exclusive end of the part starting at
  // s (= start of the next part), prev[s] the start of the part before it. pairRank[s] is the rank
  // of the current pair (part s + its right neighbour), or -1: a heap entry whose rank no longer
  // matches is stale, which saves deleting entries from the heap.
  const end = new Int32Array(n);
  const prev = new Int32Array(n);
  const pairRank = new Float64Array(n).fill(-1);
  const heap = new MinHeap();
  for (let s = 0; s < n; s++) {
    end[s] = s + 1;
    prev[s] = s - 1;
  }
  const rankPair = (s: number): void => {
    const right = end[s] as number;
    const rank = right < n ? ranks.get(piece.slice(s, end[right])) : undefined;
    if (rank === undefined) {
      pairRank[s] = -1;
      return;
    }
    pairRank[s] = rank;
    heap.push(rank * POSITION_SPAN + s);
  };
  for (let s = 0; s < n - 1; s++) rankPair(s);

  let parts = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const s = key % POSITION_SPAN;
    const rank = (key - s) / POSITION_SPAN;
    if (pairRank[s] !== rank) continue;
    // Merge part s with its right neighbour r.
    const r = end[s] as number;
    const newEnd = end[r] as number;
    pairRank[r] = -1;
    end[s] = newEnd;
    if (newEnd < n) prev[newEnd] = s;
    parts--;
    rankPair(s);
    const left = prev[s] as number;
    if (left >= 0) rankPair(left);
  }
  return parts;
}

/**
 * Counts of recently seen texts. A packet re-counts the same lines request after request (hot
 * facts recur, and a packet without the index's line costs counts them all), and counting is most
 * of a context request's CPU. Bounded by the characters its keys hold, not their number, and
 * cleared when full, so memory stays flat when facts are 4,000-character chat turns.
 */
const counted = new Map<string, number>();
const COUNT_CACHE_CHARS = 4_000_000;
let countedChars = 0;

/** Number of o200k_base tokens in `text`, special-token strings counted as plain text. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const known = counted.get(text);
  if (known !== undefined) return known;
  const count = countUncached(text);
  if (countedChars + text.length > COUNT_CACHE_CHARS) {
    counted.clear();
    countedChars = 0;
  }
  counted.set(text, count);
  countedChars += text.length;
  return count;
}

function countUncached(text: string): number {
  const { ranks, pattern } = encoder();
  let count = 0;
  for (const match of text.matchAll(pattern)) {
    const piece = byteString(match[0]);
    count += ranks.has(piece) ? 1 : mergedTokenCount(piece, ranks);
  }
  return count;
}
