/**
 * Time in the question, end to end on both databases: REST search and context, explain, and the
 * MCP search tool read "two months ago" at the read's instant (`as_of`, else now) and lift the
 * facts observed then (or naming that time) without dropping the others; an order question's
 * packet lists a subject's facts in observed order.
 */
import { expect, test } from "bun:test";
import { call, makeKey, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { connectMcp, resultJson, servedOverHttp } from "../helpers/mcp";

const DAY = 86_400_000;
const AS_OF = "2026-06-15T12:00:00Z";
const daysBefore = (days: number, from: string | number = AS_OF): string => new Date(new Date(from).getTime() - days * DAY).toISOString();

const TRIPS = [
  { text: "Ana flew to Lisbon for the offsite.", observed_at: daysBefore(150) },
  { text: "Ana flew to Oslo for a customer visit.", observed_at: daysBefore(61) },
  { text: "Ana flew to Lima for the conference.", observed_at: daysBefore(6) },
];

describeEachDb("time in the question", (get) => {
  const setup = async (facts: readonly { text: string; observed_at: string }[]) => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const taught = await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts } });
    expect(taught.status).toBe(202);
    const search = (body: Record<string, unknown>) => call(app, "POST", "/v1/memory/search", { key: key.secret, body: { limit: 10, ...body } });
    return { app, key, search };
  };
  const texts = (res: { json: any }): string[] => res.json.data.facts.map((f: { fact_text: string }) => f.fact_text);

  test("the fact observed in the window comes first; the others are still found", async () => {
    const { search } = await setup(TRIPS);
    const plain = texts(await search({ query: "where did Ana fly", as_of: AS_OF }));
    expect(plain[0]).toBe(TRIPS[2]!.text);
    const twoMonths = texts(await search({ query: "where did Ana fly two months ago?", as_of: AS_OF }));
    expect(twoMonths[0]).toBe(TRIPS[1]!.text);
    expect([...twoMonths].sort()).toEqual(TRIPS.map((t) => t.text).sort());
    const fiveMonths = texts(await search({ query: "where did Ana fly five months ago?", as_of: AS_OF }));
    expect(fiveMonths[0]).toBe(TRIPS[0]!.text);
  });

  test("without as_of the expression is read at now", async () => {
    const now = Date.now();
    const { search } = await setup(TRIPS.map((t, i) => ({ ...t, observed_at: daysBefore([150, 61, 6][i]!, now) })));
    expect(texts(await search({ query: "where did Ana fly two months ago?" }))[0]).toBe(TRIPS[1]!.text);
  });

  test("explain shows the window and each fact's time part; the expression's words are not terms", async () => {
    const { search } = await setup(TRIPS);
    const res = await search({ query: "where did Ana fly two months ago?", as_of: AS_OF, explain: true });
    const [first, ...rest] = res.json.data.facts as { fact_text: string; explanation: any }[];
    expect(first!.explanation.time).toBeGreaterThan(0);
    expect(first!.explanation.time_window.expression).toBe("two months ago");
    expect(Date.parse(first!.explanation.time_window.from)).toBeLessThan(Date.parse(TRIPS[1]!.observed_at));
    expect(Date.parse(first!.explanation.time_window.to)).toBeGreaterThan(Date.parse(TRIPS[1]!.observed_at));
    for (const fact of [first!, ...rest]) {
      const e = fact.explanation;
      const matched = [...e.words, ...e.meaning].reduce((s: number, w: { score: number }) => s + w.score, 0);
      const sum = matched + e.subject + e.end_user + e.confidence + e.recency + e.question + e.phrasing + e.time;
      expect(Math.abs(sum - e.score)).toBeLessThan(0.001);
      expect(e.words.map((w: { query_term: string }) => w.query_term)).not.toContain("ago");
      expect(e.words.map((w: { query_term: string }) => w.query_term)).not.toContain("month");
    }
    expect(rest.map((f) => f.explanation.time).every((t: number) => t < first!.explanation.time)).toBe(true);
  });

  test("a fact that names a time is lifted by it: 'two months ago' said today is about two months ago", async () => {
    const { search } = await setup([
      { text: "Ana repainted the kitchen two months ago.", observed_at: daysBefore(20) },
      { text: "Ana repainted the garage.", observed_at: daysBefore(1) },
      { text: "Ana repainted the porch.", observed_at: daysBefore(2) },
    ]);
    // Observed earliest, the kitchen fact would come last by recency alone.
    expect(texts(await search({ query: "what did Ana repaint?", as_of: AS_OF }))[0]).toBe("Ana repainted the garage.");
    const found = texts(await search({ query: "what did Ana repaint two months ago?", as_of: AS_OF }));
    expect(found[0]).toBe("Ana repainted the kitchen two months ago.");
  });

  test("a query that is only a time lists the facts nearest it first, each explained by its time part", async () => {
    const { search } = await setup([...TRIPS, { text: "Ana booked a hotel in Quito.", observed_at: daysBefore(1) }]);
    // Not the latest first: the fact from six days ago lies in last week, the one from yesterday does not.
    const res = await search({ query: "what happened last week?", as_of: AS_OF, explain: true });
    const found = res.json.data.facts as { fact_text: string; explanation: any }[];
    expect(found[0]!.fact_text).toBe(TRIPS[2]!.text);
    expect(found).toHaveLength(4);
    expect(found[0]!.explanation.time).toBeGreaterThan(found[1]!.explanation.time);
    expect(found[0]!.explanation.time_window.expression).toBe("last week");
    expect(found[0]!.explanation.score).toBe(found[0]!.explanation.time);
  });

  test("an order question's packet lists the subject's facts in observed order", async () => {
    const shuffled = [TRIPS[2]!, TRIPS[0]!, TRIPS[1]!];
    const { app, key } = await setup(shuffled);
    const context = async (query: string) =>
      (await call(app, "POST", "/v1/memory/context", { key: key.secret, body: { query, as_of: AS_OF } })).json.data as {
        facts: { fact_text: string; recorded_time: string; layer: string }[];
      };
    const ordered = await context("Which city did Ana fly to first: Lima, Oslo or Lisbon?");
    const retrieved = ordered.facts.filter((f) => f.layer === "retrieved");
    expect(retrieved.map((f) => f.fact_text)).toEqual(TRIPS.map((t) => t.text));
    const times = retrieved.map((f) => Date.parse(f.recorded_time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // The same facts for a question that is not about order: most relevant (here the latest) first.
    const relevant = (await context("Where did Ana fly?")).facts.filter((f) => f.layer === "retrieved");
    expect(relevant[0]!.fact_text).toBe(TRIPS[2]!.text);
  });
});

describeEachDb("time in the question over MCP", (get) => {
  const served = servedOverHttp(get);

  test("search_memory reads the time in its query at its as_of", async () => {
    const key = await makeKey(get().db);
    const taught = await call(served.harness.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: TRIPS } });
    expect(taught.status).toBe(202);
    const client = served.closeLater(await connectMcp(served.base, key.secret));
    const result = await client.callTool({ name: "search_memory", arguments: { query: "where did Ana fly two months ago?", as_of: AS_OF } });
    const facts = resultJson(result).facts as { fact_text: string }[];
    expect(facts[0]!.fact_text).toBe(TRIPS[1]!.text);
    expect(facts).toHaveLength(3);
  });
});
