import { expect, test } from "bun:test";
import fc from "fast-check";
import { stem } from "porter2";
import { hashOf, TermCache } from "../../../src/memory/index/term-cache";
import { STOP_WORDS, termOf, termsOf, wordsOf } from "../../../src/memory/index/terms";

test("a cache answers what its function answers, across growth and clearing", () => {
  for (const maxEntries of [10_000, 3_000]) {
    let computed = 0;
    const cache = new TermCache(maxEntries, (word) => {
      computed += 1;
      return `<${word}>`;
    });
    // 4,000 distinct words, then the first 1,000 again.
    const words = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919) % 4000}`);
    for (const word of words) {
      const text = `..${word}!`;
      expect(cache.lookup(text, 2, 2 + word.length, hashOf(word))).toBe(`<${word}>`);
    }
    // Repeats come from the table unless it was cleared (full at 3,000) before they came back.
    expect(computed).toBe(maxEntries > 4000 ? 4000 : 5000);
  }
});

/** Terms as the definition says: lower-cased runs of letters and digits, stop and over-long words out, English words stemmed. */
function referenceTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => w.length <= 64 && !STOP_WORDS.has(w)).map((w) => (/^[a-z]+$/.test(w) ? stem(w) : w));
}

test("terms and words of any text are those of the definition", () => {
  const unit = fc.constantFrom(
    "a",
    "B",
    "managers",
    "the",
    "ß",
    "İ",
    "ǅ",
    "é",
    "\u0301",
    "😀",
    "𝐀",
    "\ud800",
    "\udc00",
    "1",
    " ",
    "'",
    "-",
    "x".repeat(70),
    "Σ",
  );
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 20 }), (parts) => {
      const text = parts.join("");
      expect(termsOf(text)).toEqual(referenceTerms(text));
      expect(wordsOf(text)).toEqual(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    }),
    { numRuns: 2000 },
  );
  expect(termOf("managers")).toBe(stem("managers"));
  expect(termOf("the")).toBe(stem("the"));
});
