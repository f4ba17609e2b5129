import { expect, test } from "bun:test";
import { normalizeForDuplicates } from "../../src/capture/analyze";

test.each([
  ["Priya prefers tea.", "priya prefers tea"],
  ["  Priya   prefers\t\ttea!!  ", "priya prefers tea"],
  ["Cafe\u0301 opens at 9", "café opens at 9"],
  ["Café opens at 9", "café opens at 9"],
  ["Is it done?", "is it done"],
  ["a, b; c.", "a, b; c"],
  ["Hello ... ", "hello"],
  ["ÄBC Corp", "äbc corp"],
  ["line one\nline two\r\n", "line one line two"],
  ["Version 1.2.3 ships", "version 1.2.3 ships"],
  ["Ends with 1.2.3.", "ends with 1.2.3"],
  ["\u00A0NBSP\u00A0", "nbsp"],
  ["...!!!", ""],
  ["", ""],
  ["Keep: inner punctuation, please", "keep: inner punctuation, please"],
])("normalizeForDuplicates(%j) -> %j", (input, expected) => {
  expect(normalizeForDuplicates(input)).toBe(expected);
});

test("composed and decomposed spellings share one duplicate key", () => {
  expect(normalizeForDuplicates("Zoe\u0308 likes tea")).toBe(normalizeForDuplicates("Zoë likes tea"));
});

test("a long run of trailing punctuation is trimmed without a regex", () => {
  const text = `fact${".".repeat(4000)}x${".".repeat(4000)}`;
  expect(normalizeForDuplicates(text)).toBe(`fact${".".repeat(4000)}x`);
});
