import { expect, test } from "bun:test";
import { randomBase62, sortableId } from "../src/ids";

test("sortable ids are unique and strictly increasing, also within one millisecond", () => {
  const now = Date.now();
  const sameMs = Array.from({ length: 500 }, () => sortableId("fact", now));
  const later = Array.from({ length: 500 }, () => sortableId("fact"));
  const all = [...sameMs, ...later];
  expect(new Set(all).size).toBe(all.length);
  for (let i = 1; i < all.length; i++) expect(all[i]! > all[i - 1]!).toBe(true);
  expect(all[0]).toMatch(/^fact_[0-9A-HJKMNP-TV-Z]{26}$/);
});

test("base62 secrets use the whole alphabet", () => {
  const text = Array.from({ length: 200 }, () => randomBase62(40)).join("");
  expect(text).toMatch(/^[0-9A-Za-z]+$/);
  expect(new Set(text).size).toBe(62);
});
