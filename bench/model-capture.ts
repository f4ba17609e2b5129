/**
 * The capture model (src/capture/model/), end to end through the real service (REST over
 * `app.handle()`, embedded PGlite or BENCH_DATABASE_URL) and the real worker, three parts:
 *
 * - judge: each labelled pair set (test/capture/supersession/) taught into a workspace with the
 *   model on and one without (same run, same teaches): every older fact (two days ago), drain the
 *   queue, every newer one (a day ago), drain. As bench/current-first.ts, a pair without an end
 *   user gets one of its own. The oracle (default) labels each pair it is shown as its set says
 *   (bench/support/capture-rig.ts, `oracleLabel`), so with it precision and recall are 1.000 less
 *   what the gates veto and what the model-free path did first; each replacement missed is given a
 *   reason. Then "current first" for the questions (as current-first.ts: the newer fact in the
 *   first five of a search for the question, the older not above it), the gates' vetoes and tokens
 *   per judged fact (capture_usage, the endpoint's own counts; and o200k of what was sent/received).
 * - extract: LongMemEval sessions (--longmemeval FILE or LONGMEMEVAL_PATH; default
 *   bench/data/longmemeval/dev.jsonl.gz, skipped when absent) through POST /v1/memory/messages; the
 *   oracle extracts each user sentence about the user as "The user ...". Tokens per message and
 *   per conversation.
 * - latency (oracle only): teach p50/p95 with a model set vs none (alternating calls, worker
 *   stopped: the teach path alone), then the worker running (`start()`, polling included) against
 *   a model taking 500 ms a call while replacements are taught at 20 facts/s for --seconds: time
 *   from a teach's request to the model's applied decision (its row's created_at).
 *
 *   bun bench/model-capture.ts [--sets dev,holdout] [--only judge,extract,latency] [--seconds 30]
 *                              [--conversations 20] [--longmemeval FILE] [--misses]
 *   bun bench/model-capture.ts --model-url URL --model NAME [--provider anthropic|openai] [--api-key-env VAR]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { countCaptureJobs } from "../src/capture/model/queue";
import { EXTRACT_PROMPT, JUDGE_PROMPT, systemText } from "../src/capture/model/prompts";
import type { CaptureEvents } from "../src/capture/model/worker";
import { countTokens } from "../src/memory/tokens";
import { ModelError } from "../src/models/types";
import { loadPairs, PAIR_SETS, type PairSet } from "../test/capture/supersession/pairs";
import { call } from "../test/helpers/app";
import { openBenchDatabase } from "./lib/database";
import { argValue } from "./support/args";
import { KeyRing, openRig, oracleLabel, pairKey, sampleConversations, spread, type CallRecord, type Target } from "./support/capture-rig";
import { readWorkspace, teachSide, type Pair } from "./support/pair-capture";

const DAY = 86_400_000;
const url = argValue("--model-url");
const real = url !== undefined;
const only = (argValue("--only") ?? (real ? "judge,extract" : "judge,extract,latency")).split(",");
const sets = (argValue("--sets")?.split(",") ?? PAIR_SETS) as PairSet[];
for (const s of sets) if (!PAIR_SETS.includes(s)) usage(`unknown set "${s}" (${PAIR_SETS.join(", ")})`);
const seconds = Number(argValue("--seconds") ?? 30);
const conversations = Number(argValue("--conversations") ?? 20);
const lmePath = argValue("--longmemeval") ?? process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const showMisses = process.argv.includes("--misses");

function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/model-capture.ts [--sets a,b] [--only judge,extract,latency] [--seconds N] [--conversations N] [--longmemeval FILE] [--misses]
       bun bench/model-capture.ts --model-url URL --model NAME [--provider anthropic|openai] [--api-key-env VAR]`);
  process.exit(2);
}

let target: Target = { kind: "oracle" };
if (real) {
  const provider = (argValue("--provider") ?? "anthropic") as "anthropic" | "openai";
  const model = argValue("--model");
  if (!["anthropic", "openai"].includes(provider) || model === undefined) usage("--model-url URL needs --model NAME [--provider anthropic|openai]");
  const keyEnv = argValue("--api-key-env") ?? (provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  const apiKey = process.env[keyEnv] || undefined;
  if (provider === "anthropic" && apiKey === undefined)
    usage(`the anthropic provider needs a key: set ${keyEnv} (or name another variable with --api-key-env)`);
  target = { kind: "endpoint", provider, url, model, apiKey, timeoutMs: 60_000 };
}

/** A real endpoint must answer one small call before anything is taught. */
async function probe(): Promise<boolean> {
  const request = { model: rig.model, system: "Reply with the word OK.", messages: [{ role: "user" as const, content: "ping" }], maxOutputTokens: 16 };
  try {
    await rig.provider.generate({ ...request, tools: null, facts: [], signal: AbortSignal.timeout(30_000) }, () => {});
  } catch (error) {
    const code = error instanceof ModelError ? error.code : "no answer";
    console.error(`the model endpoint ${url} did not answer (${code}): ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  rig.calls.length = 0;
  return true;
}

/** Runs worker rounds until no job is ready; a model failing again and again ends the bench. */
async function drain(): Promise<void> {
  let failures = 0;
  const events: CaptureEvents = {
    call: (_kind, outcome) => {
      failures = outcome === "ok" || outcome === "unparsed" ? 0 : failures + 1;
      if (failures > 0) console.error(`capture model call failed: ${outcome}`);
    },
    decisions() {},
    refused() {},
  };
  const worker = rig.worker({ maxBackoffMs: 0 }, events);
  for (let rounds = 0; await worker.runRound(); rounds++) {
    if (failures >= 5) throw new Error("the capture model failed 5 times in a row: stopping");
    if (failures > 0) await Bun.sleep(1_000 * 2 ** failures); // the worker retries at once (maxBackoffMs 0): give the endpoint a moment
    if (rounds > 100_000) throw new Error("the queue does not drain");
  }
}

const ratio = (n: number, d: number): string => (d === 0 ? "-" : (n / d).toFixed(3));
const pct = (n: number, d: number): string => (d === 0 ? "-" : `${n}/${d} (${((100 * n) / d).toFixed(1)} %)`);
const sum = (calls: readonly CallRecord[], f: (c: CallRecord) => number): number => calls.reduce((a, c) => a + f(c), 0);
const usageOf = async (workspace: string): Promise<{ tokens: number; calls: number }> =>
  (
    await bench.db.sql<{ tokens: number; calls: number }>`
      SELECT coalesce(sum(u.input_tokens + u.output_tokens), 0)::float8 AS tokens, coalesce(sum(u.calls), 0)::int AS calls
        FROM capture_usage u JOIN workspaces w ON w.id = u.workspace_id WHERE w.slug = ${workspace}`
  )[0]!;

async function judgeSection(): Promise<void> {
  const quality: string[] = [];
  const misses: string[] = [];
  const vetoes: string[] = [];
  const tokens: string[] = [];
  for (const set of sets) {
    const pairs: Pair[] = loadPairs(set).map((p, i) => (p.end_user ? (p as Pair) : { ...p, end_user: { id: `pair-${i}` } }));
    rig.labels.clear();
    let conflicts = 0;
    for (const p of pairs) {
      const k = pairKey(p.newer, p.older);
      if (rig.labels.has(k) && rig.labels.get(k) !== oracleLabel(p)) conflicts += 1;
      else rig.labels.set(k, oracleLabel(p));
    }
    const withModel = await KeyRing.open(bench.db);
    await rig.setModel(withModel.workspace, true);
    const without = await KeyRing.open(bench.db);
    const first = rig.calls.length;
    const now = Date.now();
    await teachSide(rig, [withModel, without], pairs, "older", new Date(now - 2 * DAY));
    await drain();
    await teachSide(rig, [withModel, without], pairs, "newer", new Date(now - DAY));
    await drain();
    const calls = rig.calls.slice(first).filter((c) => c.kind === "judge");
    const shown = new Set(calls.flatMap((c) => c.pairs));
    const judged = new Set([...shown].map((k) => k.split("\u0000")[0]!));
    for (const [name, ring] of [
      ["none", without],
      [label, withModel],
    ] as const) {
      const r = await readWorkspace(rig, ring, pairs, shown, judged);
      const made = r.found + r.hiddenBoth;
      const other = r.replacements - r.found - r.vetoed;
      quality.push(
        `| ${set} | ${name} | ${pairs.length} | ${r.found}/${r.replacements} | ${r.byModel} | ${ratio(r.found, made)} | ${ratio(r.found, r.replacements)} | ${r.trueHidden} (${r.wrongByModel} by model) | ${r.vetoed} | ${other} | ${pct(r.currentFirst, r.questions)} |`,
      );
      if (name === "none") continue;
      for (const [reason, list] of r.reasons) {
        misses.push(`| ${set} | ${reason} | ${list.length} |`);
        if (showMisses) for (const m of list) misses.push(`|  |   ${m} | |`);
      }
      for (const [gate, n] of r.vetoes) vetoes.push(`| ${set} | ${gate} | ${n} |`);
      if (conflicts > 0) misses.push(`| ${set} | (text pairs labelled two ways in the set: first label used) | ${conflicts} |`);
      const facts = sum(calls, (c) => c.shown);
      const usage = await usageOf(ring.workspace);
      tokens.push(
        `| ${set} | ${calls.length} | ${facts} | ${(sum(calls, (c) => c.pairs.length) / Math.max(1, facts)).toFixed(2)} | ${usage.tokens} (${usage.calls} calls) | ${(usage.tokens / Math.max(1, facts)).toFixed(0)} | ${(sum(calls, (c) => c.o200kIn + c.o200kOut) / Math.max(1, facts)).toFixed(0)} | ${(sum(calls, (c) => c.ms) / Math.max(1, calls.length)).toFixed(0)} |`,
      );
    }
  }
  console.log("\n### Judged changes: replaces on the labelled pair sets (none: model-free path only; same run, same teaches)\n");
  console.log(
    "| set | capture model | pairs | replacements found | by the model | replaces precision | replaces recall | true facts hidden | replacements vetoed | replacements missed otherwise | current first |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const line of quality) console.log(line);
  console.log(`\n### Replacements not applied with the ${label} model, by reason\n`);
  console.log("| set | reason | replacements |\n|---|---|---|");
  for (const line of misses) console.log(line);
  console.log("\n### Decisions vetoed by the gates (all labels)\n\n| set | label: gate | decisions |\n|---|---|---|");
  for (const line of vetoes) console.log(line);
  console.log(
    `\n### Judging tokens (${real ? "as the endpoint reported" : "the fake reports input as request JSON chars / 4"}; o200k: what was sent and received)\n`,
  );
  console.log(
    "| set | judge calls | facts judged | candidates per fact | tokens (capture_usage) | tokens per judged fact | o200k per judged fact | ms per call |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const line of tokens) console.log(line);
  console.log(
    `\nsystem prompts (o200k, systemText): judge ${JUDGE_PROMPT.version} ${countTokens(systemText(JUDGE_PROMPT))} tokens, extract ${EXTRACT_PROMPT.version} ${countTokens(systemText(EXTRACT_PROMPT))} tokens`,
  );
}

async function extractSection(): Promise<void> {
  if (!existsSync(lmePath)) {
    console.log(`\nextraction: skipped, no LongMemEval file at ${lmePath} (set LONGMEMEVAL_PATH or pass --longmemeval FILE)`);
    return;
  }
  const sample = sampleConversations(lmePath, conversations);
  const ring = await KeyRing.open(bench.db);
  await rig.setModel(ring.workspace, true);
  const first = rig.calls.length;
  let statements = 0;
  for (const [i, c] of sample.entries()) {
    const body = { messages: c.messages, end_user: { id: `lme-${i}` }, observed_at: c.observedAt };
    const res = await call(rig.app, "POST", "/v1/memory/messages", { key: await ring.next(), body });
    if (res.status !== 202 && res.status !== 200) throw new Error(`teach messages failed: ${res.status} ${res.text}`);
    statements += res.json.data.statements.length;
  }
  await drain();
  const calls = rig.calls.slice(first);
  const extract = calls.filter((c) => c.kind === "extract");
  const judge = calls.filter((c) => c.kind === "judge");
  const [d] = await bench.db.sql<{ stored: number; replaced: number; vetoed: number }>`
    SELECT count(*) FILTER (WHERE d.vetoed_by IS NULL)::int AS stored, count(*) FILTER (WHERE d.vetoed_by IS NULL AND d.target_id IS NOT NULL)::int AS replaced,
           count(*) FILTER (WHERE d.vetoed_by IS NOT NULL)::int AS vetoed
      FROM capture_decisions d JOIN workspaces w ON w.id = d.workspace_id WHERE w.slug = ${ring.workspace} AND d.label = 'extracted'`;
  const messages = sample.reduce((a, c) => a + c.messages.length, 0);
  const users = sample.reduce((a, c) => a + c.messages.filter((m) => m.role === "user").length, 0);
  const tok = (cs: CallRecord[]) => sum(cs, (c) => c.usage.input_tokens + c.usage.output_tokens);
  const o200k = sum(extract, (c) => c.o200kIn + c.o200kOut);
  console.log(`\n### Extraction: ${sample.length} LongMemEval-S sessions through POST /v1/memory/messages, ${label} extractor\n`);
  console.log(
    "| conversations | messages (user) | verbatim statements | extract calls | facts extracted | vetoed (not a fact) | verbatim replaced | extract tokens (in + out) | per message | per conversation | o200k per conversation | judge follow-up calls, tokens |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${sample.length} | ${messages} (${users}) | ${statements} | ${extract.length} | ${d!.stored} | ${d!.vetoed} | ${d!.replaced} | ${tok(extract)} (${sum(extract, (c) => c.usage.input_tokens)} + ${sum(extract, (c) => c.usage.output_tokens)}) | ${(tok(extract) / messages).toFixed(0)} | ${(tok(extract) / sample.length).toFixed(0)} | ${(o200k / sample.length).toFixed(0)} | ${judge.length}, ${tok(judge)} |`,
  );
}

const ADJ =
  "amber azure brisk calm cedar coral dusty ember fable frost gentle golden granite hazel ivory jade lunar maple misty noble opal quiet rapid rustic silver solar stone tidal velvet willow".split(
    " ",
  );
const NOUN =
  "badger bison condor crane falcon ferret gecko heron ibis jackal koala lemur lynx marten moose newt ocelot osprey otter panda puffin quail raven salmon stoat tapir toucan walrus wombat yak".split(
    " ",
  );
const DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(" ");
const codename = (i: number): string => `${ADJ[i % 30]} ${NOUN[Math.floor(i / 30) % 30]}${i >= 900 ? ` ${Math.floor(i / 900) + 1}` : ""}`;

async function latencySection(): Promise<void> {
  // 1. Teach with a model set vs none: one fact a call, the two workspaces alternating, worker stopped.
  const on = await KeyRing.open(bench.db);
  await rig.setModel(on.workspace, true);
  const off = await KeyRing.open(bench.db);
  const samples = new Map<KeyRing, number[]>([
    [on, []],
    [off, []],
  ]);
  for (let i = 0; i < 420; i++) {
    const text = `The ${codename(i)} team's build runs on ${DAYS[i % 7]}s.`;
    for (const ring of i % 2 === 0 ? [on, off] : [off, on]) {
      const key = await ring.next();
      const started = performance.now();
      const res = await call(rig.app, "POST", "/v1/memory/facts", { key, body: { facts: [{ text }] } });
      if (res.status !== 202) throw new Error(`teach failed: ${res.status} ${res.text}`);
      if (i >= 20) samples.get(ring)!.push(performance.now() - started);
    }
  }
  await rig.setModel(on.workspace, false); // its queued jobs end failed: the next run starts on an empty queue
  console.log("\n### Teach latency, one fact a call, 400 calls each, alternating (worker stopped: the teach path alone)\n");
  console.log("| capture model | p50 ms | p95 ms | mean ms |\n|---|---|---|---|");
  for (const [name, ring] of [
    [label, on],
    ["none", off],
  ] as const) {
    const s = spread(samples.get(ring)!);
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p95.toFixed(2)} | ${s.mean.toFixed(2)} |`);
  }

  // 2. Teach to applied decision: the running worker, a model of 500 ms a call, 20 facts/s.
  const rate = 20;
  const n = Math.round(rate * seconds);
  const older = (i: number) => `The ${codename(i)} team's weekly sync happens on ${DAYS[i % 7]}s.`;
  const newer = (i: number) => `The ${codename(i)} team's weekly sync is on ${DAYS[(i + 3) % 7]}s now.`;
  const ring = await KeyRing.open(bench.db);
  const observed = new Date(Date.now() - DAY).toISOString();
  for (let at = 0; at < n; at += 20) {
    const facts = Array.from({ length: Math.min(20, n - at) }, (_, j) => ({ text: older(at + j), observed_at: observed }));
    const res = await call(rig.app, "POST", "/v1/memory/facts", { key: await ring.next(), body: { facts } });
    if (res.status !== 202) throw new Error(`teach failed: ${res.status} ${res.text}`);
  }
  rig.labels.clear();
  for (let i = 0; i < n; i++) rig.labels.set(pairKey(newer(i), older(i)), "replaces");
  await rig.setModel(ring.workspace, true);
  const [ws] = await bench.db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${ring.workspace}`;
  rig.delay.ms = 500;
  const first = rig.calls.length;
  const worker = rig.worker();
  worker.start();
  const startedAt = new Map<string, number>();
  const teachMs: number[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const key = await ring.next();
    startedAt.set(newer(i), Date.now());
    const s = performance.now();
    pending.push(
      call(rig.app, "POST", "/v1/memory/facts", { key, body: { facts: [{ text: newer(i) }] } }).then((res) => {
        if (res.status !== 202) throw new Error(`teach failed: ${res.status} ${res.text}`);
        teachMs.push(performance.now() - s);
      }),
    );
  }
  await Promise.all(pending);
  const achieved = n / ((performance.now() - t0) / 1000);
  for (const until = Date.now() + 120_000; Date.now() < until; await Bun.sleep(100)) {
    const jobs = await countCaptureJobs(bench.db, ws!.id);
    if (jobs.queued + jobs.running === 0) break;
  }
  await worker.stop();
  rig.delay.ms = 0;
  const rows = await bench.db.sql<{ text: string; at: Date }>`
    SELECT f.text, d.created_at AS at FROM capture_decisions d JOIN facts f ON f.id = d.fact_id
     WHERE d.workspace_id = ${ws!.id} AND d.label = 'replaces' AND d.vetoed_by IS NULL`;
  const [rules] = await bench.db.sql<{ n: number }>`
    SELECT count(*)::int AS n FROM facts f WHERE f.workspace_id = ${ws!.id} AND f.superseded_by IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM capture_decisions d WHERE d.target_id = f.id AND d.vetoed_by IS NULL)`;
  const lags = rows
    .flatMap((r) => (startedAt.has(r.text) ? [{ at: startedAt.get(r.text)!, ms: new Date(r.at).getTime() - startedAt.get(r.text)! }] : []))
    .sort((a, b) => a.at - b.at)
    .map((l) => l.ms);
  const lag = spread(lags);
  const third = Math.floor(lags.length / 3);
  const [early, late] = [spread(lags.slice(0, third)), spread(lags.slice(-third))];
  const calls = rig.calls.slice(first).filter((c) => c.kind === "judge");
  const t = spread(teachMs);
  console.log(`\n### Teach to applied decision: worker start() (poll 500 ms, batch 32), model 500 ms a call, ${rate} facts/s for ${seconds} s\n`);
  console.log(
    "| facts taught (rate achieved) | teach p50 / p95 ms | applied by the model | replaced by rules at teach | judge calls (facts per call) | decision p50 ms | p95 ms | max ms | p50 first / last third of the run |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${n} (${achieved.toFixed(1)}/s) | ${t.p50.toFixed(1)} / ${t.p95.toFixed(1)} | ${lag.n} | ${rules!.n} | ${calls.length} (${(sum(calls, (c) => c.shown) / Math.max(1, calls.length)).toFixed(1)}) | ${lag.p50.toFixed(0)} | ${lag.p95.toFixed(0)} | ${lag.max.toFixed(0)} | ${early.p50.toFixed(0)} / ${late.p50.toFixed(0)} |`,
  );
}

const bench = await openBenchDatabase();
const rig = await openRig(bench.db, target);
const label = real ? `${rig.providerName}/${rig.model}` : "oracle";
console.log(`database: ${bench.label}; capture model: ${real ? `${label} at ${url}` : "oracle (fake Messages API, real Anthropic provider)"}`);
try {
  if (real && !(await probe())) process.exitCode = 1;
  else await run();
} finally {
  await rig.close();
  await bench.close();
}

async function run(): Promise<void> {
  if (only.includes("judge")) await judgeSection();
  if (only.includes("extract")) await extractSection();
  if (only.includes("latency")) {
    if (real) console.log("\nlatency: oracle mode only (it needs the fake's 500 ms delay)");
    else await latencySection();
  }
}
