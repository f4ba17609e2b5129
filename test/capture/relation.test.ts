import { expect, test } from "bun:test";
import { oneValued, manyValued } from "../../src/capture/claim-key";
import { continuedClaim, namesValue, relateClaims, relateFacts, restates } from "../../src/capture/relation";

test("relateClaims: one-valued by value and polarity; many-valued only by polarity", () => {
  const v = (value: string, negated = false) => ({ value, negated });
  expect(relateClaims("one", v("tom"), v("alex"))).toBe("supersede");
  expect(relateClaims("one", v("tom"), v("tom"))).toBe("duplicate");
  expect(relateClaims("one", v("tom", true), v("tom"))).toBe("supersede");
  expect(relateClaims("one", v("tom", true), v("alex"))).toBe("coexist");
  expect(relateClaims("one", v("boston's south end"), v("boston"))).toBe("coexist");
  expect(relateClaims("one", v("@owen.r"), v("@owen"))).toBe("supersede");
  expect(relateClaims("one", v("hackney, in east london"), v("london"))).toBe("coexist");
  expect(relateClaims("one", v("senior product manager"), v("product manager"))).toBe("supersede");
  expect(relateClaims("one", v("every other friday"), v("every friday"))).toBe("supersede");
  expect(relateClaims("many", v("guitar", true), v("guitar"))).toBe("supersede");
  expect(relateClaims("many", v("guitar"), v("guitar"))).toBe("coexist");
});

test("namesValue: every word of the shorter is in the longer, aliases folded, never a bare number", () => {
  expect(namesValue("macbook pro", "his macbook")).toBe(true);
  expect(namesValue("postgresql", "postgres")).toBe(true);
  expect(namesValue("honda civic", "her civic")).toBe(true);
  expect(namesValue("mazda 3", "mazda")).toBe(true);
  expect(namesValue("2", "plan 2")).toBe(false);
  expect(namesValue("salesforce", "hubspot")).toBe(false);
});

test("relateFacts: a replacing claim supersedes only its own subject's live value", () => {
  const replacing = { ...manyValued("orion", "switched to", "cockroachdb"), replaces: "postgres" };
  expect(relateFacts(replacing, oneValued("orion", "primary database", "postgresql"))).toBe("supersede");
  expect(relateFacts(replacing, oneValued("atlas", "primary database", "postgresql"))).toBe("coexist");
  expect(relateFacts(replacing, oneValued("orion", "primary database", "postgresql", true))).toBe("coexist");
});

test("continuedClaim: a replacing fact carries on the claim it replaced, so the next change finds it", () => {
  const replacing = { ...manyValued("orion", "switched to", "cockroachdb"), replaces: "postgres" };
  expect(continuedClaim(replacing, [oneValued("orion", "primary database", "postgresql")])).toEqual(oneValued("orion", "primary database", "cockroachdb"));
  expect(continuedClaim(replacing, [manyValued("orion", "uses", "postgres")])).toEqual(manyValued("orion", "uses", "cockroachdb"));
  expect(continuedClaim(replacing, [])).toBe(replacing);
});

test("restates: a same-valued fact is skipped only when every content word is already in the live one", () => {
  expect(restates("greta reports to jonas now", "greta reports to jonas")).toBe(true);
  expect(restates("jonas is greta's manager", "greta reports to jonas")).toBe(false);
  expect(restates("we chose postgres for the new service because the team already knows it", "we chose postgres for the new service")).toBe(false);
});
