import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { digitRunsOf } from "../../../src/capture/rules/digit-runs";
import { SENSITIVE_RULES } from "../../../src/capture/rules/sensitive";

describe("digit runs", () => {
  test("a phone run is measured from its first digit to its last", () => {
    expect(digitRunsOf("call (415) 555-0123 today").widest).toBe(13);
    expect(digitRunsOf("v1.2 and 3").widest).toBe(3);
    expect(digitRunsOf("no digits").widest).toBe(0);
  });

  test("a chain allows one space or hyphen between digits, not two", () => {
    expect(digitRunsOf("4111 1111-1111 1111").chain).toBe(16);
    expect(digitRunsOf("12  34").chain).toBe(2);
    expect(digitRunsOf("12 -34").chain).toBe(2);
    expect(digitRunsOf("12a34").chain).toBe(2);
  });
});

/** Every sensitive rule that names what it needs of the digit runs. */
const gated = SENSITIVE_RULES.filter((rule) => rule.digits !== undefined);

/**
 * Texts made of digit groups, the characters the digit patterns allow between them, the capitals
 * IBANs and national insurance numbers open and close with, the head of a social security number,
 * and what breaks a run.
 */
const digitish = fc
  .array(
    fc.tuple(
      fc.constantFrom("", "", "", "AB", "GB ", "DE", "x", "é", "123-45-"),
      fc.stringMatching(/^[0-9]{1,5}$/),
      fc.constantFrom("", " ", " ", "-", "-", "  ", ".", "(", ") ", "+", " C", "\n"),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.flat().join(""));

describe("a digit pattern is skipped only when it cannot match", () => {
  test("the gated rules are the digit patterns", () => {
    expect(gated.map((rule) => rule.name).sort()).toEqual(["iban", "payment_card", "phone_number", "ssn_number", "uk_nino"]);
  });

  test("each gated rule's example matches pass its condition", () => {
    const examples = ["+44 20 7946 0958", "(415) 555-0123", "4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00", "123-45-6789", "AB 12 34 56 C"];
    for (const text of examples) {
      const runs = digitRunsOf(text);
      for (const rule of gated)
        if (rule.pattern.test(text)) expect({ text, rule: rule.name, holds: rule.digits?.(runs) }).toEqual({ text, rule: rule.name, holds: true });
    }
  });

  test("whenever a gated pattern matches a text, the text's runs meet its condition", () => {
    const matched = new Set<string>();
    fc.assert(
      fc.property(digitish, (text) => {
        const runs = digitRunsOf(text);
        for (const rule of gated) {
          if (!rule.pattern.test(text)) continue;
          matched.add(rule.name);
          if (rule.digits?.(runs) !== true) return false;
        }
        return true;
      }),
      { numRuns: 20_000, seed: 43 },
    );
    // The texts reach every gated pattern, so none of the conditions is checked vacuously.
    expect([...matched].sort()).toEqual(gated.map((rule) => rule.name).sort());
  });
});
