import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { termOf } from "../../../src/memory/index/terms";
import { encodeLexicon, Lexicon } from "../../../src/memory/lexicon/format";
import { lexicon } from "../../../src/memory/lexicon/lexicon";

const DIR = join(import.meta.dir, "..", "..", "..", "src", "memory", "lexicon");

const neighbour = (word: string, other: string) =>
  lexicon()
    .neighboursOf(termOf(word))
    .find((n) => n.term === termOf(other));

describe("the shipped lexicon", () => {
  test("is the file scripts/build-lexicon.ts recorded (sha256)", () => {
    const recorded = readFileSync(join(DIR, "lexicon.sha256"), "utf8").split(/\s/)[0];
    expect(
      createHash("sha256")
        .update(readFileSync(join(DIR, "lexicon.bin")))
        .digest("hex"),
    ).toBe(recorded!);
  });

  test("known neighbours, most similar first, in the index's own terms", () => {
    expect(neighbour("doctor", "physician")!.similarity).toBeGreaterThan(0.75);
    expect(neighbour("car", "vehicle")!.similarity).toBeGreaterThan(0.7);
    expect(neighbour("hobbies", "pastime")!.similarity).toBeGreaterThan(0.6);
    expect(lexicon().neighboursOf(termOf("cello"))[0]!.term).toBe("violin");
    const list = lexicon().neighboursOf(termOf("coffee"));
    expect(list.map((n) => n.similarity)).toEqual([...list.map((n) => n.similarity)].sort((a, b) => b - a));
  });

  test("siblings under one WordNet category are flagged; antonyms are left out", () => {
    expect(neighbour("monday", "tuesday")!.sibling).toBe(true);
    expect(neighbour("cello", "violin")!.sibling).toBe(true);
    expect(neighbour("doctor", "physician")!.sibling).toBe(false);
    expect(neighbour("hot", "cold")).toBeUndefined();
  });

  test("categories: a word's WordNet hypernyms as terms", () => {
    expect(lexicon().categoriesOf(termOf("tennis"))).toContain(termOf("sport"));
    expect(lexicon().categoriesOf(termOf("cello"))).toContain(termOf("instrument"));
    expect(lexicon().categoriesOf(termOf("teal"))).toContain(termOf("colour"));
    expect(lexicon().categoriesOf(termOf("daughter"))).toContain(termOf("child"));
    expect(lexicon().categoriesOf("no-such-term")).toEqual([]);
  });

  test("frequency rank: common words first, unknown words last", () => {
    expect(lexicon().rankOf(termOf("time"))).toBeLessThan(lexicon().rankOf(termOf("cello")));
    expect(lexicon().rankOf("zzqx")).toBe(Number.POSITIVE_INFINITY);
    expect(lexicon().has(termOf("cello"))).toBe(true);
  });
});

describe("the lexicon file format", () => {
  test("round-trips terms, neighbours (similarity to 1/127, sibling flag) and categories", () => {
    const terms = ["alpha", "beta", "gamma", "délta"];
    const bytes = encodeLexicon(terms, [
      {
        term: "alpha",
        neighbours: [
          { id: 1, similarity: 0.9, sibling: false },
          { id: 3, similarity: 0.5, sibling: true },
        ],
        categories: [2],
      },
      { term: "beta", neighbours: [], categories: [] },
      { term: "gamma", neighbours: [{ id: 0, similarity: 0.42, sibling: false }], categories: [3, 0] },
    ]);
    const lex = new Lexicon(bytes);
    expect(lex.neighboursOf("alpha").map((n) => [n.term, Math.round(n.similarity * 127), n.sibling, n.rank])).toEqual([
      ["beta", Math.round(0.9 * 127), false, 1],
      ["délta", Math.round(0.5 * 127), true, 3],
    ]);
    expect(lex.neighboursOf("beta")).toEqual([]);
    expect(lex.categoriesOf("gamma")).toEqual(["délta", "alpha"]);
    expect(lex.categoriesOf("délta")).toEqual([]);
    expect(lex.neighboursOf("missing")).toEqual([]);
  });

  test("a file of another kind or version is refused, not misread", () => {
    expect(() => new Lexicon(new Uint8Array(64))).toThrow(/not a lexicon file/);
  });
});
