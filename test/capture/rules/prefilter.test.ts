import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mayMatch, requirementsOf } from "../../../src/capture/rules/prefilter";
import { allPatterns } from "../../../src/capture/rules/index";
import { loadPairs, type PairSet } from "../supersession/pairs";

const patterns = allPatterns();
const sentences = (["dev", "holdout", "blind", "blind2"] as PairSet[]).flatMap((set) => loadPairs(set).flatMap((p) => [p.older, p.newer]));

/** Each sentence as written and in forms that only case-insensitive matching sees as the same. */
function variants(text: string): string[] {
  return [text, text.toUpperCase(), text.toLowerCase(), text.replace(/s/gu, "\u017f"), text.replace(/k/giu, "\u212a"), `${text} now`, `Apparently ${text}`];
}

describe("the words a pattern needs", () => {
  test("a run of literal parts becomes the strings it can spell", () => {
    expect(requirementsOf(/^(?:[Tt]he )?(?<subject>\p{L}+) (?:moved|relocated) to (?<v>.+)$/u)).toEqual([[" moved to ", " relocated to "]]);
  });

  test("a word that contains another word of its list is dropped: the shorter says the same", () => {
    expect(requirementsOf(/^\p{L}+ (?:is|is now|is currently) (?:\p{L}+)$/u)).toEqual([[" is "]]);
  });

  test("a disjunction needs what one of its branches needs", () => {
    const [needs] = requirementsOf(/^(?:\p{L}+ quit|resigned \p{L}+)$/u);
    expect([...(needs ?? [])].sort()).toEqual([" quit", "resigned "]);
  });

  test("what a pattern may skip over needs nothing", () => {
    expect(requirementsOf(/^\p{L}+(?: now)?$/u)).toEqual([]);
    expect(requirementsOf(/^(?:a|b)*$/u)).toEqual([]);
    expect(requirementsOf(/\d{3}/u)).toEqual([]);
  });
});

describe("a pattern is skipped only when it cannot match", () => {
  test("every rule pattern over every labelled sentence and its case variants", () => {
    let skipped = 0;
    let matched = 0;
    for (const text of sentences.flatMap(variants)) {
      for (const { name, pattern } of patterns) {
        const may = mayMatch(pattern, text);
        if (pattern.test(text)) {
          matched += 1;
          if (!may) throw new Error(`${name} matches ${JSON.stringify(text)} but was skipped`);
        } else if (!may) skipped += 1;
      }
    }
    // Not vacuous: the sentences match rules, and most rules are skipped for most of them.
    expect(matched).toBeGreaterThan(1000);
    expect(skipped).toBeGreaterThan(matched * 10);
  });

  test("letters that case-fold to ASCII still reach a case-insensitive pattern", () => {
    expect(/started/iu.test("\u017ftarted")).toBe(true);
    expect(mayMatch(/started/iu, "\u017ftarted")).toBe(true);
    expect(/kelvin/iu.test("\u212aelvin")).toBe(true);
    expect(mayMatch(/kelvin/iu, "\u212aelvin")).toBe(true);
    expect(mayMatch(/kelvin/iu, "celsius")).toBe(false);
  });

  test("random texts spelled from the patterns' own words", () => {
    const words = [...new Set(patterns.flatMap((p) => requirementsOf(p.pattern).flat()))];
    const piece = fc.oneof(
      fc.constantFrom(...words),
      fc.constantFrom(" ", "'s", "Tom", "Acme", "Q3", "$40k", "\u017f", "\u212a", "é"),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (parts, upper) => {
        const text = upper ? parts.join("").toUpperCase() : parts.join("");
        for (const { name, pattern } of patterns) {
          if (pattern.test(text) && !mayMatch(pattern, text)) throw new Error(`${name} matches ${JSON.stringify(text)} but was skipped`);
        }
      }),
      { numRuns: 400 },
    );
  });
});
