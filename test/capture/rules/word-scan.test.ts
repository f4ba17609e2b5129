import { expect, test } from "bun:test";
import fc from "fast-check";
import { WordScanner } from "../../../src/capture/rules/word-scan";

const word = fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "'"), minLength: 1, maxLength: 5 });
const text = fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "'", "é", "Z"), maxLength: 40 });

test("a list is held when the text contains any of its words, as `includes` says", () => {
  const scanner = new WordScanner();
  const lists = [["moved to", "relocated to"], [" is "], ["ab", "b"]];
  const ids = lists.map((l) => scanner.add(l));
  expect(ids.map((id) => scanner.holds(id, "priya moved to oslo"))).toEqual([true, false, false]);
  expect(ids.map((id) => scanner.holds(id, "the lab is big"))).toEqual([false, true, true]);
  expect(scanner.add(["relocated to", "moved to"])).toBe(ids[0]!);
});

test("the same answers as `includes`, with lists added between and during scans", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.array(word, { minLength: 1, maxLength: 4 }), fc.array(text, { maxLength: 3 })), { minLength: 1, maxLength: 8 }),
      (steps) => {
        const scanner = new WordScanner();
        const lists: { id: number; words: string[] }[] = [];
        for (const [words, texts] of steps) {
          lists.push({ id: scanner.add(words), words });
          for (const t of texts) {
            for (const l of lists) expect(scanner.holds(l.id, t)).toBe(l.words.some((w) => t.includes(w)));
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});
