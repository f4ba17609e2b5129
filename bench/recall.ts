/**
 * What counting recalls costs a search (issue 46: at most 5 % of search p50), in one run.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/recall.ts [--seconds 3] [--rounds 6]
 *
 * Method: every LoCoMo turn ("speaker: text", observed at its session's date) is taught through
 * the capture pipeline into one workspace of a fresh database (PostgreSQL when BENCH_DATABASE_URL
 * names one, else embedded PGlite). Then `searchFacts` (limit 10, the service every REST and MCP
 * search calls) runs over the LoCoMo questions in alternating blocks of `--seconds` each:
 * - counting: as the server runs it, each search's results recorded in the RecallLog, whose
 *   batch writes (every 5 s, the same process and database) fall inside the counting blocks;
 * - bare: the same searches with recording switched off, the baseline of the same run.
 * The first block of each is a warm-up and is not counted. Prints p50 / p95 of each and the
 * recall rows written.
 */
import { join } from "node:path";
import { createWorkspace } from "../src/auth/workspaces";
import { captureFacts, type CaptureItem } from "../src/capture/pipeline";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts } from "../src/memory/search";
import type { ServiceContext } from "../src/service";
import { openBenchDatabase } from "./lib/database";
import { loadLocomo } from "./lib/locomo-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const seconds = Number(argValue("--seconds") ?? 3);
const rounds = Number(argValue("--rounds") ?? 6);
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const conversations = loadLocomo(LOCOMO_PATH);
const items: CaptureItem[] = conversations.flatMap((c) =>
  c.turns.map((t) => ({ text: `${t.speaker}: ${t.text}`.slice(0, 4000), origin: "ingested" as const, ...(t.at !== null && { recordedAt: new Date(t.at) }) })),
);
const questions = conversations.flatMap((c) => c.questions.map((q) => q.question)).filter((q) => q.length > 0 && q.length <= 2000);

const bench = await openBenchDatabase();
try {
  const ws = await createWorkspace(bench.db, "recall-bench", 0);
  log(`teaching ${items.length} LoCoMo turns (${bench.label})`);
  for (let at = 0; at < items.length; at += 200) await captureFacts(bench.db, ws.id, items.slice(at, at + 200));
  const index = new FactIndexes(bench.db, 512 * 1024 * 1024);
  const ctx: ServiceContext = {
    db: bench.db,
    index,
    caller: { workspaceId: ws.id, keyId: "bench", audience: "internal", channel: "rest", agent: null, boundAgent: null, factSeq: null },
  };
  await index.read(ws.id, null);
  const record = index.recalls.record.bind(index.recalls);
  const samples = { counting: [] as number[], bare: [] as number[] };
  let next = 0;
  for (let round = 0; round < rounds * 2; round++) {
    const mode = round % 2 === 0 ? "counting" : "bare";
    index.recalls.record = mode === "counting" ? record : () => {};
    const until = performance.now() + seconds * 1000;
    const block: number[] = [];
    while (performance.now() < until) {
      const query = questions[next++ % questions.length]!;
      const started = performance.now();
      await searchFacts(ctx, { query, limit: 10 });
      block.push(performance.now() - started);
    }
    if (round >= 2) samples[mode].push(...block);
  }
  index.recalls.record = record;
  await index.settle();
  const [written] = await bench.db.sql<{ facts: number; recalls: number }>`
    SELECT count(*)::int AS facts, coalesce(sum(recall_count), 0)::float8 AS recalls FROM fact_recalls`;
  const row = (name: string, xs: number[]): string => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `| ${name} | ${xs.length} | ${percentile(sorted, 50).toFixed(3)} | ${percentile(sorted, 95).toFixed(3)} |`;
  };
  const p50 = (xs: number[]): number =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const overhead = (p50(samples.counting) / p50(samples.bare) - 1) * 100;
  console.log(
    [
      `# Recall counting, ${new Date().toISOString()}`,
      "",
      `${items.length} LoCoMo turns in one workspace (${bench.label}); searchFacts limit 10 over ${questions.length} questions, ` +
        `${rounds} blocks of ${seconds} s per mode, alternating, after one warm-up block each.`,
      "",
      "| mode | searches | p50 ms | p95 ms |",
      "|---|---|---|---|",
      row("counting (as served)", samples.counting),
      row("bare (recording off)", samples.bare),
      "",
      `counting adds ${overhead.toFixed(1)} % to search p50 (target: at most 5 %); ` +
        `${written?.facts ?? 0} facts' counts written, ${written?.recalls ?? 0} recalls in all`,
      "",
      ...provenance(),
    ].join("\n"),
  );
} finally {
  await bench.close();
}
