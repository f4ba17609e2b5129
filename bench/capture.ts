/**
 * CPU cost of capture analysis per fact: `analyzeFact` (src/capture/analyze.ts: subject, kind,
 * sensitive flags and claim of one text; no database, no model) and the reading of a change
 * (`updateSideOf`, src/capture/updates.ts; in a build before it, `isChangeStatement` of
 * src/capture/statement.ts), what the pipeline runs on every fact, beside a bare baseline measured
 * in the same run, `normalizeForDuplicates` (the duplicate key: the least any capture computes).
 * Three corpora, one row pair each:
 * - LoCoMo: every turn of the 10 conversations as the retrieval bench teaches it, "<speaker>: <text>";
 * - LongMemEval-S dev: 20,000 turn texts ("<role>: <content>", a turn over 4,000 characters in
 *   chunks, as bench/retrieval.ts teaches them), taken at an even stride over all 151 haystacks;
 * - supersession pairs: both sentences of every labelled pair in test/capture/supersession/*.jsonl
 *   (short CRM-style facts), with the pair's end user when it names one.
 * Every input has no team members (the retrieval bench's workspaces have none).
 *
 * Per corpus: one warm-up pass of each function, then measured passes, baseline and analysis
 * alternating so that load on the machine hits both alike. A measured pass is a plain loop timed
 * with `process.cpuUsage()` (user + system of every thread of the process: CPU µs per fact) and
 * `performance.now()` (wall: facts/s). A corpus gets up to 20 measured passes (5 with --quick),
 * fewer when its warm-up analysis pass says they would take over ~6 s in all (a 20,000-turn
 * LongMemEval pass takes seconds, so it gets one). Then one more pass per function times every
 * call on its own with `performance.now()` (about 0.1 µs of timer cost a call) for p50 and p95.
 * The ratio is analysis over baseline CPU per fact. A digest of every analysis (sha256 of their
 * JSON) lets two runs show whether the analyses themselves changed.
 *
 * Memory: process RSS and the JS heap (`process.memoryUsage()` after turns of the event loop and
 * `Bun.gc(true)`) at start, after importing the capture module, after its first call (whatever it
 * builds lazily), after loading the corpora, and after all passes. The corpora are loaded after
 * the first call, so the first two steps show what the analysis itself needs. RSS does not fall
 * back once the corpora are parsed (the allocator keeps the pages); the heap does.
 *
 *   bun bench/capture.ts [--quick] [--against REF]
 *
 * `--against REF` (a git ref, e.g. a commit): measures that build's analysis beside this tree's in
 * the same run. A temporary `git worktree add --detach` of REF (in the system temp dir, with this
 * checkout's node_modules linked into it) is made first and removed at the end, also on failure or
 * Ctrl-C; its src/capture/analyze.ts and statement.ts are imported from there (both builds load
 * wink-nlp from the same node_modules). Per corpus the measured passes then go baseline, REF's
 * analysis, this tree's analysis, in turn, the pass count judged by the slower build's warm-up pass;
 * the table has a row per build and a column "CPU new ÷ old" (this tree's CPU per fact over REF's),
 * the findings a row per build (equal digests: both builds analyse every text alike), and the memory
 * table two more stages (REF's module imported, its first call). The baseline is this tree's
 * `normalizeForDuplicates`. The run takes longer by REF's passes (against an older, cheaper build
 * about 50 s in all without --quick).
 *
 * `--quick`: 1,000 LoCoMo turns, 2,000 LongMemEval turns, all the pairs, at most 5 measured
 * passes of at most ~1.5 s in all per corpus. LOCOMO_PATH and LONGMEMEVAL_PATH override the
 * data files (default bench/data/locomo10.json and bench/data/longmemeval/dev.jsonl.gz).
 * About 40-55 s on 2 cores without --quick (8-10 s with it).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { factText, loadLocomo } from "./lib/locomo-data";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";
import { addWorktree, type Worktree } from "./support/worktree";

type Capture = typeof import("../src/capture/analyze") & { readChange: (text: string) => unknown };
type Input = Parameters<Capture["analyzeFact"]>[0];
type Analysis = ReturnType<Capture["analyzeFact"]>;

const QUICK = process.argv.includes("--quick");
const AGAINST = argValue("--against");
if (process.argv.includes("--against") && (AGAINST === undefined || AGAINST.startsWith("--"))) {
  console.error("usage: bun bench/capture.ts [--quick] [--against REF]  (--against needs a git ref)");
  process.exit(2);
}
const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const PAIRS_DIR = join(import.meta.dir, "..", "test", "capture", "supersession");
const LOCOMO_CAP = QUICK ? 1_000 : Number.POSITIVE_INFINITY;
const LONGMEMEVAL_CAP = QUICK ? 2_000 : 20_000;
const MAX_PASSES = QUICK ? 5 : 20;
/** What the measured analysis passes of one corpus may take in all (wall), judged by its warm-up pass. */
const PASS_BUDGET_MS = QUICK ? 1_500 : 6_000;

/** Every result is folded in here and printed, so no call can be optimised away. */
let sink = 0;

interface Corpus {
  name: string;
  inputs: Input[];
}

interface Memory {
  stage: string;
  rss: number;
  heap: number;
}

interface PassTime {
  cpuUs: number;
  wallMs: number;
}

interface Measured {
  facts: number;
  passes: number;
  /** CPU µs per fact over all measured passes, and the lowest and highest pass. */
  cpuUs: number;
  cpuUsMin: number;
  cpuUsMax: number;
  wallUs: number;
  factsPerSecond: number;
  p50Us: number;
  p95Us: number;
}

interface Findings {
  meanChars: number;
  withClaim: number;
  sensitive: number;
  kinds: Map<string, number>;
  digest: string;
}

/** One function under test: returns a number derived from its result, for the sink. */
type Subject = (input: Input) => number;

/** A build whose analysis is measured: this tree's, or REF's (`--against`). */
interface Build {
  label: string;
  capture: Capture;
}

/**
 * Three rounds of a turn of the event loop and a forced collection: one collection, or one within
 * the caller's turn, still counted the freed corpus files as live heap.
 */
async function memory(stage: string): Promise<Memory> {
  for (let round = 0; round < 3; round++) {
    await Bun.sleep(0);
    Bun.gc(true);
  }
  const m = process.memoryUsage();
  return { stage, rss: m.rss, heap: m.heapUsed };
}

/** `count` items at an even stride over `all` (all of them when there are no more than `count`). */
function strided<T>(all: readonly T[], count: number): T[] {
  if (all.length <= count) return [...all];
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(all[Math.floor((i * all.length) / count)] as T);
  return out;
}

function locomoCorpus(): Corpus {
  const turns = loadLocomo(LOCOMO_PATH).flatMap((c) => c.turns.map(factText));
  return { name: "LoCoMo turns", inputs: strided(turns, LOCOMO_CAP).map((text) => ({ text, teamMembers: [] })) };
}

function longMemEvalCorpus(): Corpus {
  const units = loadLongMemEval(LONGMEMEVAL_PATH).flatMap((q) => q.units.map((u) => u.text));
  return {
    name: `LongMemEval turns (${LONGMEMEVAL_CAP.toLocaleString("en")} of ${units.length.toLocaleString("en")})`,
    inputs: strided(units, LONGMEMEVAL_CAP).map((text) => ({ text, teamMembers: [] })),
  };
}

interface RawPair {
  older: unknown;
  newer: unknown;
  end_user?: { id: string; name?: string };
}

function pairsCorpus(): Corpus {
  const files = readdirSync(PAIRS_DIR)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
  const inputs: Input[] = [];
  for (const file of files) {
    for (const line of readFileSync(join(PAIRS_DIR, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const pair = JSON.parse(line) as RawPair;
      for (const text of [pair.older, pair.newer]) {
        if (typeof text !== "string") continue;
        inputs.push({ text, teamMembers: [], ...(pair.end_user ? { endUser: pair.end_user } : {}) });
      }
    }
  }
  return { name: `supersession pair sentences (${files.map((f) => f.replace(/\.jsonl$/, "")).join(", ")})`, inputs };
}

function plainPass(subject: Subject, inputs: readonly Input[]): PassTime {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let s = 0;
  for (const input of inputs) s += subject(input);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  sink += s;
  return { cpuUs: cpu.user + cpu.system, wallMs };
}

/** Wall µs of every call, sorted. */
function perCallPass(subject: Subject, inputs: readonly Input[]): number[] {
  const samples: number[] = new Array<number>(inputs.length);
  let s = 0;
  for (let i = 0; i < inputs.length; i++) {
    const t0 = performance.now();
    s += subject(inputs[i] as Input);
    samples[i] = (performance.now() - t0) * 1000;
  }
  sink += s;
  return samples.sort((a, b) => a - b);
}

function summarise(facts: number, passes: readonly PassTime[], sorted: readonly number[]): Measured {
  const cpuUs = passes.reduce((a, p) => a + p.cpuUs, 0);
  const wallMs = passes.reduce((a, p) => a + p.wallMs, 0);
  const perPass = passes.map((p) => p.cpuUs / facts);
  return {
    facts,
    passes: passes.length,
    cpuUs: cpuUs / (facts * passes.length),
    cpuUsMin: Math.min(...perPass),
    cpuUsMax: Math.max(...perPass),
    wallUs: (wallMs * 1000) / (facts * passes.length),
    factsPerSecond: (facts * passes.length) / (wallMs / 1000),
    p50Us: percentile(sorted, 50),
    p95Us: percentile(sorted, 95),
  };
}

/** The warm-up pass of the analysis, which also records what it found. */
function warmUpAnalysis(capture: Capture, inputs: readonly Input[]): { wallMs: number; findings: Findings } {
  const hash = createHash("sha256");
  const kinds = new Map<string, number>();
  let chars = 0;
  let withClaim = 0;
  let sensitive = 0;
  const t0 = performance.now();
  for (const input of inputs) {
    const a: Analysis = capture.analyzeFact(input);
    chars += input.text.length;
    if (a.claim !== null) withClaim += 1;
    if (a.sensitive) sensitive += 1;
    kinds.set(a.kind, (kinds.get(a.kind) ?? 0) + 1);
    hash.update(JSON.stringify(a));
    hash.update("\n");
  }
  const wallMs = performance.now() - t0;
  return { wallMs, findings: { meanChars: chars / inputs.length, withClaim, sensitive, kinds, digest: hash.digest("hex").slice(0, 12) } };
}

interface BuildResult {
  build: Build;
  analysis: Measured;
  findings: Findings;
}

function measureCorpus(builds: readonly Build[], corpus: Corpus): { baseline: Measured; builds: BuildResult[] } {
  // The bare baseline is this tree's (the last build's) duplicate key.
  const current = builds.at(-1)!.capture;
  const baseline: Subject = (input) => current.normalizeForDuplicates(input.text).length;
  // What the pipeline runs on every fact before it touches the database.
  const analysisOf =
    (capture: Capture): Subject =>
    (input) => {
      const a = capture.analyzeFact(input);
      return a.normalized.length + (a.claim === null ? 0 : 1) + (capture.readChange(input.text) ? 1 : 0);
    };
  const analyses = builds.map((b) => analysisOf(b.capture));
  const inputs = corpus.inputs;
  plainPass(baseline, inputs);
  const warm = builds.map((b) => warmUpAnalysis(b.capture, inputs));
  const slowest = Math.max(...warm.map((w) => w.wallMs));
  const passes = Math.max(1, Math.min(MAX_PASSES, Math.floor(PASS_BUDGET_MS / slowest)));
  const baselinePasses: PassTime[] = [];
  const analysisPasses: PassTime[][] = builds.map(() => []);
  // Baseline, then each build in turn (REF's before this tree's), so load hits them alike.
  for (let i = 0; i < passes; i++) {
    baselinePasses.push(plainPass(baseline, inputs));
    for (const [b, analysis] of analyses.entries()) analysisPasses[b]!.push(plainPass(analysis, inputs));
  }
  const baselineCalls = perCallPass(baseline, inputs);
  const analysisCalls = analyses.map((analysis) => perCallPass(analysis, inputs));
  return {
    baseline: summarise(inputs.length, baselinePasses, baselineCalls),
    builds: builds.map((build, b) => ({
      build,
      analysis: summarise(inputs.length, analysisPasses[b]!, analysisCalls[b]!),
      findings: warm[b]!.findings,
    })),
  };
}

const us = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const count = (n: number): string => Math.round(n).toLocaleString("en");

function row(corpus: string, name: string, m: Measured, ratio: string, newOverOld?: string): string {
  const cpu = m.passes > 1 ? `${us(m.cpuUs)} (${us(m.cpuUsMin)}–${us(m.cpuUsMax)})` : us(m.cpuUs);
  const last = newOverOld === undefined ? "" : ` ${newOverOld} |`;
  return `| ${corpus} | ${name} | ${count(m.facts)} | ${m.passes} | ${cpu} | ${us(m.wallUs)} | ${us(m.p50Us)} | ${us(m.p95Us)} | ${count(m.factsPerSecond)} | ${ratio} |${last}`;
}

async function main(worktree: Worktree | null): Promise<void> {
  const started = performance.now();
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(`# Capture analysis cost per fact${QUICK ? " (--quick)" : ""}${worktree ? ` against ${AGAINST} (${worktree.commit})` : ""}\n`);
  console.log(
    `${provenance().join("\n")}; ${cpus().length} × ${cpu}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} at start\n`,
  );

  const mem: Memory[] = [await memory("start")];
  const t0 = performance.now();
  const { updateSideOf } = await import("../src/capture/updates");
  const { isPlainStatement } = await import("../src/memory/index/statement");
  // As the pipeline does: only a plain statement is read for a change.
  const capture: Capture = { ...(await import("../src/capture/analyze")), readChange: (text) => (isPlainStatement(text) ? updateSideOf(text) : null) };
  const importMs = performance.now() - t0;
  mem.push(await memory("capture module imported"));
  const firstInput: Input = { text: "Priya's manager is Tom Becker.", teamMembers: [] };
  const t1 = performance.now();
  capture.analyzeFact(firstInput);
  const firstCallMs = performance.now() - t1;
  mem.push(await memory("after the first analyzeFact call"));

  const builds: Build[] = [];
  let againstTimes = "";
  if (worktree) {
    const label = `${AGAINST === worktree.commit ? worktree.commit : `${AGAINST} (${worktree.commit})`}`;
    const t2 = performance.now();
    const older = existsSync(join(worktree.dir, "src", "capture", "updates.ts"))
      ? ((await import(join(worktree.dir, "src", "capture", "updates.ts"))) as { updateSideOf: (text: string) => unknown }).updateSideOf
      : ((await import(join(worktree.dir, "src", "capture", "statement.ts"))) as { isChangeStatement: (text: string) => boolean }).isChangeStatement;
    const old = { ...((await import(join(worktree.dir, "src", "capture", "analyze.ts"))) as Capture), readChange: older } as Capture;
    const oldImportMs = performance.now() - t2;
    mem.push(await memory(`${label}: capture module imported`));
    const t3 = performance.now();
    old.analyzeFact(firstInput);
    const oldFirstCallMs = performance.now() - t3;
    mem.push(await memory(`${label}: after its first analyzeFact call`));
    builds.push({ label, capture: old });
    againstTimes = ` ${label}'s: import ${oldImportMs.toFixed(0)} ms, first call ${oldFirstCallMs.toFixed(1)} ms.`;
  }
  builds.push({ label: "this tree", capture });
  const against = builds.length > 1;

  const corpora = [locomoCorpus(), longMemEvalCorpus(), pairsCorpus()];
  mem.push(await memory("corpora loaded"));

  const results = corpora.map((corpus) => ({ corpus, ...measureCorpus(builds, corpus) }));
  mem.push(await memory("after all passes"));

  const analysisName = (b: Build): string => `analyzeFact + change reading${against ? ` (${b.label})` : ""}`;
  console.log(
    `| corpus | function | facts | passes | CPU µs/fact (pass range) | wall µs/fact | p50 µs | p95 µs | facts/s | CPU × baseline |${against ? " CPU new ÷ old |" : ""}`,
  );
  console.log(`|---|---|---:|---:|---:|---:|---:|---:|---:|---:|${against ? "---:|" : ""}`);
  for (const r of results) {
    const old = r.builds[0]!.analysis;
    console.log(row(r.corpus.name, "baseline: normalizeForDuplicates", r.baseline, "1", against ? "" : undefined));
    r.builds.forEach((b, i) => {
      const newOverOld = !against ? undefined : i === r.builds.length - 1 ? (b.analysis.cpuUs / old.cpuUs).toFixed(2) : "1";
      console.log(row(r.corpus.name, analysisName(b.build), b.analysis, `${(b.analysis.cpuUs / r.baseline.cpuUs).toFixed(1)}`, newOverOld));
    });
  }
  console.log(
    "\nCPU: process.cpuUsage() over the measured passes (every thread, GC included), per fact; wall and facts/s over the same passes;" +
      " p50/p95: one further pass timing each call alone (wall). One thread runs the calls." +
      (against ? ` CPU new ÷ old: this tree's CPU per fact over ${builds[0]!.label}'s.` : ""),
  );

  console.log(`\n| corpus |${against ? " build |" : ""} mean chars | with a claim | sensitive | kinds | analysis digest |`);
  console.log(`|---|${against ? "---|" : ""}---:|---:|---:|---|---|`);
  for (const r of results) {
    for (const b of r.builds) {
      const f = b.findings;
      const kinds = [...f.kinds.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([k, n]) => `${k} ${n}`)
        .join(", ");
      console.log(
        `| ${r.corpus.name} |${against ? ` ${b.build.label} |` : ""} ${f.meanChars.toFixed(0)} | ${count(f.withClaim)} | ${count(f.sensitive)} | ${kinds} | ${f.digest} |`,
      );
    }
  }

  console.log("\n| stage | RSS MB | Δ RSS MB | JS heap MB |");
  console.log("|---|---:|---:|---:|");
  mem.forEach((m, i) => {
    const prev = mem[i - 1];
    console.log(`| ${m.stage} | ${mb(m.rss)} | ${prev ? mb(m.rss - prev.rss) : ""} | ${mb(m.heap)} |`);
  });
  console.log(
    `\nImporting src/capture/analyze.ts took ${importMs.toFixed(0)} ms (transpiling included); its first call ${firstCallMs.toFixed(1)} ms.${againstTimes}` +
      ` Memory readings follow three rounds of an event-loop turn and Bun.gc(true). Total run ${((performance.now() - started) / 1000).toFixed(1)} s;` +
      ` load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} at the end. (sink ${sink})`,
  );
}

const worktree = AGAINST === undefined ? null : addWorktree(AGAINST);
try {
  await main(worktree);
} finally {
  worktree?.remove();
}
