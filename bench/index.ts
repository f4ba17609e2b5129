/**
 * The in-process search index on its own (src/memory/index/): cold build time from PostgreSQL
 * (and from embedded PGlite), its memory per fact, and search / context latency with the index
 * current (the service functions `searchFacts` and `buildContext`, no HTTP, no database work).
 *
 *   bun bench/index.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--no-pglite]
 *                      [--builds 3] [--passes 3] [--queries 600] [--only m100k,one1m,g3k,...]
 *
 * Workspaces come from bench/support/layout.ts (seeded on first use): m100k (100k facts, beside
 * 1.1M facts of other workspaces), one1m (1M facts), and g3k..g50k (one workspace at four sizes);
 * lme500: the first 500 turns of the first LongMemEval-S dev haystack taught through capture into
 * the growth database (long chat turns; once, then reused; no latency pass).
 * For each:
 *   - cold build: `new FactIndexes(db, budget).read(workspaceId, null)` timed, `--builds` times
 *     with a fresh registry each (the first one also pays the JIT warming up); the time is then
 *     split into reading the pages (`loadLiveFacts`) and adding them (`FactIndex.add`).
 *   - bytes per fact: `Bun.gc(true)` and `process.memoryUsage().heapUsed` before a build and
 *     after it (the index held), in a fresh process that does nothing else, divided by live facts;
 *     beside `FactIndex.bytes()`, the estimate the memory budget uses (not measured for PGlite:
 *     one data directory cannot be opened by two processes). Small workspaces carry a few MB of
 *     fixed cost (code and caches first used by the build), so their figure per fact is high.
 *   - latency: the 600 synthetic queries (`--queries`; 200 at 1M) of the workspace's seed (every tenth names an end user),
 *     one warm-up pass then `--passes` measured passes, through searchFacts (limit 20) and
 *     buildContext (token budget 1500).
 *   - cold build from a stored snapshot: one is written (the registry's own background write),
 *     then `--builds` fresh registries read the workspace starting from it; beside the snapshot's
 *     stored (compressed) size. The builds above are from the facts (snapshots off).
 *   - as_of: the index an `as_of` read builds from the database (every fact observed by now), once.
 * With PGlite (default on): the 100k workspace seeded into a fresh embedded data directory under
 * the system temp dir (removed afterwards), then the same cold build.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuthContext } from "../src/auth/authenticate";
import { createWorkspace } from "../src/auth/workspaces";
import { captureFacts } from "../src/capture/pipeline";
import { openEmbedded } from "../src/db/embedded";
import { openPostgres } from "../src/db/postgres";
import type { Db } from "../src/db/types";
import { indexAsOf } from "../src/memory/as-of";
import { loadLiveFacts, readFactHead } from "../src/memory/changes";
import { buildContext } from "../src/memory/context";
import { FactIndex, type IndexedFact } from "../src/memory/index/fact-index";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts } from "../src/memory/search";
import { ALL_SCOPES } from "../src/schema/auth";
import { callerOf, type ServiceContext } from "../src/service";
import { percentiles, type Percentiles } from "./support/loadgen";
import { DATABASES, prepareDatabase, type PreparedDatabase } from "./support/layout";
import { makeCast, makeQueries } from "./support/synth";
import { seedWorkspace } from "./seed";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const builds = Number(argValue("--builds") ?? 3);
const passes = Number(argValue("--passes") ?? 3);
const withPglite = !process.argv.includes("--no-pglite");
const only = argValue("--only")?.split(",");
/** Queries per pass (at most 200 for workspaces of 500k facts or more, whose searches take longer). */
const queryCount = Number(argValue("--queries") ?? 600);
const BUDGET = 16 * 1024 * 1024 * 1024;
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
/** Builds from the facts alone: snapshots off, so they neither start from one nor write one. */
const FROM_FACTS = { snapshotMinFacts: Number.POSITIVE_INFINITY };
const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const mb = (bytes: number) => bytes / 1024 / 1024;

interface Row {
  workspace: string;
  source: string;
  live: number;
  buildMs: number[];
  snapshotMs: number[];
  snapshotBytes: number;
  /** One `as_of` read's index built from the database (every fact observed by now). */
  asOfMs: number;
  readMs: number;
  addMs: number;
  heapBytes: number;
  estimateBytes: number;
  rssDeltaMb: number;
  search?: Percentiles;
  context?: Percentiles;
  avgResults?: number;
}

function heap(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

/** The index bench's stand-in for an authenticated internal caller whose index is current. */
function contextFor(db: Db, indexes: FactIndexes, workspaceId: string, seq: number): ServiceContext {
  const auth: AuthContext = {
    keyId: "bench",
    keyName: "bench",
    keyPrefix: "bench",
    workspaceId,
    scopes: [...ALL_SCOPES],
    audience: "internal",
    agent: null,
    rate: { limit: 120, remaining: 120, reset: 0 },
    factSeq: seq,
  };
  return { db, index: indexes, caller: callerOf(auth, "rest") };
}

async function measure(db: Db, workspace: string, workspaceId: string, seed: string, source: string, latency: boolean, url?: string): Promise<Row> {
  // Bytes per fact: the heap before and after the first build, the index held (in a fresh
  // process when the database is reachable from one: nothing else is on its heap).
  const isolated = url === undefined ? undefined : await heapOf(url, workspaceId);
  const before = heap();
  const rssBefore = process.memoryUsage().rss;
  let indexes = new FactIndexes(db, BUDGET, FROM_FACTS);
  let t0 = performance.now();
  let index = await indexes.read(workspaceId, null);
  const buildMs = [performance.now() - t0];
  const after = heap();
  const row: Row = {
    workspace,
    source,
    live: index.live,
    buildMs,
    snapshotMs: [],
    snapshotBytes: Number.NaN,
    asOfMs: Number.NaN,
    readMs: Number.NaN,
    addMs: Number.NaN,
    heapBytes: isolated?.heapBytes ?? Number.NaN,
    estimateBytes: index.bytes(),
    rssDeltaMb: isolated ? mb(process.memoryUsage().rss - rssBefore) : Number.NaN,
  };
  log(
    `${workspace} (${source}): cold build ${buildMs[0]!.toFixed(0)} ms, ${index.live} live facts, heap +${mb(row.heapBytes).toFixed(1)} MB (in-process delta ${mb(after - before).toFixed(1)} MB), estimate ${mb(row.estimateBytes).toFixed(1)} MB`,
  );
  for (let i = 1; i < builds; i++) {
    const fresh = new FactIndexes(db, BUDGET, FROM_FACTS);
    t0 = performance.now();
    await fresh.read(workspaceId, null);
    buildMs.push(performance.now() - t0);
  }
  {
    const writer = new FactIndexes(db, BUDGET);
    await writer.read(workspaceId, null);
    await writer.settle();
    const [stored] = await db.sql<{ bytes: number }>`SELECT length(data)::float8 AS bytes FROM index_snapshots WHERE workspace_id = ${workspaceId}`;
    row.snapshotBytes = stored?.bytes ?? Number.NaN;
    for (let i = 0; i < builds && stored; i++) {
      const fresh = new FactIndexes(db, BUDGET);
      t0 = performance.now();
      await fresh.read(workspaceId, null);
      const ms = performance.now() - t0;
      if (fresh.stats().snapshotBuilds === 1) row.snapshotMs.push(ms);
    }
    t0 = performance.now();
    await indexAsOf(db, workspaceId, Date.now());
    row.asOfMs = performance.now() - t0;
    log(
      `${workspace} (${source}): from its snapshot (${mb(row.snapshotBytes).toFixed(1)} MB stored) ${row.snapshotMs.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
  }
  // The same work in two halves: the statements alone, then the adds alone.
  {
    t0 = performance.now();
    const pages: IndexedFact[][] = [];
    await readFactHead(db, workspaceId);
    let afterId = "";
    for (;;) {
      const page = await loadLiveFacts(db, workspaceId, afterId, 10_000);
      pages.push(page);
      if (page.length < 10_000) break;
      afterId = page[page.length - 1]!.id;
    }
    row.readMs = performance.now() - t0;
    t0 = performance.now();
    const scratch = new FactIndex();
    for (const page of pages) for (const fact of page) scratch.add(fact);
    row.addMs = performance.now() - t0;
  }
  if (latency) {
    const cast = makeCast(seed);
    const queries = makeQueries(seed, cast).slice(0, row.live >= 500_000 ? Math.min(200, queryCount) : queryCount);
    const ctx = contextFor(db, indexes, workspaceId, index.seq);
    const endUser = (i: number) => (i % 10 === 0 ? { id: cast.endUsers[(i * 7919) % cast.endUsers.length]!.id } : undefined);
    const searchMs: number[] = [];
    const contextMs: number[] = [];
    let results = 0;
    for (let pass = 0; pass <= passes; pass++) {
      for (const [i, query] of queries.entries()) {
        let t = performance.now();
        const found = await searchFacts(ctx, { query, limit: 20, end_user: endUser(i) } as Parameters<typeof searchFacts>[1]);
        const s = performance.now() - t;
        t = performance.now();
        await buildContext(ctx, { query, token_budget: 1500, end_user: endUser(i) } as Parameters<typeof buildContext>[1]);
        const c = performance.now() - t;
        if (pass === 0) continue;
        searchMs.push(s);
        contextMs.push(c);
        results += found.facts.length;
      }
    }
    row.search = percentiles(searchMs);
    row.context = percentiles(contextMs);
    row.avgResults = results / searchMs.length;
    log(
      `${workspace}: search p50 ${fmt(row.search.p50, 3)} / p95 ${fmt(row.search.p95, 3)} ms, context p50 ${fmt(row.context.p50, 3)} / p95 ${fmt(row.context.p95, 3)} ms`,
    );
  }
  // Let the registry and index go before the next workspace is measured.
  indexes = new FactIndexes(db, BUDGET);
  index = new FactIndex();
  void indexes;
  void index;
  return row;
}

/**
 * Heap bytes of one workspace's index, measured in a fresh process (`--heap-of URL WORKSPACE_ID`)
 * so that nothing else built before it is still on the heap: prints one JSON line.
 */
async function heapChild(url: string, workspaceId: string): Promise<void> {
  const db = openPostgres({ url, maxConnections: 10 });
  await readFactHead(db, workspaceId);
  const before = heap();
  const indexes = new FactIndexes(db, BUDGET, FROM_FACTS);
  const index = await indexes.read(workspaceId, null);
  const after = heap();
  console.log(JSON.stringify({ heapBytes: after - before, live: index.live, estimate: index.bytes() }));
  await db.close();
}

async function heapOf(url: string, workspaceId: string): Promise<{ heapBytes: number; live: number; estimate: number }> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--heap-of", url, workspaceId], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`heap child exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop()!) as { heapBytes: number; live: number; estimate: number };
}

const heapArgs = process.argv.indexOf("--heap-of");
if (heapArgs >= 0) {
  await heapChild(process.argv[heapArgs + 1]!, process.argv[heapArgs + 2]!);
  process.exit(0);
}

/** The lme500 workspace: 500 long chat turns taught through capture, once per database. */
async function longTurnsWorkspace(db: Db): Promise<string> {
  const slug = "bench-index-lme500";
  const [found] = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${slug}`;
  if (found) return found.id;
  const path = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
  const units = loadLongMemEval(path)[0]?.units.slice(0, 500) ?? [];
  const workspace = await createWorkspace(db, slug, 0);
  for (let i = 0; i < units.length; i += 100) {
    await captureFacts(
      db,
      workspace.id,
      units.slice(i, i + 100).map((u) => ({ text: u.text, origin: "ingested" as const })),
    );
  }
  return workspace.id;
}

const rows: Row[] = [];
const want = (slug: string) => !only || only.includes(slug);
const plan: [string, string[]][] = [
  ["growth", ["g3k", "g10k", "g20k", "g50k", "lme500"]],
  ["main", ["m100k"]],
  ["big", ["one1m"]],
];
for (const [name, slugs] of plan) {
  if (!slugs.some(want)) continue;
  const prepared: PreparedDatabase = await prepareDatabase(adminUrl, DATABASES[name]!, { log });
  const db = openPostgres({ url: prepared.url, maxConnections: 10 });
  try {
    for (const slug of slugs.filter((s) => want(s) && prepared.files.has(s))) {
      const file = prepared.files.get(slug)!;
      rows.push(await measure(db, slug, file.workspaceId, file.seed, `PostgreSQL (${prepared.spec.name})`, true, prepared.url));
    }
    if (name === "growth" && want("lme500")) {
      rows.push(await measure(db, "lme500", await longTurnsWorkspace(db), "lme500", `PostgreSQL (${prepared.spec.name})`, false, prepared.url));
    }
  } finally {
    await db.close();
  }
}

let pgliteSeed: { seconds: number; factsPerSecond: number } | undefined;
if (withPglite && want("m100k")) {
  const dir = mkdtempSync(join(tmpdir(), "memoryd-bench-index-pglite-"));
  let db: Db | undefined;
  try {
    db = await openEmbedded(join(dir, "data"));
    log("PGlite: seeding m100k (100,000 facts) into a fresh embedded database");
    const report = await seedWorkspace({
      databaseUrl: "postgres://embedded/pglite",
      db,
      workspace: "m100k",
      facts: 100_000,
      keys: 0,
      seed: "m100k",
      keysFile: join(dir, "keys.json"),
      log,
    });
    pgliteSeed = { seconds: report.loadSeconds, factsPerSecond: report.factsPerSecond };
    rows.push(await measure(db, "m100k", report.workspaceId, "m100k", "embedded PGlite", false));
  } finally {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const out: string[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
out.push(`# memoryd index bench, ${new Date().toISOString()}`);
out.push(...provenance());
out.push(`${builds} builds per workspace (fresh registry each); ${passes} measured passes over ${queryCount} queries (200 at 1M)`);
out.push("", "## cold build and memory", "");
out.push(
  "| workspace | source | live facts | first build ms | median build ms | of which: read pages ms / add facts ms | from snapshot, median / fastest ms | snapshot stored MB | as_of index ms | heap bytes per fact (measured) | FactIndex.bytes() per fact (estimate) | RSS delta MB |",
);
out.push("|---|---|---|---|---|---|---|---|---|---|---|---|");
const fastest = (xs: number[]) => (xs.length === 0 ? Number.NaN : Math.min(...xs));
for (const r of rows) {
  const fromSnapshot = r.snapshotMs.length === 0 ? "–" : `${fmt(median(r.snapshotMs), 0)} / ${fmt(fastest(r.snapshotMs), 0)}`;
  out.push(
    `| ${r.workspace} | ${r.source} | ${r.live.toLocaleString("en")} | ${fmt(r.buildMs[0]!, 0)} | ${fmt(median(r.buildMs), 0)} | ${fmt(r.readMs, 0)} / ${fmt(r.addMs, 0)} | ` +
      `${fromSnapshot} | ${fmt(mb(r.snapshotBytes), 1)} | ${fmt(r.asOfMs, 0)} | ${fmt(r.heapBytes / r.live, 0)} | ${fmt(r.estimateBytes / r.live, 0)} | ${fmt(r.rssDeltaMb, 0)} |`,
  );
}
if (pgliteSeed) out.push("", `PGlite seeding: 100,000 facts in ${fmt(pgliteSeed.seconds, 1)} s (${fmt(pgliteSeed.factsPerSecond, 0)} facts/s).`);
out.push("", "## latency with the index current (searchFacts limit 20 / buildContext 1500 tokens, in process)", "");
out.push("| workspace | live facts | search p50 ms | search p95 ms | search p99 ms | context p50 ms | context p95 ms | facts per search |");
out.push("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  if (!r.search || !r.context) continue;
  out.push(
    `| ${r.workspace} | ${r.live.toLocaleString("en")} | ${fmt(r.search.p50, 3)} | ${fmt(r.search.p95, 3)} | ${fmt(r.search.p99, 3)} | ` +
      `${fmt(r.context.p50, 3)} | ${fmt(r.context.p95, 3)} | ${fmt(r.avgResults ?? Number.NaN, 1)} |`,
  );
}
const g3 = rows.find((r) => r.workspace === "g3k")?.search?.p50;
const g50 = rows.find((r) => r.workspace === "g50k")?.search?.p50;
const m100 = rows.find((r) => r.workspace === "m100k" && r.source.startsWith("PostgreSQL"));
out.push("", "## targets", "", "| target | goal | measured | met |", "|---|---|---|---|");
if (m100) {
  const first = m100.buildMs[0]!;
  out.push(
    `| cold build of the 100k workspace's index from PostgreSQL (first build in the process) | ≤ 1 s | ${fmt(first / 1000, 2)} s (median of ${builds}: ${fmt(median(m100.buildMs) / 1000, 2)} s) | ${first <= 1000 ? "met" : "**not met**"} |`,
  );
  const snap = m100.snapshotMs.length === 0 ? Number.NaN : median(m100.snapshotMs);
  out.push(
    `| cold build of the 100k workspace's index from its stored snapshot (median of ${m100.snapshotMs.length}) | ≤ 0.5 s | ${fmt(snap / 1000, 2)} s | ${snap <= 500 ? "met" : "**not met**"} |`,
  );
  out.push(
    `| bytes per fact, 100k workspace (report) | – | ${fmt(m100.heapBytes / m100.live, 0)} B measured, ${fmt(m100.estimateBytes / m100.live, 0)} B estimated | |`,
  );
}
const big = rows.find((r) => r.workspace === "one1m");
if (big && big.snapshotMs.length > 0) {
  const snap = median(big.snapshotMs);
  out.push(
    `| cold build of the 1M workspace's index from its stored snapshot (median of ${big.snapshotMs.length}) | ≤ 5 s | ${fmt(snap / 1000, 2)} s | ${snap <= 5000 ? "met" : "**not met**"} |`,
  );
}
const pg = rows.find((r) => r.source === "embedded PGlite");
if (pg)
  out.push(
    `| cold build of the 100k workspace's index from embedded PGlite (report) | – | ${fmt(pg.buildMs[0]! / 1000, 2)} s (median ${fmt(median(pg.buildMs) / 1000, 2)} s) | |`,
  );
if (g3 !== undefined && g50 !== undefined)
  out.push(
    `| in-process search p50 growth 3k -> 50k (no HTTP) | ≤ 1.5× | ${fmt(g50 / g3, 2)}× (${fmt(g3, 3)} -> ${fmt(g50, 3)} ms) | ${g50 / g3 <= 1.5 ? "met" : "**not met**"} |`,
  );
console.log(out.join("\n"));
