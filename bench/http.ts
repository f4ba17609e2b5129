/**
 * HTTP benchmark of the compiled binary on local PostgreSQL (issue 9's table), with the load
 * generator in separate processes (bench/support/loadgen.ts) on loopback, next to the bare
 * baseline (bench/baseline.ts: `Bun.serve` + postgres.js `select 1`) on the same database.
 *
 *   bun bench/http.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--dbs main,big]
 *                     [--duration 10] [--warmup 3] [--connections 16] [--reseed]
 *                     [--only search,context,...] [--out bench/out/http-<time>.json]
 *                     [--binary dist/memoryd]
 *
 * Databases (bench/support/layout.ts, seeded on first use and reused):
 *   main  the measured workspace m100k (100k facts) beside 5 other workspaces of 200k facts each
 *         (1M) and a 20k one: the whole suite runs here.
 *   big   one1m, 1M facts in one workspace: baseline and search only.
 *   small t0-20k, 20k facts in a database of their own: the whole suite.
 * For each database it starts `dist/memoryd serve` with MEMORYD_LOG_LEVEL=warn and
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL pointing at a fake Anthropic (zero delay) served by this
 * process, and the baseline. Scenarios run one after another; after each one it reads the
 * server's VmRSS and the CPU time the server, PostgreSQL and the load generator used. Prints
 * Markdown tables and the targets table and writes the raw results as JSON. Needs dist/memoryd
 * (`bun run build`).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../src/db/postgres";
import { createFakeAnthropic } from "../test/helpers/fake-anthropic";
import { workspaceFactCount } from "./seed";
import type { LoadResult, LoadSpec, ScenarioName } from "./support/loadgen";
import { DATABASES, otherFacts, prepareDatabase } from "./support/layout";
import { runLoadgen } from "./support/spawn-loadgen";
import { provenance } from "./support/provenance";
import { cpuSeconds, loadAverage, machineBusySeconds, rssMb, samplePostgresCpu, spawnUntil, type Spawned } from "./support/procs";
import { argValue } from "./support/args";

const BINARY = argValue("--binary") ?? join(import.meta.dir, "..", "dist", "memoryd");
const BASELINE = join(import.meta.dir, "baseline.ts");

const adminUrl = argValue("--admin-url") ?? argValue("--database-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const durationMs = Number(argValue("--duration") ?? 10) * 1000;
const warmupMs = Number(argValue("--warmup") ?? 3) * 1000;
const connections = Number(argValue("--connections") ?? 16);
const reseed = process.argv.includes("--reseed");
const only = argValue("--only")?.split(",");
/** Which database, which workspace in it, and whether the whole suite runs there. */
const TARGETS: Record<string, { db: string; slug: string; full: boolean }> = {
  main: { db: "main", slug: "m100k", full: true },
  big: { db: "big", slug: "one1m", full: false },
  // 20k facts in a database of their own: the size of the per-request cost comparisons.
  small: { db: "alone", slug: "t0-20k", full: true },
};
const targetLabels = (argValue("--dbs") ?? "main,big").split(",");
for (const label of targetLabels) if (!(label in TARGETS)) throw new Error(`unknown database "${label}" (${Object.keys(TARGETS).join(", ")})`);
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const outPath = argValue("--out") ?? join(import.meta.dir, "out", `http-${stamp}.json`);

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

interface Step {
  name: string;
  target: "server" | "baseline";
  scenario: ScenarioName;
  connections: number;
  durationMs?: number;
  endUserShare?: number;
}

/** The full suite on the main database; the 1M workspace runs only the search comparison. */
function stepsFor(full: boolean): Step[] {
  const c = connections;
  const searchOnly: Step[] = [
    { name: "bare baseline: select 1", target: "baseline", scenario: "baseline", connections: c },
    { name: "REST POST /v1/memory/search", target: "server", scenario: "search", connections: c },
    { name: "bare baseline: select 1 (1 conn)", target: "baseline", scenario: "baseline", connections: 1 },
    { name: "REST search (1 conn)", target: "server", scenario: "search", connections: 1 },
    { name: "GET /v1/whoami (1 conn)", target: "server", scenario: "whoami", connections: 1 },
  ];
  if (!full) return searchOnly;
  return [
    { name: "loadgen ceiling: GET /healthz (no DB)", target: "server", scenario: "healthz", connections: c, durationMs: 5000 },
    ...searchOnly,
    { name: "MCP tools/call search_memory", target: "server", scenario: "mcp_search", connections: c },
    { name: "MCP search_memory (1 conn)", target: "server", scenario: "mcp_search", connections: 1 },
    { name: "REST POST /v1/memory/context", target: "server", scenario: "context", connections: c },
    { name: "REST context (1 conn)", target: "server", scenario: "context", connections: 1 },
    { name: "POST /v1/answers stream (1 conn)", target: "server", scenario: "answer_stream", connections: 1 },
    { name: "REST POST /v1/memory/facts (20/call)", target: "server", scenario: "teach", connections: 16 },
  ];
}

interface StepResult extends LoadResult {
  name: string;
  target: "server" | "baseline";
  serverRssMb: number;
  baselineRssMb: number;
  /** CPU ms per request sent (warm-up included), by process group. */
  cpuMsPerRequest: { server: number; postgres: number; loadgen: number; machine: number };
  machineBusyPct: number;
  loadAvg: string;
}

interface SizeRun {
  label: string;
  database: string;
  workspace: string;
  facts: number;
  liveFacts: number;
  /** Facts of the other workspaces in the same database. */
  otherFacts: number;
  seeded: { slug: string; facts: number; seconds: number; factsPerSecond: number }[];
  /** The first search of the workspace after the server started (builds its index). */
  firstSearchMs: number;
  idleRssMb: number;
  /** Server RSS once the workspace's index is built and warm. */
  warmRssMb: number;
  steps: StepResult[];
}

async function benchSize(label: string, fakeUrl: string): Promise<SizeRun> {
  const target = TARGETS[label]!;
  const prepared = await prepareDatabase(adminUrl, DATABASES[target.db]!, { reseed, log });
  const file = prepared.files.get(target.slug)!;
  const url = prepared.url;
  const run: SizeRun = {
    label,
    database: prepared.spec.name,
    workspace: target.slug,
    facts: 0,
    liveFacts: 0,
    otherFacts: await otherFacts(url, file.workspaceId),
    seeded: prepared.seeded,
    firstSearchMs: Number.NaN,
    idleRssMb: Number.NaN,
    warmRssMb: Number.NaN,
    steps: [],
  };
  {
    const db = openPostgres({ url, maxConnections: 1 });
    const count = await workspaceFactCount(db, target.slug);
    await db.close();
    run.facts = count?.total ?? 0;
    run.liveFacts = count?.live ?? 0;
  }
  const cwd = mkdtempSync(join(tmpdir(), "memoryd-bench-http-"));
  let server: Spawned | undefined;
  let baseline: Spawned | undefined;
  try {
    server = await spawnUntil([BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--database-url", url], /memoryd listening on (http:\/\/\S+)/, {
      cwd,
      env: {
        MEMORYD_LOG_LEVEL: "warn",
        ANTHROPIC_API_KEY: "sk-ant-bench-fake",
        ANTHROPIC_BASE_URL: fakeUrl,
        PORT: undefined,
        HOST: undefined,
        DATABASE_URL: undefined,
      },
    });
    baseline = await spawnUntil([process.execPath, BASELINE, "--database-url", url], /baseline listening on (http:\/\/\S+)/);
    await Bun.sleep(3000);
    run.idleRssMb = rssMb(server.proc.pid);
    log(
      `${file.workspace}: ${run.facts} facts (${run.liveFacts} live), ${run.otherFacts} facts in other workspaces, server pid ${server.proc.pid} idle RSS ${run.idleRssMb.toFixed(0)} MB`,
    );

    // The first search builds the workspace's index from PostgreSQL (cold, as after a restart).
    const t0 = performance.now();
    const first = await fetch(`${server.url}/v1/memory/search`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${file.keys[0]}` },
      body: JSON.stringify({ query: "deploy freeze", limit: 20 }),
    });
    await first.arrayBuffer();
    run.firstSearchMs = performance.now() - t0;
    log(`${file.workspace}: first search (index build) ${run.firstSearchMs.toFixed(0)} ms, status ${first.status}`);

    let keyOffset = 1 + Math.floor(Math.random() * (file.keys.length - 1));
    // Warm the caches (PostgreSQL buffers, both processes' JIT) before anything is measured.
    const warm = await runLoadgen({
      url: server.url,
      scenario: "search",
      connections,
      warmupMs: 0,
      durationMs: Math.max(5_000, warmupMs),
      keys: file.keys,
      keyOffset,
      seed: file.seed,
      runId: `${stamp}-${label}-warm`,
    });
    keyOffset += warm.result.sent;
    run.warmRssMb = rssMb(server.proc.pid);
    log(`${file.workspace}: cache warm-up (REST search, not reported): ${warm.result.rps.toFixed(0)} req/s, RSS ${run.warmRssMb.toFixed(0)} MB`);
    for (const step of stepsFor(target.full)) {
      if (only && !only.includes(step.scenario)) continue;
      const proc = step.target === "server" ? server : baseline;
      const spec: LoadSpec = {
        url: proc.url,
        scenario: step.scenario,
        connections: step.connections,
        warmupMs,
        durationMs: step.durationMs ?? durationMs,
        keys: file.keys,
        keyOffset,
        seed: file.seed,
        runId: `${stamp}-${label}-${step.scenario}-${step.connections}`,
        endUserShare: step.endUserShare,
      };
      const before = {
        server: cpuSeconds(server.proc.pid) + cpuSeconds(baseline.proc.pid),
        machine: machineBusySeconds(),
        wall: performance.now(),
      };
      const pgSampler = samplePostgresCpu(prepared.spec.name);
      const loadAvg = loadAverage();
      const { result, loadgenCpu } = await runLoadgen(spec);
      const after = {
        server: cpuSeconds(server.proc.pid) + cpuSeconds(baseline.proc.pid),
        machine: machineBusySeconds(),
        wall: performance.now(),
      };
      const pgCpu = pgSampler.stop();
      keyOffset += result.sent;
      const perReq = (sec: number) => (sec * 1000) / Math.max(1, result.sent);
      const stepResult: StepResult = {
        ...result,
        name: step.name,
        target: step.target,
        serverRssMb: rssMb(server.proc.pid),
        baselineRssMb: rssMb(baseline.proc.pid),
        cpuMsPerRequest: {
          server: perReq(after.server - before.server),
          postgres: perReq(pgCpu),
          loadgen: perReq(loadgenCpu),
          machine: perReq(after.machine - before.machine),
        },
        machineBusyPct: ((after.machine - before.machine) / ((after.wall - before.wall) / 1000) / availableParallelism()) * 100,
        loadAvg,
      };
      run.steps.push(stepResult);
      const baselineRps = baselineFor(run, step.connections);
      const ratio = step.target === "server" && Number.isFinite(baselineRps) ? ` (${(result.rps / baselineRps).toFixed(2)}x baseline)` : "";
      log(
        `${file.workspace} ${step.name} c=${step.connections}: ${result.rps.toFixed(0)} req/s${ratio}, p50 ${result.latencyMs.p50.toFixed(2)} ms, ` +
          `p95 ${result.latencyMs.p95.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, non-2xx ${result.non2xx}, ` +
          `net ${result.networkErrors}, app ${result.appErrors}, RSS ${stepResult.serverRssMb.toFixed(0)} MB` +
          (result.errorSamples.length ? `\n    errors: ${result.errorSamples.join(" | ")}` : ""),
      );
    }
  } finally {
    await server?.stop();
    await baseline?.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
  return run;
}

// ---------------------------------------------------------------------------------------------

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

/** The bare baseline's throughput at the same connection count, else at the full count. */
function baselineFor(run: SizeRun, conns: number): number {
  const base = (c: number) => run.steps.find((x) => x.scenario === "baseline" && x.connections === c)?.rps;
  return base(conns) ?? base(connections) ?? Number.NaN;
}

function stepTable(run: SizeRun): string {
  const lines = [
    "| scenario | conns | req/s | ÷ baseline | p50 ms | p95 ms | p99 ms | non-2xx | errors | RSS MB (server; baseline rows: baseline) | CPU ms/req server / PG / loadgen |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const x of run.steps) {
    const ratio = x.target === "server" && x.scenario !== "healthz" ? fmt(x.rps / baselineFor(run, x.connections), 2) : "";
    const status = Object.entries(x.status)
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, n]) => `${n}×${code}`)
      .join(" ");
    lines.push(
      `| ${x.name} | ${x.connections} | ${fmt(x.rps, 0)} | ${ratio} | ${fmt(x.latencyMs.p50, 2)} | ${fmt(x.latencyMs.p95, 2)} | ${fmt(x.latencyMs.p99, 2)} | ` +
        `${x.non2xx}${status ? ` (${status})` : ""} | ${x.networkErrors + x.appErrors} | ${fmt(x.target === "server" ? x.serverRssMb : x.baselineRssMb, 0)} | ` +
        `${fmt(x.cpuMsPerRequest.server, 2)} / ${fmt(x.cpuMsPerRequest.postgres, 2)} / ${fmt(x.cpuMsPerRequest.loadgen, 2)} |`,
    );
  }
  return lines.join("\n");
}

function extrasTable(run: SizeRun): string {
  const lines: string[] = [];
  // "REST search (1 conn)" already says how many connections.
  const label = (x: StepResult) => (x.name.includes("conn") ? x.name : `${x.name}, ${x.connections} conns`);
  for (const x of run.steps) {
    const e = x.extra;
    if (x.scenario === "teach") {
      lines.push(
        `- ${label(x)}: ${fmt(e.acceptedPerSecond as number, 0)} facts/s accepted, ${fmt(e.storedPerSecond as number, 0)} facts/s stored ` +
          `(created ${e.created}, superseded ${e.superseded}, skipped ${e.skipped})`,
      );
    }
    if (x.scenario === "answer_stream") {
      const fd = e.firstDeltaMs as { p50: number; p95: number; p99: number } | undefined;
      const cr = e.createdMs as { p50: number; p95: number } | undefined;
      lines.push(
        `- ${label(x)}: first answer.delta p50 ${fmt(fd?.p50 ?? Number.NaN, 2)} ms / p95 ${fmt(fd?.p95 ?? Number.NaN, 2)} ms / p99 ${fmt(fd?.p99 ?? Number.NaN, 2)} ms; ` +
          `answer.created p50 ${fmt(cr?.p50 ?? Number.NaN, 2)} ms; whole answer p50 ${fmt(x.latencyMs.p50, 2)} ms`,
      );
    }
    if (typeof e.avgResults === "number" && (x.scenario.includes("search") || x.scenario === "context")) {
      lines.push(`- ${label(x)}: ${fmt(e.avgResults, 1)} facts per response on average`);
    }
  }
  return lines.join("\n");
}

const startLoad = loadAverage();
const origin = provenance(BINARY);
for (const line of origin) log(line);
const fake = createFakeAnthropic({ defaultReply: "Based on the workspace memory, here is the answer to your question.", defaultDelayMs: 0 });
// The fake records every request; the bench only needs it to answer.
const recorder = setInterval(() => fake.reset(), 1000);
const runs: SizeRun[] = [];
try {
  statSync(BINARY);
  for (const label of targetLabels) runs.push(await benchSize(label, fake.url));
} finally {
  clearInterval(recorder);
  await fake.stop();
}

mkdirSync(join(outPath, ".."), { recursive: true });
writeFileSync(outPath, `${JSON.stringify({ date: new Date().toISOString(), origin, startLoad, connections, durationMs, warmupMs, runs }, null, 2)}\n`);

const out: string[] = [];
out.push(`# memoryd HTTP bench, ${new Date().toISOString()}`);
out.push(
  `duration ${durationMs / 1000} s + ${warmupMs / 1000} s warm-up per scenario; load average at start ${startLoad}; raw results: bench/out/${outPath.split("/").pop()}`,
);
out.push(...origin);
for (const run of runs) {
  out.push(
    "",
    `## ${run.label}: workspace ${run.workspace}, ${run.facts.toLocaleString("en")} facts (${run.liveFacts.toLocaleString("en")} live); ` +
      `${run.otherFacts.toLocaleString("en")} facts of other workspaces in ${run.database}`,
  );
  out.push(
    `first search after start (builds the index): ${fmt(run.firstSearchMs, 0)} ms; server RSS idle ${fmt(run.idleRssMb, 0)} MB, ` +
      `after the index is built ${fmt(run.warmRssMb, 0)} MB`,
  );
  for (const x of run.seeded)
    out.push(`seeded now: ${x.slug}, ${x.facts.toLocaleString("en")} facts in ${fmt(x.seconds)} s = ${fmt(x.factsPerSecond, 0)} facts/s`);
  out.push("", stepTable(run), "", extrasTable(run));
}

const rows: [string, string, string, boolean | undefined][] = [];
const add = (name: string, goal: string, value: number | undefined, text: (v: number) => string, met: (v: number) => boolean) =>
  rows.push([
    name,
    goal,
    value === undefined || !Number.isFinite(value) ? "not measured" : text(value),
    value === undefined || !Number.isFinite(value) ? undefined : met(value),
  ]);
const ms = (v: number) => `${fmt(v, 2)} ms`;
for (const run of runs) {
  const step = (scenario: ScenarioName, conns: number) => run.steps.find((x) => x.scenario === scenario && x.connections === conns);
  const size = `${run.workspace}, ${(run.liveFacts / 1000).toFixed(0)}k live, ${(run.otherFacts / 1e6).toFixed(2)}M others`;
  const s1 = step("search", 1);
  add(`search p50, 1 conn (${size})`, "≤ 1 ms", s1?.latencyMs.p50, ms, (v) => v <= 1);
  add(`search p95, 1 conn (${size})`, "≤ 3 ms", s1?.latencyMs.p95, ms, (v) => v <= 3);
  const rest = step("search", connections);
  const base = step("baseline", connections);
  add(
    `search throughput, ${connections} conns ÷ bare baseline (${size})`,
    "≥ 0.25",
    rest && base ? rest.rps / base.rps : undefined,
    (v) => `${fmt(v, 2)} (${fmt(rest?.rps ?? Number.NaN, 0)} ÷ ${fmt(base?.rps ?? Number.NaN, 0)} req/s)`,
    (v) => v >= 0.25,
  );
  const base1 = step("baseline", 1);
  const whoami = step("whoami", 1);
  add(
    `whoami p50, 1 conn ÷ bare select 1 p50`,
    "≤ 2",
    whoami && base1 ? whoami.latencyMs.p50 / base1.latencyMs.p50 : undefined,
    (v) => `${fmt(v, 2)} (${ms(whoami?.latencyMs.p50 ?? Number.NaN)} ÷ ${ms(base1?.latencyMs.p50 ?? Number.NaN)})`,
    (v) => v <= 2,
  );
  if (!TARGETS[run.label]!.full) continue;
  const mcp = step("mcp_search", connections);
  const mcp1 = step("mcp_search", 1);
  add(
    `MCP search_memory ÷ REST search throughput, ${connections} conns`,
    "≥ 0.9",
    mcp && rest ? mcp.rps / rest.rps : undefined,
    (v) => fmt(v, 2),
    (v) => v >= 0.9,
  );
  add(
    "MCP search_memory p50 ÷ REST search p50, 1 conn",
    "≤ 1.2",
    mcp1 && s1 ? mcp1.latencyMs.p50 / s1.latencyMs.p50 : undefined,
    (v) => `${fmt(v, 2)} (${ms(mcp1?.latencyMs.p50 ?? Number.NaN)} ÷ ${ms(s1?.latencyMs.p50 ?? Number.NaN)})`,
    (v) => v <= 1.2,
  );
  const context = step("context", connections);
  add(
    `context ÷ search throughput, ${connections} conns`,
    "≥ 0.7",
    context && rest ? context.rps / rest.rps : undefined,
    (v) => fmt(v, 2),
    (v) => v >= 0.7,
  );
  const teach = step("teach", 16)?.extra.acceptedPerSecond as number | undefined;
  add(
    "teach into one workspace, 20 facts per call, 16 callers",
    "≥ 3,000 facts/s",
    teach,
    (v) => `${fmt(v, 0)} facts/s`,
    (v) => v >= 3000,
  );
  const delta = step("answer_stream", 1)?.extra.firstDeltaMs as { p50: number } | undefined;
  add("first answer.delta, fake model with zero delay (1 conn)", "≤ 10 ms p50", delta?.p50, ms, (v) => v <= 10);
}
out.push("", "## targets measured by this run", "", "| target | goal | measured | met |", "|---|---|---|---|");
for (const [name, goal, value, met] of rows)
  out.push(`| ${name} | ${goal} | ${value} | ${met === undefined ? "–" : goal === "–" ? "" : met ? "met" : "**not met**"} |`);
out.push("", "(growth and tenancy rows: `bun bench/tenancy.ts`; index build and bytes per fact: `bun bench/index.ts`.)");
const failed = runs.flatMap((r) => r.steps.filter((x) => x.non2xx + x.networkErrors + x.appErrors > 0).map((x) => `${r.label} ${x.name} c=${x.connections}`));
if (failed.length > 0) out.push("", `WARNING: non-2xx responses or errors in: ${failed.join("; ")}`);
console.log(out.join("\n"));
if (failed.length > 0) process.exitCode = 1;
