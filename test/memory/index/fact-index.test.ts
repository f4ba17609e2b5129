import { describe, expect, test } from "bun:test";
import { FactIndex, LIVE, PINNED, type IndexedFact } from "../../../src/memory/index/fact-index";
import { factTerms } from "../../../src/memory/index/postings";
import { pinnedFacts, recentFacts } from "../../../src/memory/index/listing";
import { planQuery } from "../../../src/memory/index/plan";
import { RANKING } from "../../../src/memory/index/params";
import { rankFacts } from "../../../src/memory/index/ranking";
import { readFilter, type ReadFilter } from "../../../src/memory/index/filter";
import { termsOf } from "../../../src/memory/index/terms";
import { renderPacket } from "../../../src/memory/packet";
import { indexedFact, NOW } from "./support";

const everyone = (index: FactIndex, endUserId: string | null = null): ReadFilter => readFilter(index, { endUserId, audience: "internal", kinds: null });

const search = (index: FactIndex, query: string, limit = 1000): string[] =>
  rankFacts(index, planQuery(index, query), everyone(index), { limit, now: NOW }).map((ord) => index.ids[ord]!);

/** Every term of the index with its document frequency, counted from scratch over the live facts. */
function dfFromScratch(index: FactIndex): Map<string, number> {
  const df = new Map<string, number>();
  for (let ord = 0; ord < index.count; ord++) {
    if ((index.flags[ord]! & LIVE) === 0) continue;
    const subject = index.subjects[index.subjectOf[ord]!]!.name;
    const { terms, meaningTerms } = factTerms(subject, index.text(ord));
    for (const term of new Set([...terms, ...meaningTerms])) df.set(term, (df.get(term) ?? 0) + 1);
  }
  return df;
}

function expectConsistent(index: FactIndex): void {
  const expected = dfFromScratch(index);
  for (const [term, postings] of index.postings) expect([term, postings.df]).toEqual([term, expected.get(term) ?? 0]);
  for (const term of expected.keys()) expect(index.postings.has(term)).toBe(true);
  let live = 0;
  let length = 0;
  for (let ord = 0; ord < index.count; ord++) {
    if ((index.flags[ord]! & LIVE) === 0) continue;
    live += 1;
    length += index.lengthOf[ord]!;
    expect(index.ordinal(index.ids[ord]!)).toBe(ord);
  }
  expect(index.live).toBe(live);
  expect(index.totalLength).toBe(length);
}

describe("FactIndex", () => {
  test("add, remove and re-add: a pin change replaces the indexed version, never duplicates it", () => {
    const index = new FactIndex();
    const fact = indexedFact("The billing service runs on Postgres.");
    const other = indexedFact("The search service runs on Elasticsearch.");
    index.add(fact);
    index.add(other);
    expect(index.live).toBe(2);
    expect(pinnedFacts(index, everyone(index), 10)).toEqual([]);

    index.add({ ...fact, pinned: true });
    expect(index.live).toBe(2);
    expect(index.count).toBe(3);
    const ord = index.ordinal(fact.id)!;
    expect(ord).toBe(2);
    expect(index.flags[0]).toBe(0);
    expect(index.flags[ord]! & PINNED).toBe(PINNED);
    expect(pinnedFacts(index, everyone(index), 10).map((o) => index.ids[o])).toEqual([fact.id]);
    expect(index.postings.get(termsOf("billing")[0]!)!.df).toBe(1);
    expect(index.postings.get(termsOf("service")[0]!)!.df).toBe(2);
    expect(search(index, "billing postgres")).toEqual([fact.id]);
    expect(search(index, "service").sort()).toEqual([fact.id, other.id].sort());
    expectConsistent(index);

    index.add({ ...fact, pinned: false });
    expect(pinnedFacts(index, everyone(index), 10)).toEqual([]);
    expect(index.live).toBe(2);
    expect(search(index, "service")).toHaveLength(2);

    index.remove(fact.id);
    expect(index.live).toBe(1);
    expect(index.ordinal(fact.id)).toBeUndefined();
    expect(search(index, "billing postgres")).toEqual([]);
    expect(search(index, "service")).toEqual([other.id]);
    expect(recentFacts(index, everyone(index), { limit: 10 }).map((o) => index.ids[o])).toEqual([other.id]);
    index.remove(fact.id);
    index.remove("fact_unknown");
    expect(index.live).toBe(1);
    expectConsistent(index);

    index.add(fact);
    expect(search(index, "billing postgres")).toEqual([fact.id]);
    expectConsistent(index);
  });

  test("document frequencies follow removals, and IDF with them", () => {
    const index = new FactIndex();
    const apples = [0, 1, 2, 3].map((i) => indexedFact(`Crate ${i} holds apples and pears.`));
    const plums = indexedFact("Crate nine holds plums.");
    for (const f of [...apples, plums]) index.add(f);
    const apple = termsOf("apples")[0]!;
    const crate = termsOf("crate")[0]!;
    expect(index.postings.get(apple)!.df).toBe(4);
    expect(index.postings.get(crate)!.df).toBe(5);
    const before = planQuery(index, "apples").groups[0]!.idf[0]!;
    index.remove(apples[0]!.id);
    index.remove(apples[1]!.id);
    index.remove(apples[2]!.id);
    expect(index.postings.get(apple)!.df).toBe(1);
    expect(index.postings.get(crate)!.df).toBe(2);
    // Dead ordinals stay in the postings until compaction; the frequency does not count them.
    expect(index.postings.get(apple)!.size).toBe(4);
    const after = planQuery(index, "apples").groups[0]!.idf[0]!;
    expect(after).toBeGreaterThan(before);
    expectConsistent(index);

    index.remove(apples[3]!.id);
    expect(index.postings.get(apple)!.df).toBe(0);
    // A term no live fact holds is not a query group of its own any more (by words; by meaning,
    // "pears" may still reach "plums").
    expect(planQuery(index, "pears", { ...RANKING, meaning: 0 }).groups).toHaveLength(0);
    // Only live facts are found: no removed one (the plums may still answer by meaning).
    expect(search(index, "apples").filter((id) => id !== plums.id)).toEqual([]);
    index.compact();
    expect(index.postings.has(apple)).toBe(false);
    expect(index.count).toBe(1);
    expect(search(index, "plums")).toEqual([plums.id]);
    expectConsistent(index);
  });

  test("compaction (forced by removing most facts) keeps every result identical to a fresh index", () => {
    const words = ["amber", "basalt", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "jasper", "kelp", "lagoon"];
    const users = ["u1", "u2", "u3"];
    const facts: IndexedFact[] = [];
    for (let i = 0; i < 3000; i++) {
      const w = (k: number) => words[(i * 7 + k * 5 + (i >> 3)) % words.length]!;
      const user = i % 5 === 0 ? users[i % users.length]! : null;
      facts.push(
        indexedFact(`Item ${i} mentions ${w(0)} ${w(1)} and ${w(2)}${i % 11 === 0 ? "?" : "."}`, {
          subject: user ?? (i % 4 === 0 ? "Priya" : "workspace"),
          subjectType: user ? "end_user" : "workspace",
          endUserId: user,
          pinned: i % 13 === 0,
          confidence: 0.5 + (i % 5) / 10,
          recordedAt: NOW - (i % 97) * 3_600_000,
        }),
      );
    }
    const index = new FactIndex();
    for (const f of facts) index.add(f);
    const removed = new Set<string>();
    for (const [i, f] of facts.entries()) if (i % 3 !== 1) removed.add(f.id);
    // Re-add a few survivors changed (pinned flipped) on the way, as a delta would.
    const kept = facts.filter((f) => !removed.has(f.id)).map((f, i) => (i % 17 === 0 ? { ...f, pinned: !f.pinned } : f));
    for (const f of facts) if (removed.has(f.id)) index.remove(f.id);
    for (const f of kept) index.add(f);

    // Compaction ran: fewer ordinals than were ever handed out, and no dead ordinal survives it
    // beyond the threshold.
    expect(index.count).toBeLessThan(facts.length + kept.length);
    expect(index.live).toBe(kept.length);
    expectConsistent(index);
    for (const [, p] of index.postings) {
      for (let i = 1; i < p.size; i++) expect(p.data[i - 1]! >>> 8).toBeLessThan(p.data[i]! >>> 8);
    }

    const fresh = new FactIndex();
    for (const f of [...kept].reverse()) fresh.add(f);
    const queries = ["amber", "basalt cobalt", "what does Priya say about ember", "kelp lagoon harbor", "item 42", "garn", "jaspr", "mentions", "indigo?"];
    for (const q of queries) {
      const expected = search(fresh, q, 200);
      expect(expected.length).toBeGreaterThan(0);
      expect([q, search(index, q, 200)]).toEqual([q, expected]);
    }
    for (const user of [null, "u1", "u2"]) {
      const a = everyone(index, user);
      const b = everyone(fresh, user);
      const ids = (idx: FactIndex, ords: number[]) => ords.map((o) => idx.ids[o]);
      expect(ids(index, recentFacts(index, a, { limit: 5000 }))).toEqual(ids(fresh, recentFacts(fresh, b, { limit: 5000 })));
      expect(ids(index, recentFacts(index, a, { limit: 5000, onlyEndUser: true }))).toEqual(
        ids(fresh, recentFacts(fresh, b, { limit: 5000, onlyEndUser: true })),
      );
      expect(ids(index, pinnedFacts(index, a, 5000))).toEqual(ids(fresh, pinnedFacts(fresh, b, 5000)));
      const planA = planQuery(index, "amber delta");
      const planB = planQuery(fresh, "amber delta");
      expect(ids(index, rankFacts(index, planA, a, { limit: 300, onlyEndUser: true, now: NOW }))).toEqual(
        ids(fresh, rankFacts(fresh, planB, b, { limit: 300, onlyEndUser: true, now: NOW })),
      );
    }

    // An explicit compaction of an index with no dead ordinals changes nothing.
    index.compact();
    const before = search(index, "basalt cobalt", 200);
    index.compact();
    expect(search(index, "basalt cobalt", 200)).toEqual(before);
  }, 30_000);

  test("factAt returns the API shape of what was added", () => {
    const index = new FactIndex();
    const fact = indexedFact("Dana prefers email.", {
      kind: "preference",
      origin: "user_stated",
      subject: "Dana",
      subjectType: "end_user",
      endUserId: "cust-1",
      confidence: 0.9,
      recordedAt: Date.UTC(2025, 4, 6, 7, 8, 9),
    });
    index.add(fact);
    expect(index.factAt(index.ordinal(fact.id)!)).toEqual({
      fact_id: fact.id,
      fact_text: "Dana prefers email.",
      kind: "preference",
      origin: "user_stated",
      subject: "Dana",
      confidence_level: 0.9,
      recorded_time: "2025-05-06T07:08:09.000Z",
    });
    expect(index.endUserIndex("cust-1")).toBe(0);
    expect(index.endUserIndex("cust-2")).toBe(-2);
  });

  test("packet line costs are remembered per fact, survive compaction and are forgotten when a fact changes", () => {
    const index = new FactIndex();
    const facts = Array.from({ length: 2000 }, (_, i) => indexedFact(`Fact number ${i} about apples.`));
    for (const fact of facts) index.add(fact);
    const packet = (lineCosts?: FactIndex["lineCosts"]) =>
      renderPacket({ pinned: [], aboutActor: [], retrieved: facts.slice(1500).map((f) => index.factAt(index.ordinal(f.id)!)), tokenBudget: 400, lineCosts });
    const fresh = packet();
    expect(packet(index.lineCosts)).toEqual(fresh);
    const kept = fresh.facts[0]!.fact_id;
    const cost = index.lineCosts.get(kept);
    expect(cost).toBeGreaterThan(0);
    expect(packet(index.lineCosts)).toEqual(fresh);

    for (const fact of facts.slice(0, 1400)) index.remove(fact.id);
    expect(index.count).toBeLessThan(2000);
    expect(index.lineCosts.get(kept)).toBe(cost!);
    const changed = facts.find((f) => f.id === kept)!;
    index.add({ ...changed, kind: "decision" });
    expect(index.lineCosts.get(kept)).toBeUndefined();
  });
});
