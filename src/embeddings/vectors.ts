/**
 * A workspace's fact vectors in memory, and the nearest of them to a query.
 *
 * Each vector is scaled to unit length and kept as int8 (one byte a dimension and one float for
 * its scale: 772 bytes at 768 dimensions), with its sign bits beside it (96 bytes at 768). Up to
 * `EXACT_UP_TO` vectors every candidate is scored exactly (int8 dot product); past it the sign
 * bits pick the `RERANK_SHARE` closest by Hamming distance (a cheap estimate of the angle) and
 * only those are scored: an approximation whose recall bench/embeddings.ts measures.
 */

/** Workspaces with more vectors than this use the sign-bit shortlist. */
export const EXACT_UP_TO = 5_000;
/** The shortlist: this many candidates per result asked for, at least `RERANK_MIN`. */
const RERANK_PER_RESULT = 20;
const RERANK_MIN = 1_000;

export interface VectorHit {
  factId: string;
  /** Cosine similarity to the query, -1..1. */
  similarity: number;
}

export class VectorSet {
  dimensions = 0;
  /** The last `fact_vectors.seq` loaded. */
  seq = 0;
  private ids: string[] = [];
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private signs = new Uint32Array(0);
  private words = 0;
  private readonly slotOf = new Map<string, number>();
  /** Scratch for the shortlist's distances, reused across queries. */
  private distances = new Uint16Array(0);

  get size(): number {
    return this.ids.length;
  }

  /** Bytes held, for status and the bench. */
  bytes(): number {
    return this.codes.byteLength + this.scales.byteLength + this.signs.byteLength + this.ids.length * 64;
  }

  /** Adds a fact's vector, or replaces it. A vector of another dimension than the set's is refused (false). */
  add(factId: string, vector: Float32Array): boolean {
    if (this.dimensions === 0) {
      this.dimensions = vector.length;
      this.words = Math.ceil(vector.length / 32);
    }
    if (vector.length !== this.dimensions) return false;
    let slot = this.slotOf.get(factId);
    if (slot === undefined) {
      slot = this.ids.length;
      this.grow(slot + 1);
      this.ids.push(factId);
      this.slotOf.set(factId, slot);
    }
    this.write(slot, vector);
    return true;
  }

  /**
   * The `k` facts closest to `query` among those `accept` lets through (visibility is decided
   * before anything is ranked), best first, with similarity at least `floor`.
   */
  nearest(query: Float32Array, k: number, accept: (factId: string) => boolean, floor = -1): VectorHit[] {
    if (query.length !== this.dimensions || this.size === 0 || k <= 0) return [];
    const unit = unitOf(query);
    const candidates = this.size <= EXACT_UP_TO ? this.allAccepted(accept) : this.shortlist(unit, Math.max(RERANK_MIN, k * RERANK_PER_RESULT), accept);
    const hits: VectorHit[] = [];
    for (const slot of candidates) {
      const similarity = this.dot(slot, unit);
      if (similarity >= floor) hits.push({ factId: this.ids[slot]!, similarity });
    }
    hits.sort((a, b) => b.similarity - a.similarity || (a.factId < b.factId ? -1 : 1));
    return hits.slice(0, k);
  }

  /** The cosine similarity of two facts' vectors (from their int8 codes), or null when either has none. */
  similarityOf(a: string, b: string): number | null {
    const slotA = this.slotOf.get(a);
    const slotB = this.slotOf.get(b);
    if (slotA === undefined || slotB === undefined) return null;
    const { codes, dimensions } = this;
    const baseA = slotA * dimensions;
    const baseB = slotB * dimensions;
    let sum = 0;
    for (let d = 0; d < dimensions; d++) sum += codes[baseA + d]! * codes[baseB + d]!;
    return sum * this.scales[slotA]! * this.scales[slotB]!;
  }

  /** The exact `k` nearest, scoring every accepted vector (what the shortlist approximates). */
  exactNearest(query: Float32Array, k: number, accept: (factId: string) => boolean): VectorHit[] {
    const unit = unitOf(query);
    return this.allAccepted(accept)
      .map((slot) => ({ factId: this.ids[slot]!, similarity: this.dot(slot, unit) }))
      .sort((a, b) => b.similarity - a.similarity || (a.factId < b.factId ? -1 : 1))
      .slice(0, k);
  }

  private allAccepted(accept: (factId: string) => boolean): number[] {
    const slots: number[] = [];
    for (let slot = 0; slot < this.ids.length; slot++) if (accept(this.ids[slot]!)) slots.push(slot);
    return slots;
  }

  /**
   * The `size` accepted slots of least Hamming distance between sign bits: one pass computes the
   * distances and counts them per value, which gives the distance at which the shortlist is full;
   * a second pass takes the accepted slots up to it.
   */
  private shortlist(unit: Float32Array, size: number, accept: (factId: string) => boolean): number[] {
    const words = this.words;
    const querySigns = new Uint32Array(words);
    for (let d = 0; d < unit.length; d++) if (unit[d]! > 0) querySigns[d >>> 5]! |= 1 << (d & 31);
    const count = this.ids.length;
    if (this.distances.length < count) this.distances = new Uint16Array(Math.max(count, this.distances.length * 2));
    const distances = this.distances;
    const histogram = new Uint32Array(this.dimensions + 1);
    const signs = this.signs;
    for (let slot = 0, base = 0; slot < count; slot++, base += words) {
      let distance = 0;
      for (let w = 0; w < words; w++) distance += popcount(signs[base + w]! ^ querySigns[w]!);
      distances[slot] = distance;
      histogram[distance]! += 1;
    }
    // Some slots are not accepted (other end users, superseded facts): take twice the size before
    // filtering, then widen if still short.
    let picked: number[] = [];
    for (let want = size * 2; ; want *= 2) {
      let limit = 0;
      for (let seen = 0; limit <= this.dimensions && seen < want; limit++) seen += histogram[limit]!;
      picked = [];
      for (let slot = 0; slot < count; slot++) if (distances[slot]! < limit && accept(this.ids[slot]!)) picked.push(slot);
      if (picked.length >= size || limit > this.dimensions) break;
    }
    if (picked.length <= size) return picked;
    picked.sort((a, b) => distances[a]! - distances[b]!);
    return picked.slice(0, size);
  }

  /** Four sums side by side: the additions do not wait on each other (a quarter faster here). */
  private dot(slot: number, unit: Float32Array): number {
    const codes = this.codes;
    const dimensions = this.dimensions;
    const base = slot * dimensions;
    const whole = dimensions - (dimensions % 4);
    let a = 0;
    let b = 0;
    let c = 0;
    let e = 0;
    for (let d = 0; d < whole; d += 4) {
      a += codes[base + d]! * unit[d]!;
      b += codes[base + d + 1]! * unit[d + 1]!;
      c += codes[base + d + 2]! * unit[d + 2]!;
      e += codes[base + d + 3]! * unit[d + 3]!;
    }
    for (let d = whole; d < dimensions; d++) a += codes[base + d]! * unit[d]!;
    return (a + b + c + e) * this.scales[slot]!;
  }

  private write(slot: number, vector: Float32Array): void {
    const unit = unitOf(vector);
    let max = 0;
    for (const v of unit) max = Math.max(max, Math.abs(v));
    const scale = max === 0 ? 0 : max / 127;
    const base = slot * this.dimensions;
    for (let d = 0; d < this.dimensions; d++) this.codes[base + d] = scale === 0 ? 0 : Math.round(unit[d]! / scale);
    this.scales[slot] = scale;
    const signBase = slot * this.words;
    this.signs.fill(0, signBase, signBase + this.words);
    for (let d = 0; d < this.dimensions; d++) if (unit[d]! > 0) this.signs[signBase + (d >>> 5)]! |= 1 << (d & 31);
  }

  private grow(count: number): void {
    if (count <= this.scales.length) return;
    const capacity = Math.max(count, this.scales.length * 2, 64);
    const codes = new Int8Array(capacity * this.dimensions);
    codes.set(this.codes);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    const signs = new Uint32Array(capacity * this.words);
    signs.set(this.signs);
    this.codes = codes;
    this.scales = scales;
    this.signs = signs;
  }
}

function unitOf(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  return norm === 0 ? new Float32Array(vector.length) : vector.map((v) => v / norm);
}

/** Set bits of every 16-bit value: two lookups count a word's bits, faster in JS than bit tricks. */
const BITS16 = (() => {
  const table = new Uint8Array(65_536);
  for (let i = 1; i < table.length; i++) table[i] = (i & 1) + table[i >>> 1]!;
  return table;
})();

function popcount(x: number): number {
  return BITS16[x & 0xffff]! + BITS16[x >>> 16]!;
}
