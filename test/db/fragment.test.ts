import { expect, test } from "bun:test";
import { flatten, fragment } from "../../src/db/fragment";

const query = (strings: TemplateStringsArray, ...values: unknown[]) => flatten(strings, values);

test("fragments inline into one template; every value stays a bind parameter, in order", () => {
  const where = fragment`f.workspace_id = ${"ws_1"} AND f.kind = ANY(${["a", "b"]}::text[])`;
  const flat = query`SELECT id FROM facts f WHERE ${where} AND f.id > ${"x'; DROP TABLE facts; --"} LIMIT ${10}`;
  expect([...flat.strings]).toEqual(["SELECT id FROM facts f WHERE f.workspace_id = ", " AND f.kind = ANY(", "::text[]) AND f.id > ", " LIMIT ", ""]);
  expect(flat.values).toEqual(["ws_1", ["a", "b"], "x'; DROP TABLE facts; --", 10]);
});

test("nested fragments and a fragment with no values flatten the same way", () => {
  const inner = fragment`b = ${2}`;
  const middle = fragment`a = ${1} AND ${inner}`;
  const plain = fragment`c IS NULL`;
  const flat = query`WHERE ${middle} AND ${plain} AND d = ${4}`;
  expect([...flat.strings]).toEqual(["WHERE a = ", " AND b = ", " AND c IS NULL AND d = ", ""]);
  expect(flat.values).toEqual([1, 2, 4]);
});

test("a template without fragments is unchanged", () => {
  const flat = query`SELECT ${1}, ${"two"}`;
  expect([...flat.strings]).toEqual(["SELECT ", ", ", ""]);
  expect(flat.values).toEqual([1, "two"]);
});

test("the same query text always reaches the driver as the same strings array, with or without fragments", () => {
  // postgres.js keeps an entry per strings array it sees: a new array per call would grow forever.
  const plain = (n: number) => query`SELECT ${n}`;
  expect(plain(1).strings).toBe(plain(2).strings);
  const composed = (n: number) => query`SELECT id FROM facts WHERE ${fragment`kind = ${n}`} LIMIT ${n}`;
  const [first, second] = [composed(1), composed(2)];
  expect(first.strings).toBe(second.strings);
  expect(second.values).toEqual([2, 2]);
  expect(query`SELECT id FROM facts WHERE ${fragment`kind = ${1} AND true`} LIMIT ${1}`.strings).not.toBe(first.strings);
});
