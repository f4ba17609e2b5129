import { expect, test } from "bun:test";
import fc from "fast-check";
import { matchesOf } from "../../../src/capture/rules/rule";
import { allPatterns } from "../../../src/capture/rules/index";

const summary = (matches: Iterable<RegExpMatchArray>): unknown[] => [...matches].map((m) => [m.index, m[0], { ...m.groups }]);

test("matchesOf gives what matchAll gives, empty matches and astral letters included, and keeps no state", () => {
  const patterns = [/a*/u, /(?:)/u, /\p{L}*/u, /(?<word>\w+)/, /b|/u, /(?<=x)/u, ...allPatterns().map((p) => p.pattern)];
  const text = fc.string({ unit: fc.constantFrom("a", "b", "x", " ", "😀", "\ud800", "é", "Tom", "'s", "1"), maxLength: 16 });
  fc.assert(
    fc.property(fc.constantFrom(...patterns), text, (pattern, input) => {
      const expected = summary(input.matchAll(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)));
      expect(summary(matchesOf(pattern, input))).toEqual(expected);
      // A second call over the same text starts from the beginning again.
      expect(summary(matchesOf(pattern, input))).toEqual(expected);
      expect(pattern.lastIndex).toBe(0);
    }),
    { numRuns: 3000 },
  );
});
