/**
 * LoCoMo evidence recall: each conversation's turns are taught as facts (one fresh workspace per
 * conversation, through `teachFacts`, 20 facts per call as the REST route allows), then every
 * question of categories 1-4 is searched with `searchFacts` (limit 20) and scored by evidence
 * recall@1/5/10/20 and hit@10, per category and overall, next to a bare in-process BM25 over the
 * same turns (and, overall only, the same BM25 with English stop words dropped). Prints a
 * Markdown table.
 *
 * Usage: bun bench/locomo.ts [--conversations N] [--dump results.json]
 * Embedded PGlite in a temp dir by default; BENCH_DATABASE_URL (an admin URL) runs on a fresh
 * PostgreSQL database instead, dropped at the end. LOCOMO_PATH overrides the data file.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { authenticate, type AuthContext } from "../src/auth/authenticate";
import { createKey } from "../src/auth/keys";
import { createWorkspace } from "../src/auth/workspaces";
import { normalizeForDuplicates } from "../src/capture/analyze";
import { teachFacts } from "../src/capture/teach";
import type { Db } from "../src/db/types";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts } from "../src/memory/search";
import { ALL_SCOPES } from "../src/schema/auth";
import { callerOf, type ServiceContext } from "../src/service";
import { Bm25, ENGLISH_STOP_WORDS } from "./lib/bm25";
import { openBenchDatabase } from "./lib/database";
import { factText, loadLocomo, type Conversation } from "./lib/locomo-data";
import { KS, percentile, score, type QuestionResult } from "./lib/metrics";
import { argValue } from "./support/args";

// The data set is not vendored: fetch data/locomo10.json from the snap-research/LoCoMo repository.
const DATA_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
if (!existsSync(DATA_PATH)) {
  console.error(`LoCoMo data not found at ${DATA_PATH}: set LOCOMO_PATH to locomo10.json (snap-research/LoCoMo, data/locomo10.json)`);
  process.exit(2);
}
const TEACH_BATCH = 20;
const SEARCH_LIMIT = 20;
const CATEGORIES = [1, 2, 3, 4] as const;


function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/locomo.ts [--conversations N] [--dump results.json]`);
  process.exit(2);
}

const conversationsArg = argValue("--conversations");
const maxConversations = conversationsArg === undefined ? Number.POSITIVE_INFINITY : Number(conversationsArg);
if (!Number.isInteger(maxConversations) && maxConversations !== Number.POSITIVE_INFINITY) usage("--conversations needs a whole number");
if (maxConversations < 1) usage("--conversations needs a number of at least 1");
const dumpPath = argValue("--dump");

interface TeachStats {
  turns: number;
  created: number;
  superseded: number;
  skipped: number;
  /** Turns that share their fact with an earlier identical turn (skipped as duplicates). */
  sharedFact: number;
  /** Turns whose fact was later superseded by the claim machinery: search can no longer return it. */
  supersededTurns: number;
  /** Turns with no fact found at all (should be 0). */
  unmapped: number;
}

interface DumpRow {
  conversation: string;
  question: string;
  category: number;
  evidence: string[];
  memoryd: string[][];
  bm25: string[][];
  ms: number;
}

/** A fresh workspace and an internal key on it; the AuthContext comes from the real authenticate(). */
async function freshWorkspace(db: Db, sampleId: string): Promise<AuthContext> {
  const slug = `locomo-${sampleId.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}`.slice(0, 63);
  const workspace = await createWorkspace(db, slug, 0);
  const key = await createKey(db, "test", {
    workspace: workspace.slug,
    name: "locomo bench",
    scopes: [...ALL_SCOPES],
    audience: "internal",
  });
  return authenticate(db, key.secret, "bench");
}

/**
 * Teaches every turn, then maps each turn to its fact by reading the facts table back: the exact
 * text first, else the duplicate key (a turn skipped as a duplicate of an earlier one shares that
 * fact). A live fact is preferred over a superseded one with the same text.
 */
async function teachConversation(ctx: ServiceContext, conv: Conversation): Promise<{ stats: TeachStats; diaOfFact: Map<string, string[]> }> {
  const stats: TeachStats = { turns: conv.turns.length, created: 0, superseded: 0, skipped: 0, sharedFact: 0, supersededTurns: 0, unmapped: 0 };
  for (let i = 0; i < conv.turns.length; i += TEACH_BATCH) {
    const batch = conv.turns.slice(i, i + TEACH_BATCH);
    const result = await teachFacts(ctx, { facts: batch.map((t) => ({ text: factText(t) })) });
    stats.created += result.created;
    stats.superseded += result.superseded;
    stats.skipped += result.skipped;
  }
  const rows = await ctx.db.sql<{ id: string; text: string; normalized: string; live: boolean }>`
    SELECT id, text, normalized, superseded_by IS NULL AS live FROM facts
     WHERE workspace_id = ${ctx.caller.workspaceId} ORDER BY id`;
  const byText = new Map<string, { id: string; live: boolean }>();
  const byNormalized = new Map<string, { id: string; live: boolean }>();
  for (const row of rows) {
    const entry = { id: row.id, live: row.live };
    if (!byText.get(row.text)?.live) byText.set(row.text, entry);
    if (!byNormalized.get(row.normalized)?.live) byNormalized.set(row.normalized, entry);
  }
  const diaOfFact = new Map<string, string[]>();
  for (const turn of conv.turns) {
    const text = factText(turn);
    const fact = byText.get(text) ?? byNormalized.get(normalizeForDuplicates(text));
    if (!fact) {
      stats.unmapped += 1;
      continue;
    }
    if (!fact.live) stats.supersededTurns += 1;
    const ids = diaOfFact.get(fact.id);
    if (ids) {
      ids.push(turn.diaId);
      stats.sharedFact += 1;
    } else diaOfFact.set(fact.id, [turn.diaId]);
  }
  return { stats, diaOfFact };
}

const fmt = (x: number): string => (Number.isNaN(x) ? "–" : x.toFixed(1));

function table(rows: { system: string; category: string; results: QuestionResult[] }[]): string {
  const lines = [
    `| system | category | questions | ${KS.map((k) => `recall@${k}`).join(" | ")} | hit@10 |`,
    `|---|---|---:|${KS.map(() => "---:").join("|")}|---:|`,
  ];
  for (const row of rows) {
    const s = score(row.results);
    lines.push(`| ${row.system} | ${row.category} | ${s.n} | ${KS.map((k) => fmt(s.recall[k])).join(" | ")} | ${fmt(s.hit10)} |`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const started = performance.now();
  const conversations = loadLocomo(DATA_PATH).slice(0, maxConversations);
  const bench = await openBenchDatabase();
  const memoryd: QuestionResult[] = [];
  const bm25: QuestionResult[] = [];
  const bm25Stop: QuestionResult[] = [];
  const latencies: number[] = [];
  const dump: DumpRow[] = [];
  const totals: TeachStats = { turns: 0, created: 0, superseded: 0, skipped: 0, sharedFact: 0, supersededTurns: 0, unmapped: 0 };
  let teachMs = 0;
  let noEvidence = 0;
  let badEvidence = 0;
  try {
    for (const conv of conversations) {
      const auth = await freshWorkspace(bench.db, conv.sampleId);
      // factSeq null: every search asks the database for the workspace's sequence (as the worker does).
      const ctx: ServiceContext = { db: bench.db, index: new FactIndexes(bench.db, 256 * 1024 * 1024), caller: callerOf({ ...auth, factSeq: null }, "rest") };
      const teachStart = performance.now();
      const { stats, diaOfFact } = await teachConversation(ctx, conv);
      teachMs += performance.now() - teachStart;
      for (const key of Object.keys(totals) as (keyof TeachStats)[]) totals[key] += stats[key];

      const baseline = new Bm25(conv.turns.map(factText));
      const baselineStop = new Bm25(conv.turns.map(factText), ENGLISH_STOP_WORDS);
      let convQuestions = 0;
      for (const q of conv.questions) {
        if (!(CATEGORIES as readonly number[]).includes(q.category)) continue;
        badEvidence += q.badEvidence.length;
        if (q.evidence.length === 0) {
          noEvidence += 1;
          continue;
        }
        convQuestions += 1;
        const t0 = performance.now();
        const found = await searchFacts(ctx, { query: q.question, limit: SEARCH_LIMIT });
        const ms = performance.now() - t0;
        latencies.push(ms);
        const ranked = found.facts.map((f) => diaOfFact.get(f.fact_id) ?? []);
        const baselineRanked = baseline.search(q.question, SEARCH_LIMIT).map((i) => [conv.turns[i]?.diaId ?? ""]);
        memoryd.push({ category: q.category, evidence: q.evidence, ranked });
        bm25.push({ category: q.category, evidence: q.evidence, ranked: baselineRanked });
        const stopRanked = baselineStop.search(q.question, SEARCH_LIMIT).map((i) => [conv.turns[i]?.diaId ?? ""]);
        bm25Stop.push({ category: q.category, evidence: q.evidence, ranked: stopRanked });
        if (dumpPath) dump.push({ conversation: conv.sampleId, question: q.question, category: q.category, evidence: q.evidence, memoryd: ranked, bm25: baselineRanked, ms });
      }
      const s = score(memoryd.slice(-convQuestions));
      console.error(
        `${conv.sampleId}: ${stats.turns} turns (${stats.created} created, ${stats.skipped} skipped, ${stats.superseded} superseded), ` +
          `${convQuestions} questions, recall@10 ${fmt(s.recall[10])}`,
      );
    }
  } finally {
    await bench.close();
  }
  if (dumpPath) await Bun.write(dumpPath, JSON.stringify(dump, null, 1));

  const rows: { system: string; category: string; results: QuestionResult[] }[] = [];
  for (const [system, results] of [
    ["memoryd searchFacts", memoryd],
    ["bare BM25 (k1 1.2, b 0.75)", bm25],
  ] as const) {
    for (const c of CATEGORIES) rows.push({ system, category: String(c), results: results.filter((r) => r.category === c) });
    rows.push({ system, category: "**1-4**", results });
  }
  // The documented plain-BM25 figure (recall@10 ≈ 56.7) matches this variant: stop words dropped.
  rows.push({ system: "bare BM25 + English stop words", category: "**1-4**", results: bm25Stop });
  const sorted = [...latencies].sort((a, b) => a - b);
  const totalS = (performance.now() - started) / 1000;
  console.log(`## LoCoMo evidence recall (${conversations.length} conversations, ${bench.label})\n`);
  console.log(table(rows));
  console.log(
    `\nsearch latency (searchFacts, limit ${SEARCH_LIMIT}, ${sorted.length} queries): ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms`,
  );
  console.log(
    `teaching: ${totals.turns} turns in ${(teachMs / 1000).toFixed(1)} s; ${totals.created} facts created, ` +
      `${totals.skipped} skipped as duplicates (${totals.sharedFact} turns share an identical earlier turn's fact), ` +
      `${totals.superseded} superseded by a later claim (${totals.supersededTurns} turns map to a fact search can no longer return), ` +
      `${totals.unmapped} unmapped`,
  );
  console.log(
    `questions: categories 1-4 with at least one usable evidence id; ${noEvidence} left out for having none ` +
      `(${badEvidence} evidence strings unparseable or naming no turn)`,
  );
  console.log(`run time: ${totalS.toFixed(1)} s`);
}

await main();
