/**
 * VectorSet (src/embeddings/vectors.ts): exact below EXACT_UP_TO, the sign-bit shortlist above it.
 * Every set here is built from a seeded stream, so a failure reproduces.
 */
import { describe, expect, test } from "bun:test";
import { EXACT_UP_TO, VectorSet } from "../../src/embeddings/vectors";
import { seededRandom } from "../helpers/random";

/** Standard normal values from a seeded stream (Box-Muller). */
function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
}

function randomVector(normal: () => number, dimensions: number): Float32Array {
  return Float32Array.from({ length: dimensions }, () => normal());
}

/** `base` plus noise of standard deviation `spread` in every dimension. */
function near(normal: () => number, base: Float32Array, spread: number): Float32Array {
  return base.map((v) => v + spread * normal());
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

const all = (): boolean => true;

describe("VectorSet", () => {
  test("up to EXACT_UP_TO vectors, nearest is exactNearest, and its similarities are the cosines (int8 rounding aside)", () => {
    const normal = gaussian(seededRandom(7));
    const set = new VectorSet();
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 500; i++) {
      const v = randomVector(normal, 48);
      vectors.set(`f${i}`, v);
      expect(set.add(`f${i}`, v)).toBe(true);
    }
    expect(set.size).toBe(500);
    expect(set.dimensions).toBe(48);
    for (let q = 0; q < 20; q++) {
      const query = randomVector(normal, 48);
      const approximate = set.nearest(query, 10, all);
      const exact = set.exactNearest(query, 10, all);
      expect(approximate).toEqual(exact);
      expect(approximate).toHaveLength(10);
      for (const hit of approximate) expect(Math.abs(hit.similarity - cosine(query, vectors.get(hit.factId)!))).toBeLessThan(0.02);
      // Best first.
      for (let i = 1; i < approximate.length; i++) expect(approximate[i]!.similarity).toBeLessThanOrEqual(approximate[i - 1]!.similarity);
    }
  });

  test("past EXACT_UP_TO, the shortlist finds each query's planted nearest neighbour and recall@10 against the exact ranking is at least 0.9", () => {
    const dimensions = 64;
    const normal = gaussian(seededRandom(20_260_101));
    const set = new VectorSet();
    for (let i = 0; i < 6_000; i++) set.add(`noise-${i}`, randomVector(normal, dimensions));
    // Each query has its nearest neighbour (spread 0.15: cosine about 0.99) and nine more, from
    // close (spread 0.75: cosine about 0.8) to about as far as the best of the noise (spread 1.95:
    // cosine about 0.46), as a query's relevant facts stand out from the rest with a real model.
    const queries: Float32Array[] = [];
    for (let q = 0; q < 50; q++) {
      const query = randomVector(normal, dimensions);
      queries.push(query);
      set.add(`planted-${q}-0`, near(normal, query, 0.15));
      for (let j = 1; j < 10; j++) set.add(`planted-${q}-${j}`, near(normal, query, 0.6 * (1 + j / 4)));
    }
    expect(set.size).toBeGreaterThan(EXACT_UP_TO);

    let found = 0;
    let relevant = 0;
    for (const [q, query] of queries.entries()) {
      const approximate = set.nearest(query, 10, all);
      const exact = set.exactNearest(query, 10, all);
      expect(exact[0]!.factId).toBe(`planted-${q}-0`);
      expect(approximate[0]!.factId).toBe(`planted-${q}-0`);
      expect(approximate).toHaveLength(10);
      const ids = new Set(approximate.map((h) => h.factId));
      relevant += exact.length;
      found += exact.filter((h) => ids.has(h.factId)).length;
      // What the shortlist returns is scored exactly: the same similarity as the exact ranking gives.
      const exactById = new Map(set.exactNearest(query, set.size, all).map((h) => [h.factId, h.similarity]));
      for (const hit of approximate) expect(hit.similarity).toBe(exactById.get(hit.factId)!);
    }
    // Measured 0.944 with this seed (deterministic). On isotropic noise alone (no planted
    // neighbourhoods: the "nearest" ten are barely nearer than the rest) the same shortlist
    // measures 0.74-0.81 over seeds, at 64 and at 768 dimensions alike: not what this floor is for.
    expect(found / relevant).toBeGreaterThanOrEqual(0.9);
  });

  test.each([
    ["exact", 300],
    ["shortlist", EXACT_UP_TO + 500],
  ] as const)("accept() decides before ranking (%s): the nearest accepted facts come back even when every closer one is refused", (_, size) => {
    const dimensions = 32;
    const normal = gaussian(seededRandom(size));
    const set = new VectorSet();
    const query = randomVector(normal, dimensions);
    // The closest facts of all, none of them accepted.
    for (let i = 0; i < 50; i++) set.add(`hidden-${i}`, near(normal, query, 0.2));
    for (let i = 0; i < size; i++) set.add(`noise-${i}`, randomVector(normal, dimensions));
    // Three accepted facts, far from the query.
    const allowed = new Set(["noise-3", "noise-17", "noise-250"]);
    const asked: string[] = [];
    const accept = (id: string): boolean => {
      asked.push(id);
      return allowed.has(id);
    };
    const hits = set.nearest(query, 10, accept);
    expect(new Set(hits.map((h) => h.factId))).toEqual(allowed);
    expect(asked.length).toBeGreaterThan(0);
    expect(set.exactNearest(query, 10, (id) => allowed.has(id)).map((h) => h.factId)).toEqual(hits.map((h) => h.factId));
    // Nothing accepted: nothing, whatever is close.
    expect(set.nearest(query, 10, () => false)).toEqual([]);
    // The floor drops what is less similar.
    const floor = hits[0]!.similarity;
    expect(set.nearest(query, 10, accept, floor).every((h) => h.similarity >= floor)).toBe(true);
  });

  test("a vector of another dimension is refused, and a query of another dimension finds nothing", () => {
    const set = new VectorSet();
    expect(set.add("a", Float32Array.from([1, 0, 0, 0]))).toBe(true);
    expect(set.add("b", Float32Array.from([1, 0, 0]))).toBe(false);
    expect(set.add("a", Float32Array.from([1, 0, 0, 0, 0]))).toBe(false);
    expect(set.size).toBe(1);
    expect(set.dimensions).toBe(4);
    expect(set.nearest(Float32Array.from([1, 0, 0]), 5, all)).toEqual([]);
    // The refused vector did not replace the stored one.
    const [hit] = set.nearest(Float32Array.from([1, 0, 0, 0]), 5, all);
    expect(hit!.factId).toBe("a");
    expect(hit!.similarity).toBeCloseTo(1, 2);
  });

  test("add() of an existing id replaces its vector, in both the exact scores and the sign bits the shortlist reads", () => {
    const dimensions = 32;
    const normal = gaussian(seededRandom(99));
    const set = new VectorSet();
    for (let i = 0; i < EXACT_UP_TO + 100; i++) set.add(`noise-${i}`, randomVector(normal, dimensions));
    const before = randomVector(normal, dimensions);
    const after = before.map((v) => -v);
    set.add("moved", before);
    const size = set.size;
    expect(set.nearest(before, 1, all)[0]!.factId).toBe("moved");
    set.add("moved", after);
    expect(set.size).toBe(size);
    // The old direction is now the farthest the fact could be; the new one finds it first.
    expect(set.nearest(before, 20, all).map((h) => h.factId)).not.toContain("moved");
    const [hit] = set.nearest(after, 1, all);
    expect(hit!.factId).toBe("moved");
    expect(hit!.similarity).toBeCloseTo(1, 2);
    expect(set.exactNearest(before, set.size, all).at(-1)!.factId).toBe("moved");
  });
});
