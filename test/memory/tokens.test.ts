import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { countTokens } from "../../src/memory/tokens";

// js-tiktoken itself is the oracle: countTokens only replaces its merge loop, which is quadratic.
const reference = new Tiktoken(o200kBase);
const referenceCount = (text: string): number => reference.encode(text, [], []).length;

/** Units that stress the pre-tokenizer's alternatives and the byte-level merges. */
const trickyUnit = fc.constantFrom(
  "\n",
  "\r\n",
  "\n\n",
  "  ",
  "\t",
  "\u2028",
  "\u00a0",
  "'s",
  "'LL",
  "don't",
  "<|endoftext|>",
  "<|endofprompt|>",
  "&lt;",
  "</workspace_memory>",
  "[decision · system · 2020-01-01]",
  "12345",
  "١٢٣",
  "漢字仮名",
  "😀",
  "👩‍👩‍👧",
  "é",
  "e\u0301",
  "\ud800",
  "\udfff",
  "Ω",
  "ÄÖÜ",
  "HTTPServer",
  "...",
  "//",
);
const text = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.string({ unit: "binary-ascii", maxLength }),
    fc.string({ unit: fc.oneof(trickyUnit, fc.string({ unit: "grapheme", maxLength: 3 })), maxLength }),
  );

describe("countTokens", () => {
  test("known counts", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
  });

  test.each([
    "",
    "a",
    " ",
    "\n",
    "Hello, world! How's it going?\n\nFine.",
    "Mixed 世界 text with emoji 🎉🚀 and numbers 1234567 and 'll contractions",
    "<|endoftext|> is counted as text, not as a special token",
    "lone surrogate \ud83d here",
    "   leading and trailing   ",
    "tabs\tand\u000bvertical\u000cfeeds\r\n",
  ])("matches js-tiktoken on %j", (sample) => {
    expect(countTokens(sample)).toBe(referenceCount(sample));
  });

  test("special-token strings do not throw", () => {
    expect(() => countTokens("<|endoftext|><|endofprompt|>")).not.toThrow();
  });

  test("matches js-tiktoken on random text", () => {
    fc.assert(
      fc.property(text(60), (sample) => {
        expect(countTokens(sample)).toBe(referenceCount(sample));
      }),
      { numRuns: 400 },
    );
  });

  test("matches js-tiktoken on long single pre-tokens, where merges chain", () => {
    // One run of one character class is one pre-token; js-tiktoken is quadratic in its byte length,
    // so these stay short enough for the oracle.
    const runs = fc.oneof(
      fc.string({ unit: fc.constantFrom("a", "b", "z", "q", "e"), minLength: 20, maxLength: 120 }),
      fc.string({ unit: fc.constantFrom("漢", "字", "仮", "名", "の", "ア"), minLength: 10, maxLength: 80 }),
      fc.string({ unit: fc.constantFrom("😀", "🎉", "🚀", "&", "!", "#"), minLength: 10, maxLength: 60 }),
    );
    fc.assert(
      fc.property(runs, (sample) => {
        expect(countTokens(sample)).toBe(referenceCount(sample));
      }),
      { numRuns: 150 },
    );
  });

  test("pathological 4000-character pre-tokens are fast (js-tiktoken: 4-28 s each)", () => {
    // Expected counts were produced by js-tiktoken's own encode (minutes in total, so not rerun here).
    const cases: Array<[string, number]> = [
      ["漢字仮名交じり文".repeat(500), 4500],
      ["😀🎉🚀".repeat(1333), 6665],
      ["a".repeat(4000), 500],
    ];
    const started = performance.now();
    for (const [sample, expected] of cases) expect(countTokens(sample)).toBe(expected);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
