/**
 * What reading time costs, in process (docs/memory.md, "Time in the question"):
 * - per query, `readQueryTime` on the synthetic query set (makeQueries, the other benches' set)
 *   and on the data sets' real questions, beside the tokeniser every query already pays
 *   (`termsOf`, the bare baseline of the same run);
 * - per fact, `readFactTime` (what `FactIndex.add` now also does) on synthetic facts and on
 *   LongMemEval-S turns, beside `factTerms` (what it did before), and a whole index built with
 *   `FactIndex.add` beside the same facts' `readFactTime` alone.
 * Each text is read WARM_ROUNDS times first, then timed one call at a time over ROUNDS rounds.
 *
 * Usage: bun bench/query-time.ts [--queries N] [--facts N]
 * LOCOMO_PATH and LONGMEMEVAL_PATH name the data sets (skipped when absent).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FactIndex } from "../src/memory/index/fact-index";
import { factTerms } from "../src/memory/index/postings";
import { termsOf } from "../src/memory/index/terms";
import { readFactTime, readQueryTime } from "../src/memory/time/query-time";
import { loadLocomo } from "./lib/locomo-data";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { factStream, makeCast, makeQueries } from "./support/synth";
import { ingestedFact } from "./lib/indexed-fact";

const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const SEED = "query-time";
const WARM_ROUNDS = 2;
const ROUNDS = 5;
/** The instant every query is read at: a fixed one, so runs compare. */
const INSTANT = Date.UTC(2026, 5, 15, 12);

/** Microseconds per call of `fn` on each text, every round. */
function timed(texts: readonly string[], fn: (text: string) => unknown): number[] {
  for (let r = 0; r < WARM_ROUNDS; r++) for (const t of texts) fn(t);
  const out: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of texts) {
      const t0 = Bun.nanoseconds();
      fn(t);
      out.push((Bun.nanoseconds() - t0) / 1000);
    }
  }
  return out.sort((a, b) => a - b);
}

function row(set: string, texts: readonly string[], name: string, samples: number[], extra: string): string {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const cells = [percentile(samples, 50), percentile(samples, 95), percentile(samples, 99), mean].map((x) => x.toFixed(1));
  return `| ${set} | ${texts.length} | ${name} | ${cells.join(" | ")} | ${extra} |`;
}

function main(): void {
  const queryCount = Number(argValue("--queries") ?? 2000);
  const factCount = Number(argValue("--facts") ?? 5000);
  const cast = makeCast(SEED);
  const querySets: [string, string[]][] = [["synthetic queries (makeQueries)", makeQueries(SEED, cast, queryCount)]];
  if (existsSync(LOCOMO_PATH)) querySets.push(["LoCoMo questions", loadLocomo(LOCOMO_PATH).flatMap((c) => c.questions.map((q) => q.question))]);
  const lme = existsSync(LONGMEMEVAL_PATH) ? loadLongMemEval(LONGMEMEVAL_PATH) : [];
  if (lme.length > 0) querySets.push(["LongMemEval-S dev questions", lme.map((q) => q.question)]);

  console.log("## Reading time in a query, per query (µs, in process)\n");
  console.log("| set | texts | reader | p50 | p95 | p99 | mean | texts with a time / order question |");
  console.log("|---|---:|---|---:|---:|---:|---:|---|");
  for (const [set, texts] of querySets) {
    const read = texts.map((q) => readQueryTime(q, INSTANT));
    const windows = read.filter((t) => t.windows.length > 0).length;
    const order = read.filter((t) => t.order).length;
    console.log(
      row(
        set,
        texts,
        "readQueryTime",
        timed(texts, (q) => readQueryTime(q, INSTANT)),
        `${windows} with a window, ${order} order`,
      ),
    );
    console.log(row(set, texts, "termsOf (baseline)", timed(texts, termsOf), ""));
  }

  const synthetic: string[] = [];
  for (const f of factStream(SEED, cast)) {
    synthetic.push(f.text);
    if (synthetic.length >= factCount) break;
  }
  const factSets: [string, string[]][] = [["synthetic facts (factStream)", synthetic]];
  if (lme.length > 0) factSets.push(["LongMemEval-S turns", lme.slice(0, 10).flatMap((q) => q.units.map((u) => u.text))]);
  console.log("\n## Reading the time a fact names, per fact (µs, in process)\n");
  console.log("| set | texts | reader | p50 | p95 | p99 | mean | facts naming a time |");
  console.log("|---|---:|---|---:|---:|---:|---:|---|");
  for (const [set, texts] of factSets) {
    const named = texts.filter((t) => readFactTime(t, INSTANT) !== null).length;
    console.log(
      row(
        set,
        texts,
        "readFactTime",
        timed(texts, (t) => readFactTime(t, INSTANT)),
        `${named}`,
      ),
    );
    console.log(
      row(
        set,
        texts,
        "factTerms (baseline: what add() did)",
        timed(texts, (t) => factTerms("workspace", t)),
        "",
      ),
    );
  }
  console.log("\n## A whole index built with FactIndex.add (ms, best of 3)\n");
  console.log("| set | facts | FactIndex.add, all | of which readFactTime |");
  console.log("|---|---:|---:|---:|");
  for (const [set, texts] of factSets) {
    const facts = texts.map((text, i) => ingestedFact(`f${i}`, text, INSTANT - i * 60_000));
    const build = bestOf3(() => {
      const index = new FactIndex();
      for (const f of facts) index.add(f);
    });
    const read = bestOf3(() => {
      for (const f of facts) readFactTime(f.text, f.recordedAt);
    });
    console.log(`| ${set} | ${facts.length} | ${build.toFixed(0)} | ${read.toFixed(0)} (${((100 * read) / build).toFixed(0)} %) |`);
  }
}

/** The fastest of three runs of `fn`, in milliseconds. */
function bestOf3(fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

main();
