/**
 * Prints EXPLAIN (ANALYZE, BUFFERS) of the product's search SQL (`analyseQuery` + `rankFacts`) for a query, with
 * the visibility of an internal key and no end user, after a few warm-up runs; then times the
 * plain query over repeated runs through the product's driver (prepared statements, as the server
 * runs it) to show whether the cached plan behaves like the EXPLAINed one.
 *
 *   bun bench/explain.ts --database-url URL --workspace SLUG [--query "who is Priya's manager"] [--limit 20] [--runs 50]
 *                        [--profile-queries [--seed SLUG]]
 *
 * --profile-queries instead times every query of the bench's query pool (bench/support/synth.ts,
 * the same the HTTP bench sends) once, sequentially, and prints the distribution and the slowest
 * and fastest queries: which query shapes cost what.
 */
import { openPostgres } from "../src/db/postgres";
import { analyseQuery, rankFacts } from "../src/memory/rank";
import { recentFacts } from "../src/memory/store";
import type { Visibility } from "../src/memory/visibility";
import { explainSearch } from "./support/explain";
import { percentiles } from "./support/loadgen";
import { makeCast, makeQueries } from "./support/synth";
import { argValue } from "./support/args";


const databaseUrl = argValue("--database-url") ?? process.env.BENCH_DATABASE_URL;
const slug = argValue("--workspace");
if (!databaseUrl || !slug) {
  console.error('usage: bun bench/explain.ts --database-url URL --workspace SLUG [--query "..."] [--limit 20] [--runs 50]');
  process.exit(2);
}
const query = argValue("--query") ?? "who is Priya Natarajan's manager";
const limit = Number(argValue("--limit") ?? 20);
const runs = Number(argValue("--runs") ?? 50);

const db = openPostgres({ url: databaseUrl, maxConnections: 1 });
try {
  const ws = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${slug}`;
  if (!ws[0]) throw new Error(`no workspace "${slug}"`);
  const v: Visibility = { workspaceId: ws[0].id, audience: "internal", endUserId: null, kinds: null };
  // What searchFacts runs: analyse, then rank (or the latest facts for a query with no terms).
  const search = async (q: string) => {
    const analysed = await analyseQuery(db, v.workspaceId, q);
    return analysed.hasTerms ? rankFacts(db, v, analysed, { query: q, limit }) : recentFacts(db, v, { limit });
  };
  if (process.argv.includes("--profile-queries")) {
    const seed = argValue("--seed") ?? slug;
    const queries = makeQueries(seed, makeCast(seed));
    const timed: { query: string; ms: number; rows: number }[] = [];
    for (const q of queries.slice(0, 20)) await search(q);
    for (const q of queries) {
      const t0 = performance.now();
      const rows = await search(q);
      timed.push({ query: q, ms: performance.now() - t0, rows: rows.length });
    }
    const p = percentiles(timed.map((t) => t.ms));
    console.log(`${timed.length} queries: p50 ${p.p50.toFixed(2)} ms, p95 ${p.p95.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms, mean ${p.mean.toFixed(2)} ms`);
    const short = timed.filter((t) => t.query.length <= 64).map((t) => t.ms);
    const long = timed.filter((t) => t.query.length > 64).map((t) => t.ms);
    console.log(`  <= 64 chars (trigram on): ${short.length}, p50 ${percentiles(short).p50.toFixed(2)} ms; > 64 chars: ${long.length}, p50 ${percentiles(long).p50.toFixed(2)} ms`);
    timed.sort((a, b) => b.ms - a.ms);
    console.log("slowest:");
    for (const t of timed.slice(0, 12)) console.log(`  ${t.ms.toFixed(1).padStart(7)} ms  ${t.rows} rows  ${JSON.stringify(t.query)}`);
    console.log("fastest:");
    for (const t of timed.slice(-5)) console.log(`  ${t.ms.toFixed(1).padStart(7)} ms  ${t.rows} rows  ${JSON.stringify(t.query)}`);
    process.exit(0);
  }
  for (let i = 0; i < 3; i++) await search(query);
  console.log(`-- query: ${JSON.stringify(query)}, limit ${limit}, workspace ${slug}`);
  console.log(await explainSearch(db, v, { query, limit }));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await search(query);
    times.push(performance.now() - t0);
  }
  const p = percentiles(times);
  console.log(`-- analyseQuery + rankFacts through openPostgres (prepared), ${runs} runs: p50 ${p.p50.toFixed(2)} ms, p95 ${p.p95.toFixed(2)} ms, max ${p.max.toFixed(2)} ms`);
} finally {
  await db.close();
}
