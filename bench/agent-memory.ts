/**
 * Search at the size of a real agent's memory (issue 43), end to end through the compiled binary
 * on PostgreSQL, beside the bare baseline measured in the same run.
 *
 *   bun bench/agent-memory.ts [--binary dist/memoryd] [--limit-turns N]
 *                             [--admin-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * Method:
 * 1. The corpus is built at run time from the LongMemEval-S dev file (LONGMEMEVAL_PATH, default
 *    bench/data/longmemeval/dev.jsonl.gz): the union of every question's haystack turns, distinct
 *    by text, each "role: content" cut at 4,000 characters (about 68,000 turns), written as a JSONL
 *    file of {"text": ...} lines in a temp dir (removed at the end). `--limit-turns N` keeps the
 *    first N turns, for a quick run.
 * 2. A fresh PostgreSQL database (dropped at the end, also on failure): `memoryd migrate`,
 *    `workspaces create agent`, then `facts import FILE --workspace agent --json`, timed from exec
 *    to exit (facts/s; the import ends by storing the workspace's index snapshot).
 * 3. `memoryd serve` on a free port against that database, with internal keys
 *    (memory.read,memory.write; requests rotate over 8 of them, 100 each, under the rate limit).
 *    Each question is searched once (its words and postings cold), then all of them a second time.
 *    Over REST, one request at a time from this process: the first
 *    search (its index read from the snapshot the import stored); 10 warm-up searches; search (limit 10) over the dev set's own
 *    questions (all of them, once each); one query matching nothing (a random token) as many
 *    times; context (token_budget 2,000) over the same questions; 20 teaches of one short fresh
 *    fact each; then the server's RSS. The server is stopped and started again and the first
 *    search after the restart (read from the snapshot) is timed; then the snapshot row is deleted,
 *    the server started once more, and the first search, which builds the index from the facts
 *    (a cold build), is timed.
 * 4. The bare baseline (bench/baseline.ts: Bun.serve + postgres.js `select 1`) on the same
 *    database, started as bench/http.ts does, over the same number of sequential requests.
 *
 * Prints one Markdown table (what | measured | goal) and the provenance. Needs dist/memoryd
 * (`bun run build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { LONGMEMEVAL_PATH, loadAgentCorpus } from "./lib/agent-memory-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { rssMb, type Spawned, spawnUntil } from "./support/procs";
import { provenance } from "./support/provenance";

const BINARY = argValue("--binary") ?? join(import.meta.dir, "..", "dist", "memoryd");
const BASELINE = join(import.meta.dir, "baseline.ts");
const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const limitTurns = argValue("--limit-turns") === undefined ? Number.POSITIVE_INFINITY : Number(argValue("--limit-turns"));
const WORKSPACE = "agent";
const WARMUP = 10;
const TEACHES = 20;
/** Keys created, and requests sent with one before the next is used (the rate limit is 120 a minute a key). */
const KEYS = 8;
const REQUESTS_PER_KEY = 100;
const DATABASE = `memoryd_bench_agent_${Date.now().toString(36)}`;

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const url = new URL(adminUrl);
url.pathname = `/${DATABASE}`;
const databaseUrl = url.toString();
const env = { MEMORYD_LOG_LEVEL: "warn", DATABASE_URL: databaseUrl, PORT: undefined, HOST: undefined };

async function run(args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, ...args], {
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`memoryd ${args.join(" ")} exited ${code}: ${stderr.slice(0, 500)}`);
  return { ms: performance.now() - started, stdout };
}

const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;

/** Starts `memoryd serve` on a free port and waits for /readyz 200. */
async function startServer(cwd: string): Promise<Spawned> {
  const server = await spawnUntil(
    [BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--database-url", databaseUrl],
    /memoryd listening on (http:\/\/\S+)/,
    {
      cwd,
      env: { ...env, DATABASE_URL: undefined },
    },
  );
  const started = performance.now();
  for (;;) {
    try {
      const res = await fetch(`${server.url}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      // not ready yet
    }
    if (performance.now() - started > 60_000) {
      await server.stop();
      throw new Error(`memoryd did not become ready:\n${server.output().slice(-2000)}`);
    }
    await Bun.sleep(5);
  }
}

/** One POST, timed from send to the whole body read; throws on a non-2xx. */
async function post(base: string, path: string, key: string | null, body: unknown): Promise<{ ms: number; json: unknown }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`POST ${path} -> ${res.status}: ${text.slice(0, 300)}`);
  return { ms, json: JSON.parse(text) as unknown };
}

async function timeAll(bodies: unknown[], send: (body: unknown) => Promise<{ ms: number }>): Promise<number[]> {
  const out: number[] = [];
  for (const body of bodies) out.push((await send(body)).ms);
  return out;
}

const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );
const ms = (v: number, digits = 2): string => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : "–");
const sec = (v: number): string => (Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : "–");

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const dir = mkdtempSync(join(tmpdir(), "memoryd-agent-memory-"));
let server: Spawned | undefined;
let baseline: Spawned | undefined;
try {
  const origin = provenance(BINARY);
  const corpus = loadAgentCorpus(LONGMEMEVAL_PATH);
  const turns = corpus.turns.slice(0, limitTurns);
  const questions = corpus.questions;
  const chars = turns.reduce((sum, t) => sum + t.length, 0);
  const file = join(dir, "turns.jsonl");
  writeFileSync(file, `${turns.map((text) => JSON.stringify({ text })).join("\n")}\n`);
  log(`corpus: ${turns.length} distinct turns (${(chars / 1e6).toFixed(1)} M characters), ${questions.length} questions`);

  await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
  await run(["migrate"]);
  await run(["workspaces", "create", WORKSPACE]);
  log("importing");
  const imported = await run(["facts", "import", file, "--workspace", WORKSPACE, "--json"]);
  const importResult = lastJson(imported.stdout);
  const importRate = (turns.length / imported.ms) * 1000;
  log(`import: ${sec(imported.ms)}, ${importRate.toFixed(0)} facts/s, ${JSON.stringify(importResult)}`);
  // The server allows 120 requests a minute per key: the requests rotate over enough keys to stay under it.
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const created = await run(["keys", "create", "--workspace", WORKSPACE, "--name", `bench-${i}`, "--scopes", "memory.read,memory.write", "--json"]);
    keys.push(String(lastJson(created.stdout).secret));
  }
  let sent = 0;
  const nextKey = (): string => {
    const key = keys[Math.floor(sent / REQUESTS_PER_KEY) % keys.length] as string;
    sent++;
    return key;
  };

  server = await startServer(dir);
  const search = (body: unknown) => post(server!.url, "/v1/memory/search", nextKey(), body);
  const first = await search({ query: questions[0] ?? "what did I say", limit: 10 });
  log(`first search after the import: ${ms(first.ms, 0)}`);
  for (let i = 0; i < WARMUP; i++) await search({ query: questions[(i + 1) % questions.length] ?? "warm up", limit: 10 });
  const searchMs = await timeAll(
    questions.map((query) => ({ query, limit: 10 })),
    search,
  );
  // The same questions again: what is left once every cache a question warms (its words' stems and
  // neighbours, its postings in the CPU's caches) is warm.
  const againMs = await timeAll(
    questions.map((query) => ({ query, limit: 10 })),
    search,
  );
  const noMatchToken = `zq${Math.random().toString(36).slice(2, 10)}xv`;
  const noMatchMs = await timeAll(
    questions.map(() => ({ query: noMatchToken, limit: 10 })),
    search,
  );
  const contextMs = await timeAll(
    questions.map((query) => ({ query, token_budget: 2000 })),
    (body) => post(server!.url, "/v1/memory/context", nextKey(), body),
  );
  const stamp = Date.now().toString(36);
  const teachMs = await timeAll(
    Array.from({ length: TEACHES }, (_, i) => ({ facts: [{ text: `Bench note ${stamp}-${i}: the spare key for locker ${100 + i} is in the blue drawer.` }] })),
    (body) => post(server!.url, "/v1/memory/facts", nextKey(), body),
  );
  const serverRss = rssMb(server.proc.pid);
  log(`search p50 ${ms(p(searchMs, 50))}, context p50 ${ms(p(contextMs, 50))}, teach p50 ${ms(p(teachMs, 50))}, RSS ${serverRss.toFixed(0)} MiB`);
  await server.stop();
  server = undefined;

  server = await startServer(dir);
  const afterRestart = await search({ query: questions[1] ?? questions[0] ?? "what did I say", limit: 10 });
  log(`first search after restart: ${ms(afterRestart.ms, 0)}`);
  await server.stop();
  server = undefined;

  const bench = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await bench.unsafe("DELETE FROM index_snapshots");
  await bench.end();
  server = await startServer(dir);
  const cold = await search({ query: questions[2] ?? questions[0] ?? "what did I say", limit: 10 });
  log(`first search with no snapshot (cold build): ${ms(cold.ms, 0)}`);
  await server.stop();
  server = undefined;

  baseline = await spawnUntil([process.execPath, BASELINE, "--database-url", databaseUrl], /baseline listening on (http:\/\/\S+)/);
  const bare = (body: unknown) => post(baseline!.url, "/search", null, body);
  for (let i = 0; i < WARMUP; i++) await bare({});
  const bareMs = await timeAll(
    questions.map(() => ({})),
    bare,
  );
  await baseline.stop();
  baseline = undefined;

  const rows: [string, string, string][] = [
    [
      `\`facts import\` (${turns.length.toLocaleString("en")} turns, exec to exit)`,
      `${Math.round(importRate).toLocaleString("en")} facts/s (${sec(imported.ms)})`,
      ">= 5,000/s",
    ],
    ["first search after the import (the snapshot it stored)", sec(first.ms), "<= 2 s"],
    ["first search after a restart (snapshot)", sec(afterRestart.ms), "<= 0.5 s"],
    ["first search with no snapshot (a cold build from the facts)", sec(cold.ms), "<= 2 s"],
    [
      `search p50 / p95 (limit 10, ${questions.length} questions)`,
      `${ms(p(searchMs, 50))} / ${ms(p(searchMs, 95))} (a query matching nothing: p50 ${ms(p(noMatchMs, 50))})`,
      "<= 3 / 10 ms",
    ],
    [`search p50 / p95, the same questions a second time`, `${ms(p(againMs, 50))} / ${ms(p(againMs, 95))}`, "–"],
    [`context p50 / p95 (token_budget 2,000)`, `${ms(p(contextMs, 50))} / ${ms(p(contextMs, 95))}`, "<= 10 / 30 ms"],
    [`teach one fact p50 (${TEACHES} teaches)`, ms(p(teachMs, 50)), "<= 10 ms"],
    ["RSS of the server (after the above)", `${serverRss.toFixed(0)} MiB`, "<= 400 MiB"],
    [`bare baseline p50 / p95 (Bun.serve + \`select 1\`, ${bareMs.length} requests)`, `${ms(p(bareMs, 50))} / ${ms(p(bareMs, 95))}`, "–"],
  ];
  const out: string[] = [];
  out.push(`# memoryd at the size of an agent's memory, ${new Date().toISOString()}`);
  out.push(
    `LongMemEval-S dev: ${turns.length.toLocaleString("en")} distinct turns (${(chars / 1e6).toFixed(1)} M characters) in one workspace, ` +
      `${questions.length} questions, PostgreSQL; requests one at a time over loopback; import result ${JSON.stringify(importResult)}`,
  );
  out.push("", "| what | measured | goal |", "|---|---|---|");
  for (const [what, measured, goal] of rows) out.push(`| ${what} | ${measured} | ${goal} |`);
  out.push(
    "",
    ...origin,
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}; load average at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(out.join("\n"));
} finally {
  await server?.stop();
  await baseline?.stop();
  rmSync(dir, { recursive: true, force: true });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}
