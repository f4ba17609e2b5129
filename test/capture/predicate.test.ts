import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { predicateOf, relationsMeet, sameOneValuedRelation } from "../../src/capture/predicate";
import { PREDICATES, cardinalityOf } from "../../src/capture/rules/predicates";
import { tokenize } from "../../src/capture/tokens";

const read = (text: string) => predicateOf(tokenize(text));

test.each([
  ["Our staging database runs PostgreSQL 15.", "run", null, false],
  ["The Wren search service runs on Elasticsearch 7.", "run", "on", false],
  ["The staging database now has nightly backups.", "have", null, false],
  ["Project Tinderbox is now in beta.", "be", "in", true],
  // The frame is not the claim: what was decided is.
  ["We decided to use Terraform for infrastructure.", "use", null, false],
  ["We decided the mobile team uses trunk-based development.", "use", null, false],
  ["We have now started a short async check-in every Monday.", "start", null, false],
  // A relation said without its verb.
  ["I'd rather have meetings after lunch now.", "prefer", null, false],
  ["Caspian has started a new job at Nimbrook Analytics.", "work", "at", false],
] as const)("%s claims %s %s", (text, lemma, preposition, copula) => {
  expect(read(text)).toMatchObject({ lemma, preposition, copula });
});

test("denials, changes, counts and exclusive words are read", () => {
  expect(read("The mobile app no longer supports dark mode.")?.negated).toBe(true);
  expect(read("The mobile app now supports offline sync.")?.negated).toBe(false);
  expect(read("Pellucid moved its headquarters to Raleigh.")?.change).toBe(true);
  expect([...(read("Bluewater Retail now has 15 stores.")?.counted ?? [])]).toEqual(["store"]);
  expect(read("We support only Safari 15 and up.")?.exclusive).toBe(true);
});

test("a change word never stands in for the same relation", () => {
  const meet = (newer: string, older: string): boolean => relationsMeet(read(newer), read(older));
  expect(meet("The staging database now has nightly backups.", "Our staging database runs PostgreSQL 15.")).toBe(false);
  expect(meet("The mobile app now supports offline sync.", "The mobile app supports dark mode.")).toBe(false);
  expect(meet("The mobile app no longer supports dark mode.", "The mobile app supports dark mode.")).toBe(true);
  expect(meet("Bluewater Retail now has 15 stores.", "Bluewater Retail operates 18 stores.")).toBe(true);
  expect(meet("Kwame now earns $90,000.", "Kwame's base salary is $82,000.")).toBe(true);
  expect(sameOneValuedRelation(read("The service now runs on OpenSearch 2."), read("The service runs on Elasticsearch 7."))).toBe(true);
  expect(sameOneValuedRelation(read("Tom now works on billing."), read("Tom works at Acme."))).toBe(false);
});

test("the lexicon: a preposition narrows a record, a lemma without one has no cardinality", () => {
  expect(cardinalityOf("work", "at")).toBe("one");
  expect(cardinalityOf("work", "on")).toBe("many");
  expect(cardinalityOf("support", null)).toBe("many");
  expect(cardinalityOf("photograph", null)).toBeNull();
  // One reading per lemma and preposition: two records never disagree on it.
  const seen = new Map<string, string>();
  for (const record of PREDICATES) {
    for (const lemma of record.lemmas) {
      const key = `${lemma} ${record.preposition ?? "*"}`;
      expect(seen.get(key) ?? record.cardinality).toBe(record.cardinality);
      seen.set(key, record.cardinality);
    }
  }
});

test("docs/memory.md shows the lexicon as it is: its table is rendered from the records", () => {
  const rows = PREDICATES.map((r) => `| ${r.lemmas.join(", ")} | ${r.preposition ?? "any"} | ${r.cardinality} | ${r.why} |`);
  const table = ["| verbs | preposition | values | why |", "|---|---|---|---|", ...rows].join("\n");
  expect(readFileSync(join(import.meta.dir, "../../docs/memory.md"), "utf8")).toContain(table);
});
