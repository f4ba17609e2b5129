/**
 * Queued-run pickup latency: how long a queued answer waits before a worker starts it, on an
 * idle server (NOTIFY wake-up, not the poll). Runs the real engine in process against PostgreSQL
 * with the offline local provider, one run at a time, and reads created_at -> started_at from the
 * answers table. Usage: BENCH_DATABASE_URL=postgres://… bun bench/pickup.ts [--runs 50]
 */
import { callerOf } from "../src/service";
import { FactIndexes } from "../src/memory/index/registry";
import { AnswerEngine } from "../src/answers/engine";
import { createAnswer, waitForAnswer } from "../src/answers/service";
import { authenticate } from "../src/auth/authenticate";
import { createKey } from "../src/auth/keys";
import { createWorkspace } from "../src/auth/workspaces";
import { loadConfig } from "../src/config";
import { migrate } from "../src/db/migrate";
import { openPostgres } from "../src/db/postgres";
import { createLogger } from "../src/log";
import { ALL_SCOPES } from "../src/schema/auth";
import postgres from "postgres";

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] || 50);
const name = `memoryd_pickup_${Date.now().toString(36)}`;
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const db = openPostgres({ url: url.toString(), maxConnections: 10 });
try {
  await migrate(db);
  const config = loadConfig({}, { MEMORYD_LOG_LEVEL: "silent" });
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
  const engine = new AnswerEngine({ db, index, config, log: createLogger("silent") });
  await engine.start(true);
  await createWorkspace(db, "pickup", 1_000_000);
  const key = await createKey(db, "test", { workspace: "pickup", name: "bench", scopes: [...ALL_SCOPES], audience: "internal" });
  const auth = await authenticate(db, key.secret, "bench");
  const ctx = { db, index, caller: callerOf(auth, "rest"), engine };
  const waits: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { run } = await createAnswer(ctx, { input: `question ${i}`, agent_slug: "main" }, { mode: "queued" });
    await waitForAnswer(ctx, run.id, 30);
    const rows = await db.sql<{ ms: number }>`
      SELECT extract(epoch FROM started_at - created_at)::float8 * 1000 AS ms FROM answers WHERE id = ${run.id}`;
    waits.push(Number(rows[0]?.ms ?? Number.NaN));
  }
  await engine.stop(1000);
  waits.sort((a, b) => a - b);
  const at = (p: number): string => (waits[Math.min(waits.length - 1, Math.floor(p * waits.length))] ?? Number.NaN).toFixed(2);
  console.log(`| queued-run pickup (created_at -> started_at), ${runs} runs, idle | p50 ${at(0.5)} ms | p95 ${at(0.95)} ms | max ${at(1)} ms |`);
} finally {
  await db.close();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
