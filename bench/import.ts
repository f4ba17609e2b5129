/**
 * `memoryd facts import` on PostgreSQL, end to end through the compiled binary: a fresh database
 * (created, migrated by the binary, dropped afterwards), one workspace, a JSONL file of synthetic
 * facts (bench/support/synth.ts, the HTTP bench's vocabulary: people, teams, tools, changes),
 * timed from exec to exit, beside the bare baseline measured in the same run: the same texts
 * inserted by postgres.js into a plain table with one multi-row statement per 1,000 rows — what
 * PostgreSQL itself takes, without any capture rule.
 *
 *   bun bench/import.ts [--facts 10000] [--admin-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * Needs dist/memoryd (`bun run build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { argValue } from "./support/args";
import { factStream, makeCast, type SynthFact } from "./support/synth";

const BINARY = argValue("--binary") ?? join(import.meta.dir, "..", "dist", "memoryd");
const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const factCount = Number(argValue("--facts") ?? 10_000);
const DATABASE = "memoryd_bench_import";

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP DATABASE IF EXISTS ${DATABASE}`);
await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
const url = new URL(adminUrl);
url.pathname = `/${DATABASE}`;
const env = { ...process.env, DATABASE_URL: url.toString(), MEMORYD_LOG_LEVEL: "warn" };

async function run(args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`memoryd ${args.join(" ")} exited ${code}: ${stderr.slice(0, 500)}`);
  return { ms: performance.now() - started, stdout };
}

const dir = mkdtempSync(join(tmpdir(), "memoryd-import-"));
try {
  const stream = factStream("bench-import", makeCast("bench-import"));
  const facts: SynthFact[] = Array.from({ length: factCount }, () => stream.next().value as SynthFact);
  const file = join(dir, "facts.jsonl");
  writeFileSync(file, `${facts.map((f) => JSON.stringify({ text: f.text })).join("\n")}\n`);

  await run(["migrate"]);
  await run(["workspaces", "create", "imported"]);
  const imported = await run(["facts", "import", file, "--workspace", "imported", "--json"]);
  const result = JSON.parse(imported.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;

  const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await db`CREATE TABLE bare_facts (id bigserial PRIMARY KEY, text text NOT NULL)`;
  const bareStarted = performance.now();
  for (let i = 0; i < facts.length; i += 1000) {
    await db`INSERT INTO bare_facts ${db(
      facts.slice(i, i + 1000).map((f) => ({ text: f.text })),
      "text",
    )}`;
  }
  const bareMs = performance.now() - bareStarted;
  await db.end();

  const rate = (ms: number): string => Math.round((factCount / ms) * 1000).toLocaleString("en");
  console.log(`# memoryd facts import, ${new Date().toISOString()}`);
  console.log(`${factCount.toLocaleString("en")} synthetic facts, PostgreSQL; import result ${JSON.stringify(result)}`);
  console.log("");
  console.log("| what | seconds | facts/s |");
  console.log("|---|---|---|");
  console.log(`| bare baseline: multi-row INSERT of the texts, 1,000 a statement | ${(bareMs / 1000).toFixed(2)} | ${rate(bareMs)} |`);
  console.log(`| \`memoryd facts import\` (exec to exit, capture rules included) | ${(imported.ms / 1000).toFixed(2)} | ${rate(imported.ms)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}
