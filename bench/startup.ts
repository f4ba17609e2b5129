/**
 * Startup cost of the compiled binary: exec -> first 200 from /readyz, in each database mode,
 * plus idle RSS and binary size. Usage: bun bench/startup.ts [--runs 5]
 * Needs dist/memoryd (bun run build); Postgres mode needs BENCH_DATABASE_URL (an admin URL).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const BINARY = join(import.meta.dir, "..", "dist", "memoryd");
const runsAt = process.argv.indexOf("--runs");
const runs = runsAt >= 0 ? Number(process.argv[runsAt + 1]) : 5;
const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface Sample {
  readyMs: number;
  rssMb: number;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

let nextPort = 18900;

async function bootOnce(args: string[], env: Record<string, string>, measureIdle: boolean): Promise<Sample> {
  const port = nextPort++;
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "serve", "--port", String(port), ...args], {
    env: { ...process.env, MEMORYD_LOG_LEVEL: "warn", ...env },
    stdout: "ignore",
    stderr: "ignore",
    cwd: tmpdir(),
  });
  let readyMs = Number.NaN;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) {
        readyMs = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) break;
    await Bun.sleep(2);
  }
  let rss = Number.NaN;
  if (measureIdle) {
    await Bun.sleep(3000);
    rss = rssMb(proc.pid);
  }
  proc.kill("SIGTERM");
  await proc.exited;
  return { readyMs, rssMb: rss };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function scenario(name: string, prepare: () => Promise<{ args: string[]; env?: Record<string, string>; cleanup: () => Promise<void> }>, fresh: boolean) {
  const samples: Sample[] = [];
  const shared = fresh ? undefined : await prepare();
  if (shared) await bootOnce(shared.args, shared.env ?? {}, false); // first boot creates the state we reuse
  for (let i = 0; i < runs; i++) {
    const setup = fresh ? await prepare() : shared!;
    samples.push(await bootOnce(setup.args, setup.env ?? {}, i === 0));
    if (fresh) await setup.cleanup();
  }
  if (shared) await shared.cleanup();
  return { name, readyMs: median(samples.map((s) => s.readyMs)), rssMb: samples[0]?.rssMb ?? Number.NaN };
}

const embedded = async () => {
  const dir = mkdtempSync(join(tmpdir(), "memoryd-bench-"));
  return { args: ["--data-dir", dir], cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
};
const pg = async () => {
  const name = `memoryd_bench_${Date.now().toString(36)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    args: ["--database-url", url.toString()],
    cleanup: async () => {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
};

const rows = [
  await scenario("postgres (migrated database)", pg, false),
  await scenario("embedded, existing data dir", embedded, false),
  await scenario("embedded, first boot (empty dir)", embedded, true),
];

console.log(`binary: ${(statSync(BINARY).size / 1024 / 1024).toFixed(1)} MB, ${runs} runs per mode (median)`);
console.log("| mode | exec -> /readyz 200 | idle RSS (3 s after ready) |");
console.log("|---|---|---|");
for (const row of rows) console.log(`| ${row.name} | ${row.readyMs.toFixed(0)} ms | ${row.rssMb.toFixed(0)} MB |`);
