import { expect, test } from "bun:test";
import { lemma, matchTokens, optional, phrase, pos, slot, spanText, tail, word } from "../../../src/capture/rules/pattern";
import { tokenize } from "../../../src/capture/tokens";

const NOUNISH = { pos: ["PROPN", "NOUN", "NUM"] };

test("slots capture their tokens; the match is anchored at both ends", () => {
  const pattern = [phrase("subject", NOUNISH), lemma("switch"), word("from"), phrase("replaced", NOUNISH), word("to"), phrase("value", NOUNISH)];
  const slots = matchTokens(pattern, tokenize("Orion switched from Postgres to CockroachDB"));
  expect(spanText(slots?.subject)).toBe("Orion");
  expect(spanText(slots?.replaced)).toBe("Postgres");
  expect(spanText(slots?.value)).toBe("CockroachDB");
  expect(matchTokens(pattern, tokenize("Orion switched from Postgres to CockroachDB last week"))).toBeNull();
});

test("a greedy phrase runs to the end of its noun phrase, and a tail takes what follows", () => {
  const pattern = [phrase("subject", NOUNISH), pos("VERB"), optional(pos("DET")), phrase("value", NOUNISH), tail];
  const slots = matchTokens(pattern, tokenize("Hannah drives a Tesla Model 3 in winter"));
  expect(spanText(slots?.value)).toBe("Tesla Model 3");
  expect(spanText(slots?.tail)).toBe("in winter");
});

test("a lazy slot stops where the next step can start", () => {
  const slots = matchTokens([slot("before"), word("is"), slot("after")], tokenize("The office password is hunter2 is it"));
  expect(spanText(slots?.before)).toBe("The office password");
  expect(spanText(slots?.after)).toBe("hunter2 is it");
});
