/**
 * CPU profile of the server under one load scenario: runs `bun --cpu-prof src/main.ts serve` (the
 * source, not the binary: the compiled binary has no profiler flag) on a bench database, drives it
 * with the load generator, stops it with SIGTERM (the profile is written on exit) and prints the
 * top self-time functions and the self time by package / source directory.
 *
 *   bun bench/profile.ts --workspace m100k [--scenario search] [--connections 8] [--duration 10]
 *                        [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--top 25]
 *   bun bench/profile.ts --summarize FILE.cpuprofile [--top 25]
 *
 * The workspace must have been seeded by bench/seed.ts or bench/support/layout.ts (its keys file is read).
 * The raw .cpuprofile is kept under bench/out/ (open it in Chrome DevTools or speedscope).
 */
import { mkdirSync, readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createFakeAnthropic } from "../test/helpers/fake-anthropic";
import { readKeysFile } from "./seed";
import type { LoadResult, LoadSpec, ScenarioName } from "./support/loadgen";
import { spawnUntil } from "./support/procs";
import { argValue } from "./support/args";

const ROOT = join(import.meta.dir, "..");

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: an npm package, a src/ directory, or the runtime. */
function groupOf(url: string): string {
  if (url === "") return "(native / runtime)";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] as string;
  const src = /\/src\/([^/]+)\//.exec(url);
  if (src) return `src/${src[1]}`;
  if (url.includes("/src/")) return "src";
  if (url.startsWith("node:") || url.startsWith("bun:") || url.includes("[native code]")) return "(bun builtins)";
  return relative(ROOT, url.replace(/^file:\/\//, "")) || url;
}

const IDLE_NAMES = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

function fileOf(url: string): string {
  const path = url.replace(/^file:\/\//, "");
  return path.startsWith(ROOT) ? relative(ROOT, path) : path;
}

export function summarize(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (frame: CallFrame): string => {
    const name = frame.functionName || "(anonymous)";
    return frame.url ? `${name} ${fileOf(frame.url)}:${frame.lineNumber + 1}` : name;
  };
  const self = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample; attribute it to sample i.
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const groups = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const name = frame.functionName || "(anonymous)";
    const group = IDLE_NAMES.has(name) ? name : groupOf(frame.url);
    fns.set(label(frame), (fns.get(label(frame)) ?? 0) + us);
    groups.set(group, (groups.get(group) ?? 0) + us);
    // Inclusive time of the product's own functions: each one on the stack once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)?.callFrame;
      if (!f?.url.includes("/src/")) continue;
      const key = label(f);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const pct = (us: number) => ((us / totalUs) * 100).toFixed(1);
  const idle = (groups.get("(idle)") ?? 0) + (groups.get("(program)") ?? 0);
  const lines: string[] = [];
  lines.push(`profile: ${(totalUs / 1e6).toFixed(1)} s sampled, ${pct(totalUs - idle)} % of samples not idle/program`);
  lines.push("", "| self time by package / source dir | ms | % of samples |", "|---|---|---|");
  for (const [group, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`| ${group} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
  lines.push("", `| top ${top} functions by self time | ms | % of samples |`, "|---|---|---|");
  for (const [key, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`| \`${key}\` | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
  lines.push("", "| top 15 src/ functions by inclusive time | ms | % of samples |", "|---|---|---|");
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`| \`${key}\` | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const top = Number(argValue("--top") ?? 25);
  const file = argValue("--summarize");
  if (file) {
    console.log(summarize(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, top));
    return;
  }
  const slug = argValue("--workspace");
  if (!slug) {
    console.error("usage: bun bench/profile.ts --workspace SLUG [--scenario search] [--connections 8] [--duration 10] | --summarize FILE");
    process.exit(2);
  }
  const keys = readKeysFile(slug);
  if (!keys) throw new Error(`no keys file for ${slug}: seed it first (bench/support/layout.ts)`);
  const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const url = new URL(adminUrl);
  url.pathname = `/${keys.database}`;
  const scenario = (argValue("--scenario") ?? "search") as ScenarioName;
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dir = join(import.meta.dir, "out", `prof-${scenario}-${stamp}`);
  mkdirSync(dir, { recursive: true });
  const fake = createFakeAnthropic({ defaultReply: "Based on the workspace memory, here is the answer.", defaultDelayMs: 0 });
  const recorder = setInterval(() => fake.reset(), 1000);
  const cwd = mkdtempSync(join(tmpdir(), "memoryd-bench-prof-"));
  try {
    const server = await spawnUntil(
      [process.execPath, "--cpu-prof", `--cpu-prof-dir=${dir}`, join(ROOT, "src", "main.ts"), "serve", "--port", "0", "--database-url", url.toString()],
      /memoryd listening on (http:\/\/\S+)/,
      { cwd, env: { MEMORYD_LOG_LEVEL: "warn", ANTHROPIC_API_KEY: "sk-ant-bench-fake", ANTHROPIC_BASE_URL: fake.url } },
    );
    const spec: LoadSpec = {
      url: server.url,
      scenario,
      connections: Number(argValue("--connections") ?? 8),
      warmupMs: 2000,
      durationMs: Number(argValue("--duration") ?? 10) * 1000,
      keys: keys.keys,
      keyOffset: Math.floor(Math.random() * keys.keys.length),
      seed: keys.seed,
      runId: `prof-${stamp}`,
    };
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "support", "loadgen.ts")], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    proc.stdin.write(JSON.stringify(spec));
    await proc.stdin.end();
    const result = JSON.parse((await new Response(proc.stdout).text()).trim()) as LoadResult;
    await proc.exited;
    await server.stop();
    console.log(
      `${scenario}, ${spec.connections} conns against \`bun --cpu-prof src/main.ts serve\` (${slug}): ${result.rps.toFixed(0)} req/s, ` +
        `p50 ${result.latencyMs.p50.toFixed(1)} ms, non-2xx ${result.non2xx}, errors ${result.networkErrors + result.appErrors}`,
    );
    const profiles = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
    if (profiles.length === 0) throw new Error(`no .cpuprofile written in ${dir}`);
    const path = join(dir, profiles[0] as string);
    console.log(`raw profile: ${relative(ROOT, path)}\n`);
    console.log(summarize(JSON.parse(readFileSync(path, "utf8")) as CpuProfile, top));
  } finally {
    clearInterval(recorder);
    await fake.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
