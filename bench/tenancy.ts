/**
 * Growth and tenancy: search p50 of one workspace as it grows, and of the same workspace as the
 * other workspaces of its PostgreSQL database grow. Runs the compiled binary (one per database)
 * and the load generator at one connection, REST POST /v1/memory/search, like bench/http.ts.
 *
 *   bun bench/tenancy.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--rounds 5]
 *                        [--duration 3] [--warmup 1] [--reseed]
 *
 * Workspaces (bench/support/layout.ts; all hold the facts of one deterministic stream, seed
 * "grow", so a smaller one is a prefix of a larger one):
 *   growth  g3k, g10k, g20k, g50k beside gother (200k facts) in memoryd_perf_growth
 *   others  the 20k workspace alone in its database (t0-20k), in memoryd_perf_growth (g20k:
 *           200k + the other growth workspaces), and in memoryd_perf_main (t1m-20k: 1M of five
 *           other workspaces + m100k), each through a server that holds only that index (the
 *           growth rows share one server, so its heap holds all four of their indexes)
 * Every measurement runs `--rounds` times, the rounds interleaved (each round visits every
 * workspace in a rotated order) so that drift in the machine's load lands on all of them alike;
 * the table shows the median over rounds of each round's p50 (and p95), and their range.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KeysFile } from "./seed";
import { DATABASES, otherFacts, prepareDatabase, type PreparedDatabase } from "./support/layout";
import { loadAverage, spawnUntil, type Spawned } from "./support/procs";
import { runLoadgen } from "./support/spawn-loadgen";
import { provenance } from "./support/provenance";
import { argValue } from "./support/args";

const BINARY = join(import.meta.dir, "..", "dist", "memoryd");
const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const rounds = Number(argValue("--rounds") ?? 5);
const durationMs = Number(argValue("--duration") ?? 3) * 1000;
const warmupMs = Number(argValue("--warmup") ?? 1) * 1000;
const reseed = process.argv.includes("--reseed");
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Measured {
  slug: string;
  db: string;
  file: KeysFile;
  server: Spawned;
  liveFacts: number;
  others: number;
  p50s: number[];
  p95s: number[];
  keyOffset: number;
  avgResults: number[];
}

const prepared = new Map<string, PreparedDatabase>();
for (const name of ["growth", "alone", "main"]) prepared.set(name, await prepareDatabase(adminUrl, DATABASES[name]!, { reseed, log }));

const servers = new Map<string, Spawned>();
const cwd = mkdtempSync(join(tmpdir(), "memoryd-bench-tenancy-"));
const measured: Measured[] = [];
try {
  // One server per database, and one more on the growth database that serves only g20k for the
  // tenancy rows: each of those three rows then has exactly one index in its process (the
  // growth rows share theirs).
  const serverPlan: [string, string][] = [
    ["growth", "growth"],
    ["growth-solo", "growth"],
    ["alone", "alone"],
    ["main", "main"],
  ];
  for (const [key, name] of serverPlan) {
    servers.set(
      key,
      await spawnUntil(
        [BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--database-url", prepared.get(name)!.url],
        /memoryd listening on (http:\/\/\S+)/,
        {
          cwd,
          env: { MEMORYD_LOG_LEVEL: "warn", PORT: undefined, HOST: undefined, DATABASE_URL: undefined, ANTHROPIC_API_KEY: undefined },
        },
      ),
    );
  }
  const plan: [string, string, string, string][] = [
    // label, database, server, workspace
    ["g3k", "growth", "growth", "g3k"],
    ["g10k", "growth", "growth", "g10k"],
    ["g20k", "growth", "growth", "g20k"],
    ["g50k", "growth", "growth", "g50k"],
    ["t0-20k", "alone", "alone", "t0-20k"],
    ["g20k (own server)", "growth", "growth-solo", "g20k"],
    ["t1m-20k", "main", "main", "t1m-20k"],
  ];
  for (const [label, db, serverKey, slug] of plan) {
    const p = prepared.get(db)!;
    const file = p.files.get(slug)!;
    const server = servers.get(serverKey)!;
    // The first search builds the index; a short unmeasured run warms everything else.
    const warm = await runLoadgen({
      url: server.url,
      scenario: "search",
      connections: 1,
      warmupMs: 0,
      durationMs: 2000,
      keys: file.keys,
      keyOffset: 0,
      seed: file.seed,
      runId: `warm-${label}`,
    });
    measured.push({
      slug: label,
      db: p.spec.name,
      file,
      server,
      liveFacts: p.spec.workspaces.find((w) => w.slug === slug)!.facts,
      others: await otherFacts(p.url, file.workspaceId),
      p50s: [],
      p95s: [],
      keyOffset: warm.result.sent,
      avgResults: [],
    });
    log(`${label} (${p.spec.name}): warmed, ${warm.result.rps.toFixed(0)} req/s at 1 conn`);
  }
  const startLoad = loadAverage();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < measured.length; k++) {
      const m = measured[(k + r) % measured.length]!;
      const { result } = await runLoadgen({
        url: m.server.url,
        scenario: "search",
        connections: 1,
        warmupMs,
        durationMs,
        keys: m.file.keys,
        keyOffset: m.keyOffset,
        seed: m.file.seed,
        runId: `tenancy-${m.slug}-${r}`,
      });
      m.keyOffset += result.sent;
      if (result.non2xx + result.networkErrors + result.appErrors > 0)
        log(`WARNING ${m.slug}: ${result.non2xx} non-2xx, errors ${result.errorSamples.join(" | ")}`);
      m.p50s.push(result.latencyMs.p50);
      m.p95s.push(result.latencyMs.p95);
      m.avgResults.push(result.extra.avgResults as number);
      log(`round ${r + 1}/${rounds} ${m.slug}: p50 ${fmt(result.latencyMs.p50)} ms, p95 ${fmt(result.latencyMs.p95)} ms, ${result.rps.toFixed(0)} req/s`);
    }
  }

  const row = (m: Measured) =>
    `| ${m.slug} | ${m.db} | ${m.liveFacts.toLocaleString("en")} | ${m.others.toLocaleString("en")} | ${fmt(median(m.p50s), 3)} | ` +
    `${fmt(Math.min(...m.p50s), 3)}–${fmt(Math.max(...m.p50s), 3)} | ${fmt(median(m.p95s), 3)} | ${fmt(median(m.avgResults), 1)} |`;
  const head =
    "| workspace | database | facts seeded | facts of other workspaces | p50 ms (median of rounds) | p50 range | p95 ms | facts per response |\n|---|---|---|---|---|---|---|---|";
  const by = (slug: string) => measured.find((m) => m.slug === slug)!;
  const out: string[] = [];
  out.push(`# memoryd growth and tenancy bench, ${new Date().toISOString()}`);
  out.push(...provenance(BINARY));
  out.push(
    `REST search, 1 connection, ${rounds} interleaved rounds of ${durationMs / 1000} s (+ ${warmupMs / 1000} s warm-up) per workspace; load average at start ${startLoad}`,
  );
  out.push("", "## one workspace growing 3k -> 50k beside 200k facts of another workspace", "", head);
  for (const slug of ["g3k", "g10k", "g20k", "g50k"]) out.push(row(by(slug)));
  const growth = median(by("g50k").p50s) / median(by("g3k").p50s);
  const at50k = median(by("g50k").p50s);
  out.push("", "## the same 20k workspace beside 0 / 263k / 1.1M facts of other workspaces", "", head);
  for (const slug of ["t0-20k", "g20k (own server)", "t1m-20k"]) out.push(row(by(slug)));
  const alone = median(by("t0-20k").p50s);
  const mid = median(by("g20k (own server)").p50s) / alone;
  const big = median(by("t1m-20k").p50s) / alone;
  out.push("", "## targets", "", "| target | goal | measured | met |", "|---|---|---|---|");
  out.push(
    `| search p50 growth, 3k -> 50k facts (200k others beside) | ≤ 1.5× | ${fmt(growth)}× (${fmt(median(by("g3k").p50s), 3)} -> ${fmt(at50k, 3)} ms) | ${growth <= 1.5 ? "met" : "**not met**"} |`,
  );
  out.push(`| search p50 at 50k facts | ≤ 1 ms | ${fmt(at50k, 3)} ms | ${at50k <= 1 ? "met" : "**not met**"} |`);
  out.push(`| same workspace, others 263k vs 0 | ≤ 1.2× | ${fmt(mid)}× | ${mid <= 1.2 ? "met" : "**not met**"} |`);
  out.push(`| same workspace, others 1.1M vs 0 | ≤ 1.2× | ${fmt(big)}× | ${big <= 1.2 ? "met" : "**not met**"} |`);
  console.log(out.join("\n"));
} finally {
  for (const s of servers.values()) await s.stop();
  rmSync(cwd, { recursive: true, force: true });
}
