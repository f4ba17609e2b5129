import { expect, test } from "bun:test";
import fc from "fast-check";
import { allPatterns } from "../../../src/capture/rules/index";
import { splitLookbehind } from "../../../src/capture/rules/lookbehind";
import { firstMatch, matches, matchesOf } from "../../../src/capture/rules/rule";

const summary = (match: RegExpMatchArray | null): unknown => (match === null ? null : [match.index, [...match], { ...match.groups }]);

/** Every rule pattern that opens with a lookbehind, and a few shapes the rules do not have. */
const openWithLookbehind = [
  /(?<=x)/u,
  /(?<!a)a+/u,
  /(?<![\p{L}])(?<w>\p{Lu}\p{L})'s/u,
  /(?<=\d)(?:,\d)+/,
  /(?<!b)b|a/u,
  /(?<!(a))b/u,
  ...allPatterns().map((p) => p.pattern),
].filter((p) => p.source.startsWith("(?<"));

/** Letters, digits, apostrophes and astral or lone surrogates: what the lookbehinds look at. */
const text = fc.string({
  unit: fc.constantFrom("a", "b", "x", "W", "we", "We", " ", "😀", "\ud800", "é", "Tom", "'s", "'", "1", "4111 ", "-", "+", ","),
  maxLength: 24,
});

test("a pattern that opens with a lookbehind gives, run in two parts, what it gives whole", () => {
  fc.assert(
    fc.property(fc.constantFrom(...openWithLookbehind), text, (pattern, input) => {
      expect(summary(firstMatch(pattern, input))).toEqual(summary(pattern.exec(input)));
      expect(matches(pattern, input)).toBe(pattern.test(input));
      const global = new RegExp(pattern.source, `${pattern.flags}g`);
      expect([...matchesOf(pattern, input)].map(summary)).toEqual([...input.matchAll(global)].map(summary));
    }),
    { numRuns: 20_000 },
  );
});

test("the rules that scan a whole fact run without their lookbehind", () => {
  const names = new Set([
    "subject.team_we_anywhere",
    "subject.team_noun_subject",
    "subject.name_possessive",
    "sensitive.phone_number",
    "sensitive.payment_card",
  ]);
  const rules = allPatterns().filter((p) => names.has(p.name));
  expect(rules.map((p) => [p.name, splitLookbehind(p.pattern) !== null])).toEqual([...names].map((name) => [name, true]));
});

test("alternatives and a capture inside the lookbehind keep a pattern whole", () => {
  expect(splitLookbehind(/(?<!b)b|a/u)).toBeNull();
  expect(splitLookbehind(/(?<!(a))b/u)).toBeNull();
  expect(splitLookbehind(/(?<!a)b/gu)).toBeNull();
  expect(splitLookbehind(/a(?<!b)/u)).toBeNull();
});
