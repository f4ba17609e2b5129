/**
 * HTTP benchmark of the compiled binary on local PostgreSQL, with the load generator in separate
 * processes (bench/support/loadgen.ts) on loopback, next to a bare baseline (bench/baseline.ts)
 * that runs the identical search SQL with no framework and no auth.
 *
 *   bun bench/http.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--sizes 100k,10k]
 *                     [--big] [--duration 10] [--warmup 3] [--connections 32] [--keys 3000]
 *                     [--reseed] [--only search,context,...] [--out bench/out/http-<time>.json]
 *
 * For each size it uses the database memoryd_perf_<size> (workspace bench<size>), seeding it with
 * bench/seed.ts's `seedWorkspace` when it is missing or was changed by an earlier run (the teach
 * scenario adds facts), then starts `dist/memoryd serve` on it with MEMORYD_LOG_LEVEL=warn and
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL pointing at a fake Anthropic (zero delay) served by this
 * process, and the baseline on the same database. Scenarios run one after another; after each one
 * it reads the server's VmRSS and the CPU time the server, PostgreSQL and the load generator used.
 * `--big` adds the 1M size (seeding it takes minutes). Prints Markdown tables and writes the raw
 * results as JSON. Needs dist/memoryd (`bun run build`).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../src/db/postgres";
import { createFakeAnthropic } from "../test/helpers/fake-anthropic";
import { addKeys, dropDatabase, ensureDatabase, readKeysFile, schemaFingerprint, seedWorkspace, workspaceFactCount, type KeysFile } from "./seed";
import type { LoadResult, LoadSpec, ScenarioName } from "./support/loadgen";
import { cpuSeconds, loadAverage, machineBusySeconds, rssMb, samplePostgresCpu, spawnUntil, type Spawned } from "./support/procs";
import { argValue } from "./support/args";

const BINARY = join(import.meta.dir, "..", "dist", "memoryd");
const LOADGEN = join(import.meta.dir, "support", "loadgen.ts");
const BASELINE = join(import.meta.dir, "baseline.ts");


const adminUrl = argValue("--admin-url") ?? argValue("--database-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const durationMs = Number(argValue("--duration") ?? 10) * 1000;
const warmupMs = Number(argValue("--warmup") ?? 3) * 1000;
const connections = Number(argValue("--connections") ?? 32);
const keysWanted = Number(argValue("--keys") ?? 3000);
const reseed = process.argv.includes("--reseed");
const only = argValue("--only")?.split(",");
const SIZES: Record<string, number> = { "10k": 10_000, "100k": 100_000, "1m": 1_000_000 };
const sizeLabels = (argValue("--sizes") ?? "100k,10k").split(",").map((s) => s.toLowerCase());
if (process.argv.includes("--big") && !sizeLabels.includes("1m")) sizeLabels.push("1m");
for (const label of sizeLabels) if (!(label in SIZES)) throw new Error(`unknown size "${label}" (10k, 100k, 1m)`);
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const outPath = argValue("--out") ?? join(import.meta.dir, "out", `http-${stamp}.json`);

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

function dbUrl(label: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/memoryd_perf_${label}`;
  return url.toString();
}

interface Step {
  name: string;
  target: "server" | "baseline";
  scenario: ScenarioName;
  connections: number;
  durationMs?: number;
  endUserShare?: number;
}

/** The full suite on the main size; the other sizes run only the search comparison. */
function stepsFor(full: boolean): Step[] {
  const c = connections;
  const searchOnly: Step[] = [
    { name: "bare baseline: search SQL", target: "baseline", scenario: "baseline_search", connections: c },
    { name: "REST POST /v1/memory/search", target: "server", scenario: "search", connections: c },
    { name: "bare baseline: search SQL (1 conn)", target: "baseline", scenario: "baseline_search", connections: 1 },
    { name: "REST search (1 conn)", target: "server", scenario: "search", connections: 1 },
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
    { name: "POST /v1/answers stream", target: "server", scenario: "answer_stream", connections: 16 },
    { name: "MCP tools/call ask_worker", target: "server", scenario: "mcp_ask", connections: 8 },
    { name: "REST POST /v1/memory/facts (20/call)", target: "server", scenario: "teach", connections: 16 },
    { name: "teach (1 conn)", target: "server", scenario: "teach", connections: 1 },
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

async function runLoadgen(spec: LoadSpec): Promise<{ result: LoadResult; loadgenCpu: number }> {
  const proc = Bun.spawn([process.execPath, LOADGEN], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(JSON.stringify(spec));
  await proc.stdin.end();
  // The child's CPU time is read just before it exits: poll while it runs.
  let loadgenCpu = 0;
  const poll = setInterval(() => {
    const v = cpuSeconds(proc.pid);
    if (!Number.isNaN(v)) loadgenCpu = v;
  }, 100);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearInterval(poll);
  if (code !== 0) throw new Error(`loadgen exited ${code}: ${stderr}`);
  return { result: JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadResult, loadgenCpu };
}

interface SizeRun {
  label: string;
  facts: number;
  liveFacts: number;
  seed?: { factsPerSecond: number; loadSeconds: number; vacuumSeconds: number; inserted: number };
  idleRssMb: number;
  steps: StepResult[];
}

/** Seeds (or reuses) the size's database; returns its keys file with at least `keysWanted` keys. */
async function prepare(label: string, run: SizeRun): Promise<KeysFile> {
  const url = dbUrl(label);
  const slug = `bench${label}`;
  let file = readKeysFile(slug);
  await ensureDatabase(url);
  let db = openPostgres({ url, maxConnections: 10 });
  let fresh = reseed || !file;
  if (!fresh && file && file.schema !== schemaFingerprint()) {
    log(`${slug}: seeded under other migrations (src/db/migrations changed since): reseeding`);
    fresh = true;
  }
  if (!fresh && file) {
    const count = await workspaceFactCount(db, slug).catch(() => null);
    if (!count || count.id !== file.workspaceId || count.total !== file.seededFacts) {
      log(`${slug}: workspace changed since it was seeded (${count?.total ?? "missing"} vs ${file.seededFacts} facts): reseeding`);
      fresh = true;
    }
  }
  if (fresh) {
    await db.close();
    await dropDatabase(url);
    log(`${slug}: seeding ${SIZES[label]!.toLocaleString("en")} facts into memoryd_perf_${label}`);
    const report = await seedWorkspace({ databaseUrl: url, workspace: slug, facts: SIZES[label]!, keys: keysWanted, log });
    run.seed = { factsPerSecond: report.factsPerSecond, loadSeconds: report.loadSeconds, vacuumSeconds: report.vacuumSeconds, inserted: report.inserted };
    log(`${slug}: loaded ${report.inserted} facts in ${report.loadSeconds.toFixed(1)} s (${report.factsPerSecond.toFixed(0)} facts/s)`);
    file = readKeysFile(slug)!;
    db = openPostgres({ url, maxConnections: 10 });
  }
  if (file!.keys.length < keysWanted) {
    log(`${slug}: creating ${keysWanted - file!.keys.length} more keys`);
    file = await addKeys(db, file!, keysWanted - file!.keys.length);
  }
  const count = await workspaceFactCount(db, slug);
  run.facts = count?.total ?? 0;
  run.liveFacts = count?.live ?? 0;
  await db.close();
  return file!;
}

async function benchSize(label: string, full: boolean, fakeUrl: string): Promise<SizeRun> {
  const run: SizeRun = { label, facts: 0, liveFacts: 0, idleRssMb: Number.NaN, steps: [] };
  const file = await prepare(label, run);
  const url = dbUrl(label);
  const cwd = mkdtempSync(join(tmpdir(), "memoryd-bench-http-"));
  let server: Spawned | undefined;
  let baseline: Spawned | undefined;
  try {
    server = await spawnUntil([BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--database-url", url], /memoryd listening on (http:\/\/\S+)/, {
      cwd,
      env: { MEMORYD_LOG_LEVEL: "warn", ANTHROPIC_API_KEY: "sk-ant-bench-fake", ANTHROPIC_BASE_URL: fakeUrl, PORT: undefined, HOST: undefined, DATABASE_URL: undefined },
    });
    baseline = await spawnUntil([process.execPath, BASELINE, "--database-url", url], /baseline listening on (http:\/\/\S+)/);
    await Bun.sleep(3000);
    run.idleRssMb = rssMb(server.proc.pid);
    log(`${file.workspace}: ${run.facts} facts (${run.liveFacts} live), server pid ${server.proc.pid} idle RSS ${run.idleRssMb.toFixed(0)} MB`);

    let keyOffset = Math.floor(Math.random() * file.keys.length);
    // Warm the caches (PostgreSQL buffers, OS page cache, both processes' JIT) before anything is
    // measured: a freshly seeded 1M database otherwise makes whichever scenario runs first pay.
    const warm = await runLoadgen({
      url: server.url,
      scenario: "search",
      connections,
      warmupMs: 0,
      durationMs: Math.max(10_000, warmupMs),
      keys: file.keys,
      keyOffset,
      seed: file.seed,
      runId: `${stamp}-${label}-warm`,
    });
    keyOffset += warm.result.sent;
    log(`${file.workspace}: cache warm-up (REST search, not reported): ${warm.result.rps.toFixed(0)} req/s`);
    for (const step of stepsFor(full)) {
      if (only && !only.includes(step.scenario)) continue;
      const target = step.target === "server" ? server : baseline;
      const spec: LoadSpec = {
        url: target.url,
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
      const pgSampler = samplePostgresCpu(`memoryd_perf_${label}`);
      const loadAvg = loadAverage();
      const { result, loadgenCpu } = await runLoadgen(spec);
      const after = {
        server: cpuSeconds(server.proc.pid) + cpuSeconds(baseline.proc.pid),
        machine: machineBusySeconds(),
        wall: performance.now(),
      };
      const pgCpu = pgSampler.stop();
      keyOffset += result.sent;
      const perReq = (s: number) => (s * 1000) / Math.max(1, result.sent);
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
        `${file.workspace} ${step.name} c=${step.connections}: ${result.rps.toFixed(0)} req/s${ratio}, p50 ${result.latencyMs.p50.toFixed(1)} ms, ` +
          `p95 ${result.latencyMs.p95.toFixed(1)} ms, p99 ${result.latencyMs.p99.toFixed(1)} ms, non-2xx ${result.non2xx}, ` +
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
  const base = (c: number) => run.steps.find((s) => s.scenario === "baseline_search" && s.connections === c)?.rps;
  return base(conns) ?? base(connections) ?? Number.NaN;
}

function stepTable(run: SizeRun): string {
  const lines = [
    "| scenario | conns | req/s | ÷ baseline | p50 ms | p95 ms | p99 ms | non-2xx | errors | RSS MB (server; baseline rows: baseline) | CPU ms/req server / PG / loadgen |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const s of run.steps) {
    const ratio = s.target === "server" && s.scenario !== "healthz" ? fmt(s.rps / baselineFor(run, s.connections), 2) : "";
    const status = Object.entries(s.status)
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, n]) => `${n}×${code}`)
      .join(" ");
    lines.push(
      `| ${s.name} | ${s.connections} | ${fmt(s.rps, 0)} | ${ratio} | ${fmt(s.latencyMs.p50)} | ${fmt(s.latencyMs.p95)} | ${fmt(s.latencyMs.p99)} | ` +
        `${s.non2xx}${status ? ` (${status})` : ""} | ${s.networkErrors + s.appErrors} | ${fmt(s.target === "server" ? s.serverRssMb : s.baselineRssMb, 0)} | ` +
        `${fmt(s.cpuMsPerRequest.server, 2)} / ${fmt(s.cpuMsPerRequest.postgres, 2)} / ${fmt(s.cpuMsPerRequest.loadgen, 2)} |`,
    );
  }
  return lines.join("\n");
}

function extrasTable(run: SizeRun): string {
  const lines: string[] = [];
  // "REST search (1 conn)" already says how many connections.
  const label = (s: StepResult) => (s.name.includes("conn") ? s.name : `${s.name}, ${s.connections} conns`);
  for (const s of run.steps) {
    const e = s.extra;
    if (s.scenario === "teach") {
      lines.push(
        `- ${label(s)}: ${fmt(e.acceptedPerSecond as number, 0)} facts/s accepted, ${fmt(e.storedPerSecond as number, 0)} facts/s stored ` +
          `(created ${e.created}, superseded ${e.superseded}, skipped ${e.skipped})`,
      );
    }
    if (s.scenario === "answer_stream") {
      const fd = e.firstDeltaMs as { p50: number; p95: number; p99: number } | undefined;
      const cr = e.createdMs as { p50: number; p95: number } | undefined;
      lines.push(
        `- ${label(s)}: first answer.delta p50 ${fmt(fd?.p50 ?? Number.NaN)} ms / p95 ${fmt(fd?.p95 ?? Number.NaN)} ms / p99 ${fmt(fd?.p99 ?? Number.NaN)} ms; ` +
          `answer.created p50 ${fmt(cr?.p50 ?? Number.NaN)} ms; whole answer p50 ${fmt(s.latencyMs.p50)} ms`,
      );
    }
    if (typeof e.avgResults === "number" && (s.scenario.includes("search") || s.scenario === "context")) {
      lines.push(`- ${label(s)}: ${fmt(e.avgResults, 1)} facts per response on average`);
    }
  }
  return lines.join("\n");
}

/** What was measured: the commit, uncommitted src/ changes, and whether the binary predates src/. */
function provenance(): string[] {
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: join(import.meta.dir, "..") }).stdout.toString().trimEnd();
  const newestSrc = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (max, e) => Math.max(max, e.isDirectory() ? newestSrc(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs),
      0,
    );
  const binaryTime = statSync(BINARY).mtimeMs;
  const srcTime = newestSrc(join(import.meta.dir, "..", "src"));
  const dirty = git("status", "--short", "--", "src").split("\n").filter(Boolean);
  const lines = [
    `commit ${git("rev-parse", "--short", "HEAD")}${dirty.length ? `, uncommitted in src/: ${dirty.map((l) => l.slice(3)).join(", ")}` : ", src/ clean"}; ` +
      `binary built ${new Date(binaryTime).toISOString()}`,
  ];
  if (srcTime > binaryTime) {
    lines.push(`WARNING: src/ changed after dist/memoryd was built (${new Date(srcTime).toISOString()}): the baseline runs today's src/, the binary older code; rebuild with \`bun run build\`.`);
  }
  return lines;
}

const startLoad = loadAverage();
const origin = provenance();
for (const line of origin) log(line);
const fake = createFakeAnthropic({ defaultReply: "Based on the workspace memory, here is the answer to your question.", defaultDelayMs: 0 });
// The fake records every request; the bench only needs it to answer.
const recorder = setInterval(() => fake.reset(), 1000);
const runs: SizeRun[] = [];
try {
  statSync(BINARY);
  // The main size gets the whole suite; others only the search comparison.
  for (const [i, label] of sizeLabels.entries()) runs.push(await benchSize(label, i === 0, fake.url));
} finally {
  clearInterval(recorder);
  await fake.stop();
}

mkdirSync(join(outPath, ".."), { recursive: true });
writeFileSync(outPath, `${JSON.stringify({ date: new Date().toISOString(), origin, startLoad, connections, durationMs, warmupMs, runs }, null, 2)}\n`);

const out: string[] = [];
out.push(`# memoryd HTTP bench, ${new Date().toISOString()}`);
out.push(`duration ${durationMs / 1000} s + ${warmupMs / 1000} s warm-up per scenario; load average at start ${startLoad}; raw results: ${outPath}`);
out.push(...origin);
for (const run of runs) {
  out.push("", `## ${run.label}: ${run.facts.toLocaleString("en")} facts (${run.liveFacts.toLocaleString("en")} live), idle server RSS ${fmt(run.idleRssMb, 0)} MB`);
  if (run.seed) out.push(`seeded now: ${run.seed.inserted.toLocaleString("en")} facts in ${fmt(run.seed.loadSeconds)} s = ${fmt(run.seed.factsPerSecond, 0)} facts/s (+ VACUUM ANALYZE ${fmt(run.seed.vacuumSeconds)} s)`);
  out.push("", stepTable(run), "", extrasTable(run));
}
const searchP50 = (label: string) => runs.find((r) => r.label === label)?.steps.find((s) => s.scenario === "search" && s.connections === 1)?.latencyMs.p50;
out.push("", "## search p50 by size (REST, 1 connection)", "", "| size | p50 ms | p95 ms |", "|---|---|---|");
for (const run of runs) {
  const s = run.steps.find((x) => x.scenario === "search" && x.connections === 1);
  if (s) out.push(`| ${run.label} | ${fmt(s.latencyMs.p50, 2)} | ${fmt(s.latencyMs.p95, 2)} |`);
}
const small = searchP50("10k");
const large = searchP50("1m") ?? searchP50("100k");
if (small && large) out.push("", `growth 10k -> ${searchP50("1m") ? "1M" : "100k"}: ${fmt(large / small, 2)}x`);
const main = runs[0];
if (main) {
  const step = (scenario: ScenarioName, conns: number) => main.steps.find((x) => x.scenario === scenario && x.connections === conns);
  const rows: [string, string, string, boolean | undefined][] = [];
  const add = (name: string, goal: string, value: number | undefined, text: (v: number) => string, met: (v: number) => boolean) =>
    rows.push([name, goal, value === undefined || !Number.isFinite(value) ? "not measured" : text(value), value === undefined || !Number.isFinite(value) ? undefined : met(value)]);
  const s1 = step("search", 1);
  add(`search p50 (${main.label}, 1 conn)`, "≤ 3 ms", s1?.latencyMs.p50, (v) => `${fmt(v, 2)} ms`, (v) => v <= 3);
  add(`search p95 (${main.label}, 1 conn)`, "≤ 10 ms", s1?.latencyMs.p95, (v) => `${fmt(v, 2)} ms`, (v) => v <= 10);
  const rest = step("search", connections);
  const base = step("baseline_search", connections);
  const mcp = step("mcp_search", connections);
  add(`REST search ÷ bare baseline (${connections} conns)`, "≥ 0.7", rest && base ? rest.rps / base.rps : undefined, (v) => fmt(v, 2), (v) => v >= 0.7);
  add(`MCP search_memory ÷ REST search (${connections} conns)`, "≥ 0.8", mcp && rest ? mcp.rps / rest.rps : undefined, (v) => fmt(v, 2), (v) => v >= 0.8);
  add("context p95 (1 conn)", "≤ 15 ms", step("context", 1)?.latencyMs.p95, (v) => `${fmt(v, 2)} ms`, (v) => v <= 15);
  const teach = Math.max(...main.steps.filter((x) => x.scenario === "teach").map((x) => x.extra.acceptedPerSecond as number));
  add("teach ingest (best of the teach runs)", "≥ 2,000 facts/s", teach, (v) => `${fmt(v, 0)} facts/s`, (v) => v >= 2000);
  add(`search p50 growth 10k -> ${searchP50("1m") ? "1M" : "100k"}`, "≤ 3x", small && large ? large / small : undefined, (v) => `${fmt(v, 2)}x`, (v) => v <= 3);
  const delta = step("answer_stream", 1)?.extra.firstDeltaMs as { p50: number } | undefined;
  add("first answer.delta, fake model with zero delay (1 conn)", "≤ 10 ms p50", delta?.p50, (v) => `${fmt(v, 1)} ms`, (v) => v <= 10);
  add("idle RSS, Postgres mode", "≤ 150 MB", main.idleRssMb, (v) => `${fmt(v, 0)} MB`, (v) => v <= 150);
  out.push("", "## targets measured by this run", "", "| target | goal | measured | met |", "|---|---|---|---|");
  for (const [name, goal, value, met] of rows) out.push(`| ${name} | ${goal} | ${value} | ${met === undefined ? "–" : met ? "met" : "**not met**"} |`);
  out.push("", "(ready-after-exec targets: run `bun bench/startup.ts`.)");
}
const failed = runs.flatMap((r) => r.steps.filter((x) => x.non2xx + x.networkErrors + x.appErrors > 0).map((x) => `${r.label} ${x.name} c=${x.connections}`));
if (failed.length > 0) out.push("", `WARNING: non-2xx responses or errors in: ${failed.join("; ")}`);
console.log(out.join("\n"));
if (failed.length > 0) process.exitCode = 1;
