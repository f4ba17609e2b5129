import { readQueryTime, withoutExpressions } from "../../../src/memory/time/query-time";
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FactIndex, type IndexedFact } from "../../../src/memory/index/fact-index";
import { isVisible, readFilter, type ReadFilter } from "../../../src/memory/index/filter";
import { pinnedFacts, recentFacts } from "../../../src/memory/index/listing";
import { planQuery } from "../../../src/memory/index/plan";
import { RANKING } from "../../../src/memory/index/params";
import { rankFacts, type RankOptions } from "../../../src/memory/index/ranking";
import type { FactKind, ScoreExplanation } from "../../../src/schema/memory";
import { termsOf, TrigramProbe, trigramsOf } from "../../../src/memory/index/terms";
import { indexedFact, NOW } from "./support";

/** The reference phrasing share: the query's trigram set against the text's, as sets. */
function phrasingShare(query: string, text: string): number {
  const queryTrigrams = trigramsOf(query);
  const textTrigrams = trigramsOf(text);
  return queryTrigrams.size === 0 ? 0 : [...queryTrigrams].filter((t) => textTrigrams.has(t)).length / queryTrigrams.size;
}

function indexOf(facts: readonly IndexedFact[]): FactIndex {
  const index = new FactIndex();
  for (const f of facts) index.add(f);
  return index;
}

const filterFor = (
  index: FactIndex,
  v: { endUserId?: string | null; audience?: "internal" | "external"; kinds?: readonly FactKind[] | null } = {},
): ReadFilter => readFilter(index, { endUserId: v.endUserId ?? null, audience: v.audience ?? "internal", kinds: v.kinds ?? null });

function ranked(index: FactIndex, query: string, options: Partial<RankOptions> = {}, filter = filterFor(index)): string[] {
  return rankFacts(index, planQuery(index, query), filter, { limit: 100, now: NOW, ...options }).map((ord) => index.text(ord));
}

describe("query planning and expansion", () => {
  const index = indexOf([
    indexedFact("The cluster runs on Kubernetes 1.29."),
    indexedFact("Postgres is the billing database."),
    indexedFact("Our kubelet logs go to Loki."),
  ]);

  test("a partial word expands to the known terms it starts ('kubern' finds Kubernetes)", () => {
    // The prefix match comes first; a closely spelt term ("kubelet") may follow it.
    expect(ranked(index, "kubern")[0]).toBe("The cluster runs on Kubernetes 1.29.");
    expect(ranked(index, "kubernete")[0]).toBe("The cluster runs on Kubernetes 1.29.");
    expect(ranked(index, "postgr")).toEqual(["Postgres is the billing database."]);
    // A short start of a long word is spelt too differently for typo expansion: prefix only.
    const long = indexOf([indexedFact("The lab bought an electroencephalography rig."), indexedFact("Bikes are allowed in the lab.")]);
    expect(ranked(long, "electro")).toEqual(["The lab bought an electroencephalography rig."]);
  });

  test("a misspelt word expands to closely spelt known terms ('kubernetis')", () => {
    expect(ranked(index, "kubernetis")).toEqual(["The cluster runs on Kubernetes 1.29."]);
    expect(ranked(index, "billling databse")).toEqual(["Postgres is the billing database."]);
  });

  test("a word neither known nor close to a known one matches nothing; short unknown words do not expand", () => {
    expect(ranked(index, "xylophone")).toEqual([]);
    expect(planQuery(index, "xylophone").groups).toHaveLength(0);
    expect(planQuery(index, "ku").groups).toHaveLength(0);
    expect(planQuery(index, "xylophone").hasTerms).toBe(true);
  });

  test("a query of stop words and punctuation has no terms", () => {
    for (const q of ["the of and", "???", "—", "a", "What is it?"]) {
      const plan = planQuery(index, q);
      expect([q, plan.hasTerms, plan.groups.length]).toEqual([q, false, 0]);
      expect(ranked(index, q)).toEqual([]);
    }
  });

  test("limits: at most `limit` facts, none for limit 0", () => {
    const many = indexOf(Array.from({ length: 60 }, (_, i) => indexedFact(`Queue ${i} feeds the orange pipeline.`)));
    expect(ranked(many, "orange pipeline", { limit: 7 })).toHaveLength(7);
    expect(ranked(many, "orange pipeline", { limit: 55 })).toHaveLength(55);
    expect(ranked(many, "orange pipeline", { limit: 0 })).toEqual([]);
  });
});

describe("trigram probe", () => {
  test("equals the share of the query's trigram set found in the text's trigram set", () => {
    // Astral letters and emoji, lone surrogates and case mappings that change length: the
    // trigram lookup works on UTF-16 units, the reference on whole words.
    const word = fc.oneof(
      fc.constantFrom("cat", "dog", "a", "managers", "café", "naïve", "東京", "x1", "𝐀b", "b𝐀", "😀x", "\uD835", "\uDC00a", "İstanbul", "ß"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }),
      fc.string({ unit: "binary", minLength: 1, maxLength: 5 }),
    );
    const text = fc.array(word, { maxLength: 8 }).chain((words) => fc.constantFrom(words.join(" "), words.join(", "), words.join("-"), words.join("")));
    fc.assert(
      fc.property(text, text, (query, fact) => {
        expect(new TrigramProbe(trigramsOf(query)).shareIn(fact)).toBe(phrasingShare(query, fact));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("ranking signals", () => {
  test("naming a subject ranks the fact about that subject first among equal matches", () => {
    // Both facts hold "priya" and "like" once in four terms: equal BM25. The fact about Marco is
    // newer, so it would win every tie; naming Priya must move her fact ahead.
    const aboutPriya = indexedFact("Likes oolong tea", { subject: "Priya", recordedAt: NOW - 3 * 86_400_000 });
    const aboutMarco = indexedFact("Priya likes oolong", { subject: "Marco", recordedAt: NOW - 86_400_000 });
    const index = indexOf([aboutPriya, aboutMarco]);
    expect(planQuery(index, "what does Priya like").namedSubjects.size).toBe(1);
    expect(ranked(index, "what does Priya like")).toEqual(["Likes oolong tea", "Priya likes oolong"]);
    // Control: the same facts, a query that names nobody: the newer fact wins.
    expect(planQuery(index, "likes oolong").namedSubjects.size).toBe(0);
    expect(ranked(index, "likes oolong")).toEqual(["Priya likes oolong", "Likes oolong tea"]);
  });

  test("a subject of several words is named only as a phrase", () => {
    const index = indexOf([
      indexedFact("Prefers window seats", { subject: "Ana Lima", recordedAt: NOW - 3 * 86_400_000 }),
      indexedFact("Ana Lima window seats", { subject: "Bob", recordedAt: NOW - 86_400_000 }),
    ]);
    expect(planQuery(index, "does Ana Lima like window seats").namedSubjects.size).toBe(1);
    expect(planQuery(index, "Lima Ana window seats").namedSubjects.size).toBe(0);
    expect(ranked(index, "does Ana Lima like window seats")[0]).toBe("Prefers window seats");
  });

  test("a fact holding a rare query word outranks one that only shares the subject's name", () => {
    // Realistic document frequencies: the name is common, the other word rare.
    const filler = Array.from({ length: 60 }, (_, i) => indexedFact(`Priya reviewed ticket ${i}.`, { recordedAt: NOW - 400 * 86_400_000 }));
    const nameOnly = indexedFact("Priya prefers tea", { subject: "Priya", recordedAt: NOW, confidence: 1 });
    const rareWord = indexedFact("Kafka was chosen by Priya", { recordedAt: NOW - 300 * 86_400_000, confidence: 0.1 });
    const index = indexOf([...filler, nameOnly, rareWord]);
    expect(ranked(index, "Priya Kafka").slice(0, 2)).toEqual(["Kafka was chosen by Priya", "Priya prefers tea"]);
  });

  test("length is normalised: a short statement beats a long text that holds the same words among many", () => {
    const long = `Here is a long answer about many things: ${Array.from({ length: 80 }, (_, i) => `topic${i}`).join(" ")} and also the previous occupation question you asked.`;
    const index = indexOf([
      indexedFact(long, { recordedAt: NOW }),
      indexedFact("My previous occupation was marketing specialist.", { recordedAt: NOW - 30 * 86_400_000 }),
      ...Array.from({ length: 20 }, (_, i) => indexedFact(`Unrelated note ${i} about lunch.`)),
    ]);
    expect(ranked(index, "What was my previous occupation?")[0]).toBe("My previous occupation was marketing specialist.");
  });

  test("a word said again adds less each time (term frequency saturates)", () => {
    const index = indexOf([
      indexedFact("Kafka Kafka Kafka Kafka Kafka Kafka notes", { recordedAt: NOW }),
      indexedFact("Kafka cluster runs in Frankfurt", { recordedAt: NOW - 86_400_000 }),
      ...Array.from({ length: 20 }, (_, i) => indexedFact(`Unrelated note ${i} about lunch.`)),
    ]);
    // The second word outweighs repeating the first.
    expect(ranked(index, "Kafka Frankfurt")[0]).toBe("Kafka cluster runs in Frankfurt");
  });

  test("a fact phrased as a question loses to the statement of the same words", () => {
    // The question is newer and has the larger id: without the penalty it would come first.
    const statement = indexedFact("The deploy is on Friday.", { recordedAt: NOW - 2 * 86_400_000 });
    const question = indexedFact("Is the deploy on Friday?", { recordedAt: NOW - 86_400_000 });
    const index = indexOf([statement, question]);
    expect(ranked(index, "deploy Friday")).toEqual(["The deploy is on Friday.", "Is the deploy on Friday?"]);
    const control = indexOf([
      indexedFact("The deploy is on Friday.", { recordedAt: NOW - 2 * 86_400_000 }),
      indexedFact("Is the deploy on Friday!", { recordedAt: NOW - 86_400_000 }),
    ]);
    expect(ranked(control, "deploy Friday")).toEqual(["Is the deploy on Friday!", "The deploy is on Friday."]);
  });

  test("ties are broken by recorded time, then by the larger id, whatever the insertion order", () => {
    // Facts so old that recency adds nothing: equal scores, so only the tie-break orders them.
    const year = 365 * 86_400_000;
    const facts = [
      { id: "fact_c", t: 2 * year },
      { id: "fact_a", t: 3 * year },
      { id: "fact_d", t: 3 * year },
      { id: "fact_b", t: 1 * year },
    ].map(({ id, t }) => indexedFact("Green widgets ship weekly.", { id, recordedAt: t }));
    const farFuture = Date.UTC(2900, 0, 1);
    const expected = ["fact_d", "fact_a", "fact_c", "fact_b"];
    for (const order of [facts, [...facts].reverse(), [facts[2]!, facts[0]!, facts[3]!, facts[1]!]]) {
      const index = indexOf(order);
      const ids = (ords: number[]) => ords.map((o) => index.ids[o]);
      expect(ids(rankFacts(index, planQuery(index, "green widgets"), filterFor(index), { limit: 10, now: farFuture }))).toEqual(expected);
      // No phrasing re-score for long queries: the base order must be the same total order.
      const long = `green widgets ${"x".repeat(250)}`;
      expect(ids(rankFacts(index, planQuery(index, long), filterFor(index), { limit: 10, now: farFuture }))).toEqual(expected);
      expect(ids(recentFacts(index, filterFor(index), { limit: 10 }))).toEqual(expected);
    }
  });

  test("ties survive a full candidate heap: more than 40 equal scores still yield the most recent first", () => {
    const year = 365 * 86_400_000;
    const facts = Array.from({ length: 90 }, (_, i) => indexedFact("Amber lamps glow softly.", { recordedAt: (i + 1) * year }));
    const farFuture = Date.UTC(2900, 0, 1);
    const newest = facts
      .slice(-10)
      .reverse()
      .map((f) => f.id);
    for (const order of [facts, [...facts].reverse()]) {
      const index = indexOf(order);
      const ords = rankFacts(index, planQuery(index, "amber lamps"), filterFor(index), { limit: 10, now: farFuture });
      expect(ords.map((o) => index.ids[o])).toEqual(newest);
    }
  });

  test("a rarer word weighs more than a common one (IDF)", () => {
    // Neither fact holds both words; the one holding the rare word wins although the other is newer.
    const index = indexOf([
      indexedFact("Blue box", { recordedAt: NOW - 20 * 86_400_000 }),
      indexedFact("Green crate", { recordedAt: NOW - 86_400_000 }),
      indexedFact("Green pallet", { recordedAt: NOW - 86_400_000 }),
      indexedFact("Green barrel", { recordedAt: NOW - 86_400_000 }),
    ]);
    expect(ranked(index, "blue green")[0]).toBe("Blue box");
    expect(ranked(index, "blue green")).toHaveLength(4);
  });
});

describe("filters and options", () => {
  const facts = {
    workspace: indexedFact("Zebra rollout is planned for March.", { kind: "decision" }),
    sensitive: indexedFact("Zebra admin password is hunter2.", { sensitive: true }),
    team: indexedFact("Our team owns the zebra service.", { subject: "team", subjectType: "team" }),
    inferred: indexedFact("Zebra users probably prefer dark mode.", { origin: "agent_inferred", kind: "preference" }),
    u1: indexedFact("Dana likes zebra prints.", { subject: "Dana", subjectType: "end_user", endUserId: "u1", kind: "preference" }),
    u1b: indexedFact("Dana lives in Lyon near the zebra park.", { subject: "Dana", subjectType: "end_user", endUserId: "u1", kind: "profile_fact" }),
    u2: indexedFact("Eli dislikes zebra prints.", { subject: "Eli", subjectType: "end_user", endUserId: "u2", kind: "preference", pinned: true }),
    pinned: indexedFact("Zebra support hours are 9 to 5.", { pinned: true }),
  };
  const index = indexOf(Object.values(facts));
  const texts = (ords: number[]) => ords.map((o) => index.text(o)).sort();
  const all = (f: ReadFilter) => texts(Array.from({ length: index.count }, (_, o) => o).filter((o) => isVisible(index, o, f)));

  test("end user facts only for the named end user; external keys lose sensitive, team and inferred facts; kinds", () => {
    const shared = [facts.workspace, facts.sensitive, facts.team, facts.inferred, facts.pinned].map((f) => f.text);
    expect(all(filterFor(index))).toEqual([...shared].sort());
    expect(all(filterFor(index, { endUserId: "u1" }))).toEqual([...shared, facts.u1.text, facts.u1b.text].sort());
    expect(all(filterFor(index, { endUserId: "nobody" }))).toEqual([...shared].sort());
    expect(all(filterFor(index, { endUserId: "u2", audience: "external" }))).toEqual([facts.workspace.text, facts.pinned.text, facts.u2.text].sort());
    expect(all(filterFor(index, { endUserId: "u1", kinds: ["preference"] }))).toEqual([facts.inferred.text, facts.u1.text].sort());
    expect(texts(rankFacts(index, planQuery(index, "zebra"), filterFor(index, { endUserId: "u2", audience: "external" }), { limit: 100 }))).toEqual(
      [facts.workspace.text, facts.pinned.text, facts.u2.text].sort(),
    );
    expect(texts(pinnedFacts(index, filterFor(index), 10))).toEqual([facts.pinned.text]);
    expect(texts(pinnedFacts(index, filterFor(index, { endUserId: "u2" }), 10))).toEqual([facts.pinned.text, facts.u2.text].sort());
  });

  test("onlyEndUser keeps the named end user's facts; exclude drops the listed ordinals", () => {
    const u1 = filterFor(index, { endUserId: "u1" });
    const plan = planQuery(index, "zebra prints");
    expect(texts(rankFacts(index, plan, u1, { limit: 100, onlyEndUser: true }))).toEqual([facts.u1.text, facts.u1b.text].sort());
    expect(texts(recentFacts(index, u1, { limit: 100, onlyEndUser: true }))).toEqual([facts.u1.text, facts.u1b.text].sort());
    expect(rankFacts(index, plan, filterFor(index), { limit: 100, onlyEndUser: true })).toEqual([]);
    expect(recentFacts(index, filterFor(index), { limit: 100, onlyEndUser: true })).toEqual([]);
    expect(recentFacts(index, filterFor(index, { endUserId: "nobody" }), { limit: 100, onlyEndUser: true })).toEqual([]);

    const exclude = new Set([index.ordinal(facts.u1.id)!, index.ordinal(facts.workspace.id)!]);
    const withExclude = texts(rankFacts(index, planQuery(index, "zebra"), u1, { limit: 100, exclude }));
    expect(withExclude).not.toContain(facts.u1.text);
    expect(withExclude).not.toContain(facts.workspace.text);
    expect(withExclude).toContain(facts.u1b.text);
    expect(texts(recentFacts(index, u1, { limit: 100, onlyEndUser: true, exclude }))).toEqual([facts.u1b.text]);
    expect(texts(recentFacts(index, u1, { limit: 100, exclude }))).toHaveLength(all(u1).length - 2);
  });
});

describe("large workspaces: the exact top k of the ranking function", () => {
  // Word frequencies from every fact down to a handful, so MaxScore has common terms to stop
  // walking once the kept facts outscore them.
  const WORDS: [string, number][] = [
    ["alpha", 1.4],
    ["bravo", 2],
    ["charlie", 5],
    ["delta", 20],
    ["echo", 100],
    ["foxtrot", 1000],
  ];
  const facts: IndexedFact[] = [];
  let state = 12345;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  for (let i = 0; i < 6000; i++) {
    const words = WORDS.filter(([, every]) => random() < 1 / every).map(([w]) => w);
    const user = random() < 0.2 ? (random() < 0.5 ? "u1" : "u2") : null;
    facts.push(
      indexedFact(`Record ${words.join(" ")} number${i}.`, {
        subject: user === null ? (random() < 0.3 ? "Priya" : "workspace") : user === "u1" ? "Dana" : "Eli",
        subjectType: user === null ? "workspace" : "end_user",
        endUserId: user,
        sensitive: random() < 0.1,
        recordedAt: NOW - Math.floor(random() * 300) * 86_400_000,
        confidence: Math.round(random() * 100) / 100,
      }),
    );
  }
  const index = indexOf(facts);
  const termSets = facts.map((f) => new Set(termsOf(`${f.subject} ${f.text}`)));
  const position = new Map(facts.map((f, i) => [f.id, i]));

  /**
   * The ranking function written out plainly, from the facts rather than the index: every
   * visible fact holding a query term scored in full, sorted, the best `rerankDepth` re-scored by
   * phrasing. What MaxScore may skip must never change this.
   */
  function reference(query: string, filter: ReadFilter, limit: number, onlyEndUser: boolean): { ids: string[]; score: Map<string, number> } {
    const p = RANKING;
    // Time in the question: a relative expression's words are not terms; each window lifts the facts observed in it.
    const time = readQueryTime(query, NOW);
    const queryTerms = [...new Set(termsOf(withoutExpressions(query, time)))];
    const lift = (t: number): number =>
      Math.max(0, ...time.windows.map((w) => (t >= w.from && t < w.to ? 1 : Math.max(0, 1 - (t < w.from ? w.from - t : t - w.to) / w.fade))));
    const lengths = facts.map((f) => termsOf(`${f.subject} ${f.text}`).length);
    const avg = Math.max(lengths.reduce((a, b) => a + b, 0) / facts.length, p.minLength, 1);
    const df = (t: string): number => termSets.filter((set) => set.has(t)).length;
    const idf = new Map(queryTerms.map((t) => [t, Math.log(1 + (facts.length - df(t) + 0.5) / (df(t) + 0.5))]));
    const score = new Map<string, number>();
    facts.forEach((f, i) => {
      if (!isVisible(index, index.ordinal(f.id)!, filter) || (onlyEndUser && f.endUserId === null)) return;
      const terms = termsOf(`${f.subject} ${f.text}`);
      let sum = 0;
      let holds = false;
      for (const t of queryTerms) {
        const tf = terms.filter((x) => x === t).length;
        if (tf === 0) continue;
        holds = true;
        sum += (idf.get(t)! * tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + (p.b * Math.max(lengths[i]!, p.minLength)) / avg));
      }
      if (!holds) return;
      const named = queryTerms.includes(termsOf(f.subject)[0]!);
      sum +=
        (named ? p.subject : 0) +
        (f.endUserId !== null ? p.endUser : 0) +
        p.confidence * Math.fround(f.confidence) +
        p.recency * Math.exp(-(NOW - f.recordedAt) / (p.recencyDays * 86_400_000)) +
        p.time * lift(f.recordedAt);
      score.set(f.id, sum);
    });
    const byScore = (s: Map<string, number>) => (a: string, b: string) =>
      s.get(b)! - s.get(a)! || facts[position.get(b)!]!.recordedAt - facts[position.get(a)!]!.recordedAt || (a < b ? 1 : -1);
    const ranked = [...score.keys()].sort(byScore(score));
    if (query.length > 200) return { ids: ranked.slice(0, limit), score };
    const head = ranked.slice(0, p.rerankDepth);
    const final = new Map(score);
    const wording = withoutExpressions(query, time);
    for (const id of head) final.set(id, score.get(id)! + p.phrasing * phrasingShare(wording, facts[position.get(id)!]!.text));
    return { ids: [...head.sort(byScore(final)), ...ranked.slice(p.rerankDepth)].slice(0, limit), score: final };
  }

  test("results equal an exhaustive scoring of every visible fact holding a query word", () => {
    expect(index.postings.get("alpha")!.df).toBeGreaterThan(4000);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...WORDS.map(([w]) => w), "Priya"), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<"internal" | "external">("internal", "external"),
        fc.constantFrom<string | null>(null, "u1", "u2"),
        fc.boolean(),
        fc.integer({ min: 1, max: 100 }),
        fc.boolean(),
        fc.constantFrom("", " two months ago", " in March", " last week", " over the past three months"),
        (words, audience, endUserId, long, limit, onlyEndUser, when) => {
          const filter = filterFor(index, { audience, endUserId });
          // Past 200 characters a query skips the phrasing re-score; both paths are checked.
          const query = `${words.join(" ")}${when}${long ? " the".repeat(60) : ""}`;
          const plan = planQuery(index, query, RANKING, NOW);
          // The scoring function alone: the spread over conversations reorders its first five (tested below).
          const found = rankFacts(index, plan, filter, { limit, now: NOW, onlyEndUser, params: { ...RANKING, spread: 0 } }).map((ord) => index.ids[ord]!);
          const expected = reference(query, filter, limit, onlyEndUser);
          // Never fewer than `limit` while more visible facts hold a query word.
          expect(found.length).toBe(Math.min(limit, expected.score.size));
          expect(new Set(found).size).toBe(found.length);
          // Rank by rank the same scores (summation order may differ in the last bits).
          const gaps = found.map((id, i) => Math.abs((expected.score.get(id) ?? Number.NaN) - expected.score.get(expected.ids[i]!)!));
          expect(gaps.filter((gap) => !(gap < 1e-9))).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);

  test("the same query ranks identically every time and whatever the insertion order", () => {
    const reversed = indexOf([...facts].reverse());
    for (const q of ["foxtrot alpha", "echo alpha", "echo delta charlie", "Priya bravo", "alpha"]) {
      const a = rankFacts(index, planQuery(index, q), filterFor(index), { limit: 50, now: NOW }).map((o) => index.ids[o]);
      const b = rankFacts(index, planQuery(index, q), filterFor(index), { limit: 50, now: NOW }).map((o) => index.ids[o]);
      const c = rankFacts(reversed, planQuery(reversed, q), filterFor(reversed), { limit: 50, now: NOW }).map((o) => reversed.ids[o]);
      expect(a.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
      expect(c).toEqual(a);
    }
  });
});

/**
 * Candidates come only from visible facts: a word that only invisible facts hold (sensitive ones
 * for an external key, another end user's) must neither starve the caller's visible matches in a
 * large workspace nor reveal that it exists.
 */
describe("invisible facts never starve visible matches in large workspaces", () => {
  const index = indexOf([
    ...Array.from({ length: 4100 }, (_, i) => indexedFact(`Ticket ${i}: the reset link expired.`)),
    indexedFact("The admin password reset code is hunter2.", { sensitive: true }),
    indexedFact("Dana asked for a reset of her hunter3 token.", { subject: "Dana", subjectType: "end_user", endUserId: "u1" }),
  ]);

  test("an external key's results do not depend on words only sensitive facts hold", () => {
    const external = filterFor(index, { audience: "external" });
    const unknownWord = ranked(index, "zzqxv reset", { limit: 20 }, external);
    expect(unknownWord).toHaveLength(20);
    // "hunter2" exists only in a sensitive fact.
    expect(ranked(index, "hunter2 reset", { limit: 20 }, external)).toEqual(unknownWord);
    expect(ranked(index, "password reset", { limit: 20 }, external)).toEqual(unknownWord);
  });

  test("a call that names no end user is not starved by a word only another end user's facts hold", () => {
    const noEndUser = filterFor(index);
    expect(ranked(index, "hunter3 reset", { limit: 20 }, noEndUser)).toHaveLength(20);
  });
});

describe("a smaller limit returns a prefix of a larger one", () => {
  // Few words and three instants: many facts score exactly alike, so the tie-breakers (recency,
  // then id) decide, and a score that depended on the path that found the fact would show.
  const WORDS = ["zebra", "running", "priya", "gus", "tea", "oslo", "launch", "budget"];
  const INSTANTS = [NOW - 86_400_000, NOW - 3 * 86_400_000, NOW - 40 * 86_400_000];
  test("for random workspaces of near-identical facts and random queries", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }),
            fc.constantFrom(...INSTANTS),
            fc.constantFrom("workspace", "priya", "gus"),
          ),
          { minLength: 30, maxLength: 300 },
        ),
        fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 6 }),
        fc.constantFrom(1, 5, 21, 45),
        // A time in the question lifts some of the instants: ties among lifted facts too.
        fc.constantFrom("", " yesterday", " last week", " a month ago"),
        (facts, query, limit, when) => {
          const index = indexOf(facts.map(([words, recordedAt, subject]) => indexedFact(`${words.join(" ")}.`, { recordedAt, subject })));
          const plan = planQuery(index, `${query.join(" ")}${when}`, RANKING, NOW);
          const rank = (k: number): string[] => rankFacts(index, plan, filterFor(index), { limit: k, now: NOW }).map((ord) => index.ids[ord]!);
          expect(rank(limit)).toEqual(rank(facts.length + 1).slice(0, limit));
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("with conversation neighbours lending: facts taught at one instant are neighbours, and the loans keep the prefix", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }), fc.constantFrom(...INSTANTS), fc.boolean()), {
          minLength: 30,
          maxLength: 300,
        }),
        fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 6 }),
        fc.constantFrom(1, 5, 21, 45),
        fc.constantFrom("gus", null),
        fc.constantFrom(0, RANKING.neighbourAfter),
        (facts, query, limit, endUser, neighbourAfter) => {
          const params = { ...RANKING, neighbourAfter };
          const index = indexOf(
            facts.map(([words, recordedAt, aboutGus]) => indexedFact(`${words.join(" ")}.`, { recordedAt, ...(aboutGus && { endUserId: "gus" }) })),
          );
          const plan = planQuery(index, query.join(" "), params, NOW);
          const filter = filterFor(index, { endUserId: endUser });
          const rank = (k: number): string[] => rankFacts(index, plan, filter, { limit: k, now: NOW, params }).map((ord) => index.ids[ord]!);
          const all = rank(facts.length + 1);
          expect(rank(limit)).toEqual(all.slice(0, limit));
          expect(new Set(all).size).toBe(all.length);
          // Never a fact the caller may not see.
          for (const id of all) expect(isVisible(index, index.ordinal(id)!, filter)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("conversation neighbours", () => {
  // Every match may move here; by default the first five keep their places. Loans alone: no spread.
  const params = { ...RANKING, neighbourAfter: 0, spread: 0 };
  const turn = (text: string, minute: number, extra: Partial<IndexedFact> = {}): IndexedFact =>
    indexedFact(text, { recordedAt: NOW - 86_400_000 + minute * 60_000, ...extra });
  const dialogue = [
    turn("Melanie: I finally went to the doctor about my knee.", 0),
    turn("Caroline: And? What is the verdict?", 1),
    turn("Melanie: Nothing serious, the doctor just wants six weeks of rest.", 2),
    turn("Caroline: The pottery fair opens next Saturday.", 40),
    turn("Caroline: My doctor moved to Boston, so I need a new one.", 300),
  ];

  test("the reply next to the best match is lent part of its score; a turn far off in time is not lent to", () => {
    const index = indexOf(dialogue);
    const plan = planQuery(index, "what verdict did the doctor give about her knee", params, NOW);
    const explain = new Map();
    const found = rankFacts(index, plan, filterFor(index), { limit: 10, now: NOW, params, explain }).map((ord) => index.text(ord));
    expect(found[0]).toBe("Melanie: I finally went to the doctor about my knee.");
    expect(found).toContain("Melanie: Nothing serious, the doctor just wants six weeks of rest.");
    expect(found).not.toContain("Caroline: The pottery fair opens next Saturday.");
    const reply = index.ordinal(dialogue[2]!.id)!;
    // Two turns from the best match: its loan, at neighbourDecay, beats the next turn's.
    expect(explain.get(reply).neighbour.fact_id).toBe(dialogue[0]!.id);
    // The explanations' scores, loans included, are the order's.
    const scores = found.map((text) => explain.get(index.ordinal(dialogue.find((f) => f.text === text)!.id)!).score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Off, nothing is lent: the reply scores its own words only, and a far-off match the same either way.
    const offExplain = new Map();
    rankFacts(index, plan, filterFor(index), { limit: 10, now: NOW, params: { ...params, neighbour: 0 }, explain: offExplain });
    const faraway = index.ordinal(dialogue[4]!.id)!;
    expect(explain.get(reply).score).toBeGreaterThan(offExplain.get(reply).score);
    expect(explain.get(faraway)).toEqual(offExplain.get(faraway));
    expect(explain.get(faraway).neighbour).toBeUndefined();
  });

  test("a fact about another end user between two turns ends the conversation: no loan crosses it", () => {
    const loanTo = (facts: IndexedFact[]): unknown => {
      const index = indexOf(facts);
      const explain = new Map();
      rankFacts(index, planQuery(index, "doctor knee verdict", params, NOW), filterFor(index), { limit: 10, now: NOW, params, explain });
      return explain.get(index.ordinal(dialogue[1]!.id)!)?.neighbour;
    };
    expect(loanTo([dialogue[0]!, dialogue[1]!])).toEqual({ fact_id: dialogue[0]!.id, score: expect.any(Number) });
    expect(loanTo([dialogue[0]!, turn("My knee is fine, said Gus.", 1, { endUserId: "gus" }), dialogue[1]!])).toBeUndefined();
  });
});

describe("spread over conversations", () => {
  const DAY = 86_400_000;
  // One conversation yesterday crowded with matches; one a week ago holding the rest of the answer.
  const yesterday = [
    "I ran the marathon in Oslo.",
    "The Oslo marathon was hard.",
    "Oslo marathon, mile 20, was the worst.",
    "After the Oslo marathon I slept.",
  ].map((text, i) => indexedFact(text, { recordedAt: NOW - DAY + i * 60_000 }));
  const lastWeek = indexedFact("I signed up for the Oslo marathon.", { recordedAt: NOW - 7 * DAY });
  const weak = indexedFact("Oslo in winter.", { recordedAt: NOW - 14 * DAY });

  test("a match from another conversation takes a place among the first five from the crowded one; the scores stay the order's", () => {
    const index = indexOf([...yesterday, lastWeek, weak]);
    const plan = planQuery(index, "oslo marathon", RANKING, NOW);
    const rank = (params: typeof RANKING, explain?: Map<number, ScoreExplanation>): string[] =>
      rankFacts(index, plan, filterFor(index), { limit: 10, now: NOW, params, ...(explain && { explain }) }).map((ord) => index.ids[ord]!);
    const off = rank({ ...RANKING, spread: 0 });
    expect(off.indexOf(lastWeek.id)).toBeGreaterThan(1);
    const explain = new Map<number, ScoreExplanation>();
    const on = rank(RANKING, explain);
    // Two of yesterday's, then last week's: no more than two of one conversation while another's matches nearly as well.
    expect(on.slice(0, 3).filter((id) => yesterday.some((f) => f.id === id))).toHaveLength(2);
    expect(on[2]).toBe(lastWeek.id);
    expect(explain.get(index.ordinal(lastWeek.id)!)!.spread).toBeGreaterThan(0);
    const scores = on.map((id) => explain.get(index.ordinal(id)!)!.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // A match much weaker than the best left is not moved up.
    expect(on.indexOf(weak.id)).toBe(off.indexOf(weak.id));
  });

  test("facts observed at one instant are one conversation: nothing moves", () => {
    const index = indexOf([...yesterday, lastWeek].map((f) => ({ ...f, recordedAt: NOW - DAY })));
    const plan = planQuery(index, "oslo marathon", RANKING, NOW);
    const rank = (params: typeof RANKING): number[] => rankFacts(index, plan, filterFor(index), { limit: 10, now: NOW, params });
    expect(rank(RANKING)).toEqual(rank({ ...RANKING, spread: 0 }));
  });
});
