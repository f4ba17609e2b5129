/**
 * The in-memory half of a cold index build, in process: `FactIndex.add` over every fact of a
 * workspace (tokenising, stemming, postings), beside a bare baseline measured in the same run on
 * the same texts — split each text at spaces and count its words in a Map, the least any inverted
 * index does. Reading the facts from the database is not included (bench/index.ts measures the
 * whole cold build through the registry, database included).
 *
 * Workspaces: the first 500 turns of the first LongMemEval-S dev haystack as bench/retrieval.ts
 * teaches them (long chat turns), and 100k and 1M synthetic short facts (bench/support/synth.ts).
 * Each is built `--builds` times (default 5) in one process, alternating with the baseline; the
 * table gives the median and the fastest build. Beside them: restoring the same index from its
 * snapshot bytes (zstd decompression and `decodeIndex`, what a cold start from a stored snapshot
 * does after reading its one row), and the compressed snapshot's size.
 *
 *   bun bench/build.ts [--builds 5] [--only lme500,s100k,s1m]
 */
import { join } from "node:path";
import { FactIndex, type IndexedFact } from "../src/memory/index/fact-index";
import { decodeIndex, encodeIndex } from "../src/memory/index/snapshot";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";
import { factStream, makeCast, type SynthFact } from "./support/synth";

const BUILDS = Number(argValue("--builds") ?? 5);
const ONLY = argValue("--only")?.split(",");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");

interface Workspace {
  name: string;
  facts: IndexedFact[];
}

function indexed(texts: Iterable<{ text: string; subject: string }>): IndexedFact[] {
  const now = Date.now();
  return Array.from(texts, ({ text, subject }, i) => ({
    id: `fact_${i.toString(36).padStart(10, "0")}`,
    text,
    subject,
    subjectType: "workspace",
    endUserId: null,
    agent: null,
    kind: "observation",
    origin: "ingested",
    confidence: 0.8,
    sensitive: false,
    pinned: false,
    recordedAt: now - i * 1000,
    expiresAt: null,
  }));
}

function* synthetic(count: number, seed: string): Generator<{ text: string; subject: string }> {
  const stream = factStream(seed, makeCast(seed));
  for (let i = 0; i < count; i++) {
    const fact = stream.next().value as SynthFact;
    yield { text: fact.text, subject: fact.subject };
  }
}

const workspaces: (() => Workspace)[] = [
  () => {
    const units = loadLongMemEval(LONGMEMEVAL_PATH)[0]?.units ?? [];
    return { name: "lme500", facts: indexed(units.slice(0, 500).map((u) => ({ text: u.text, subject: "workspace" }))) };
  },
  () => ({ name: "s100k", facts: indexed(synthetic(100_000, "build-100k")) }),
  () => ({ name: "s1m", facts: indexed(synthetic(1_000_000, "build-1m")) }),
];

function timed(run: () => number): { ms: number; sink: number } {
  const started = performance.now();
  const sink = run();
  return { ms: performance.now() - started, sink };
}

const buildIndex = (facts: readonly IndexedFact[]): FactIndex => {
  const index = new FactIndex();
  for (const fact of facts) index.add(fact);
  return index;
};

const restoreIndex = (compressed: Uint8Array): number => decodeIndex(Bun.zstdDecompressSync(compressed))?.live ?? -1;

const bareBaseline = (facts: readonly IndexedFact[]): number => {
  const postings = new Map<string, number>();
  for (const fact of facts) for (const word of fact.text.split(" ")) postings.set(word, (postings.get(word) ?? 0) + 1);
  return postings.size;
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const format = (ms: number): string => (ms < 100 ? ms.toFixed(1) : ms.toFixed(0));

console.log("# In-memory index build");
console.log("");
for (const line of provenance()) console.log(line);
console.log("");
console.log(
  "| workspace | facts | mean chars | bare baseline: split + count, median / fastest ms | FactIndex.add, median / fastest ms | × baseline | from snapshot bytes, median / fastest ms | snapshot MB (zstd) |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
let sink = 0;
for (const make of workspaces) {
  const workspace = make();
  if (ONLY !== undefined && !ONLY.includes(workspace.name)) continue;
  const chars = workspace.facts.reduce((n, f) => n + f.text.length, 0) / Math.max(1, workspace.facts.length);
  const bare: number[] = [];
  const built: number[] = [];
  const restored: number[] = [];
  const compressed = Bun.zstdCompressSync(encodeIndex(buildIndex(workspace.facts))!, { level: 1 });
  for (let i = 0; i < BUILDS; i++) {
    const b = timed(() => bareBaseline(workspace.facts));
    const f = timed(() => buildIndex(workspace.facts).live);
    const r = timed(() => restoreIndex(compressed));
    if (r.sink !== f.sink) throw new Error(`${workspace.name}: the snapshot restored ${r.sink} facts, the build ${f.sink}`);
    bare.push(b.ms);
    built.push(f.ms);
    restored.push(r.ms);
    sink += b.sink + f.sink;
  }
  const ratio = median(built) / median(bare);
  console.log(
    `| ${workspace.name} | ${workspace.facts.length.toLocaleString("en")} | ${chars.toFixed(0)} | ${format(median(bare))} / ${format(Math.min(...bare))} | ${format(median(built))} / ${format(Math.min(...built))} | ${ratio.toFixed(1)} | ` +
      `${format(median(restored))} / ${format(Math.min(...restored))} | ${(compressed.length / 1024 / 1024).toFixed(2)} |`,
  );
}
console.log("");
console.log(`(sink ${sink})`);
