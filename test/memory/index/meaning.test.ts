/** The meaning signal of the ranking (docs/memory.md, "Search by meaning"), on the shipped lexicon. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FactIndex, type IndexedFact } from "../../../src/memory/index/fact-index";
import { CATEGORY_PREFIX } from "../../../src/memory/lexicon/lexicon";
import { INTENT_PREFIX } from "../../../src/memory/lexicon/intents";
import { planQuery } from "../../../src/memory/index/plan";
import { RANKING, type RankingParams } from "../../../src/memory/index/params";
import { rankFacts } from "../../../src/memory/index/ranking";
import { readFilter } from "../../../src/memory/index/filter";
import type { ScoreExplanation } from "../../../src/schema/memory";
import { indexedFact, NOW } from "./support";

function indexOf(texts: readonly string[]): FactIndex {
  const index = new FactIndex();
  for (const text of texts) index.add(indexedFact(text));
  return index;
}

const everyone = (index: FactIndex) => readFilter(index, { endUserId: null, audience: "internal", kinds: null });

function ranked(index: FactIndex, query: string, params: RankingParams = RANKING, limit = 20): string[] {
  return rankFacts(index, planQuery(index, query, params), everyone(index), { limit, now: NOW, params }).map((ord) => index.text(ord));
}

function explained(index: FactIndex, query: string): { text: string; explanation: ScoreExplanation }[] {
  const explain = new Map<number, ScoreExplanation>();
  const ords = rankFacts(index, planQuery(index, query), everyone(index), { limit: 20, now: NOW, explain });
  return ords.map((ord) => ({ text: index.text(ord), explanation: explain.get(ord)! }));
}

const WORKSPACE = [
  "I'm on a tennis team that plays on Thursdays.",
  "I have taken cello lessons since I was eight.",
  "My physician is Dr. Okafor at the Riverside practice.",
  "The invoice template lives in the finance drive.",
  "Our staging database runs PostgreSQL 15.",
  "The office closes early on Fridays.",
];

describe("search by meaning", () => {
  const index = indexOf(WORKSPACE);

  test("a question naming a category finds the fact naming a member ('sports' -> tennis, 'instrument' -> cello)", () => {
    expect(ranked(index, "which sports do I enjoy?")[0]).toBe("I'm on a tennis team that plays on Thursdays.");
    expect(ranked(index, "what musical instrument do I study?")[0]).toBe("I have taken cello lessons since I was eight.");
  });

  test("a word in other words finds its neighbour ('doctor' -> physician)", () => {
    expect(ranked(index, "who is my doctor?")[0]).toBe("My physician is Dr. Okafor at the Riverside practice.");
  });

  test("with the signal off, the same questions share no word with any fact and find nothing", () => {
    const off = { ...RANKING, meaning: 0 };
    expect(ranked(index, "which sports do I enjoy?", off)).toEqual([]);
    expect(ranked(index, "who is my doctor?", off)).toEqual([]);
  });

  test("nothing related, nothing returned: the weather on a workspace of billing facts", () => {
    const billing = indexOf([
      "Invoices are issued on the first business day of each month.",
      "Payment terms are net 30 for every customer.",
      "VAT is charged at 20% on UK invoices.",
      "Stripe handles card payments and retries failed charges three times.",
    ]);
    expect(ranked(billing, "what will the weather be like tomorrow?")).toEqual([]);
    expect(ranked(billing, "what is my cat called?")).toEqual([]);
  });

  test("an exact word outranks any neighbour of it", () => {
    const both = indexOf(["My physician is Dr. Bo.", "My doctor is Dr. Ana."]);
    expect(ranked(both, "doctor")).toEqual(["My doctor is Dr. Ana.", "My physician is Dr. Bo."]);
    expect(ranked(both, "physician")).toEqual(["My physician is Dr. Bo.", "My doctor is Dr. Ana."]);
  });

  test("a fact holding the word scores it once: no neighbour of the same word adds to it", () => {
    const [doctorAndPhysician, doctorOnly] = explained(indexOf(["My doctor is Ana.", "My doctor and physician is Ana."]), "doctor").map((r) => r.explanation);
    for (const e of [doctorAndPhysician!, doctorOnly!]) expect(e.meaning).toEqual([]);
  });

  test("a question asking for an attribute finds the fact stating it in other words (an intent)", () => {
    const people = indexOf([
      "I was raised in York by my grandparents.",
      "My GP is Dr. Okafor at the Riverside practice.",
      "The invoice template lives in the finance drive.",
      "Our staging database runs PostgreSQL 15.",
    ]);
    expect(ranked(people, "where did I grow up?")[0]).toBe("I was raised in York by my grandparents.");
    expect(ranked(people, "who is my family doctor?")[0]).toBe("My GP is Dr. Okafor at the Riverside practice.");
    // With intents off, nothing answers: no word, neighbour or category links them.
    expect(ranked(people, "where did I grow up?", { ...RANKING, intent: 0 })).toEqual([]);
    const [raised] = explained(people, "where did I grow up?");
    expect(raised!.explanation.meaning).toEqual([{ query_term: "grow", fact_term: "hometown", via: "intent", similarity: 0.7, score: expect.any(Number) }]);
  });

  test("an intent is a match by meaning of the words that asked: a fact holding them scores them once", () => {
    const results = explained(indexOf(["I was raised in York.", "I grew up in Leeds."]), "which city was I raised in?");
    const byText = new Map(results.map((r) => [r.text, r.explanation]));
    // Holds "raised" and states a hometown: the word counts, the intent adds nothing to it.
    expect(byText.get("I was raised in York.")!.meaning).toEqual([]);
    expect(byText.get("I was raised in York.")!.words.map((w) => w.query_term)).toEqual(["rais"]);
    // Lacks the word: the intent stands in for it.
    expect(byText.get("I grew up in Leeds.")!.meaning.map((m) => [m.query_term, m.fact_term, m.via])).toEqual([["rais", "hometown", "intent"]]);
  });

  test("a known word the workspace lacks is not read as a typo ('pet' is not 'per')", () => {
    const limits = indexOf(["The rate limit is 100 requests per minute."]);
    expect(ranked(limits, "pet")).toEqual([]);
  });

  test("explain: each part is reported by the code that adds it, and the parts sum to the order's scores", () => {
    const results = explained(index, "which sports does the tennis team enjoy? doctor");
    expect(results.length).toBeGreaterThan(1);
    for (const { explanation: e } of results) {
      const sum =
        e.words.reduce((s, w) => s + w.score, 0) +
        e.meaning.reduce((s, m) => s + m.score, 0) +
        e.subject +
        e.end_user +
        e.confidence +
        e.recency +
        e.question +
        e.phrasing +
        (e.neighbour?.score ?? 0) +
        (e.spread ?? 0);
      expect(Math.abs(sum - e.score)).toBeLessThan(1e-3);
    }
    const scores = results.map((r) => r.explanation.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const doctor = results.find((r) => r.text.startsWith("My physician"))!.explanation;
    expect(doctor.meaning).toEqual([
      { query_term: "doctor", fact_term: "physician", via: "neighbour", similarity: expect.any(Number), score: expect.any(Number) },
    ]);
    const tennis = results.find((r) => r.text.startsWith("I'm on a tennis"))!.explanation;
    expect(tennis.words.map((w) => w.query_term).sort()).toEqual(["team", "tenni"]);
    expect(tennis.meaning.map((m) => [m.query_term, m.fact_term, m.via])).toContainEqual(["sport", "sport", "category"]);
  });
});

describe("the top k stays exact with matches by meaning", () => {
  // Words with neighbours and categories among each other, so matches by meaning are many and
  // MaxScore's pruning has meaning cursors to skip.
  const WORDS = ["doctor", "physician", "nurse", "hospital", "car", "vehicle", "truck", "tennis", "badminton", "cello", "violin", "coffee", "tea"];
  const QUERY_WORDS = [...WORDS, "sport", "instrument", "drink", "automobile", "medicine"];
  test("a smaller limit returns a prefix of the exhaustive ranking, for random workspaces and queries", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 60 })), {
          minLength: 20,
          maxLength: 200,
        }),
        fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(1, 3, 10, 25),
        (rows, query, limit) => {
          const index = new FactIndex();
          const facts: IndexedFact[] = rows.map(([words, days]) => indexedFact(`${words.join(" ")}.`, { recordedAt: NOW - days * 86_400_000 }));
          for (const f of facts) index.add(f);
          const plan = planQuery(index, query.join(" "));
          const rank = (k: number): string[] => rankFacts(index, plan, everyone(index), { limit: k, now: NOW }).map((ord) => index.ids[ord]!);
          expect(rank(limit)).toEqual(rank(facts.length + 1).slice(0, limit));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("in a workspace of long facts, walking only the short facts' postings ranks as walking them all", () => {
    // A long fact (past MEANING_MAX_TERMS) gets nothing by meaning, so a match by meaning walks
    // only the short facts' postings; the old walk over every posting is the reference.
    const FILLER = Array.from({ length: 90 }, (_, i) => `filler${i}`).join(" ");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 60 }), fc.boolean()), {
          minLength: 20,
          maxLength: 120,
        }),
        fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(1, 3, 10, 25),
        (rows, query, limit) => {
          const index = new FactIndex();
          for (const [words, days, long] of rows) {
            index.add(indexedFact(`${words.join(" ")}${long ? ` ${FILLER}` : ""}.`, { recordedAt: NOW - days * 86_400_000 }));
          }
          const plan = planQuery(index, query.join(" "));
          const walkingAll = {
            ...plan,
            groups: plan.groups.map((g) => ({
              ...g,
              meaning: g.meaning.map((m) => ({
                ...m,
                postings: index.postings.get(m.via === "category" ? `${CATEGORY_PREFIX}${m.term}` : m.via === "intent" ? `${INTENT_PREFIX}${m.term}` : m.term)!,
              })),
            })),
          };
          const rank = (k: number, p = plan): string[] => rankFacts(index, p, everyone(index), { limit: k, now: NOW }).map((ord) => index.ids[ord]!);
          expect(rank(limit)).toEqual(rank(index.count + 1, walkingAll).slice(0, limit));
        },
      ),
      { numRuns: 300 },
    );
  });
});
