/**
 * Model-free search cost, this tree's ranking beside another build's in one run: the facts
 * `bun bench/retrieval.ts --save-facts DIR` stored (undated mode) are indexed by both builds, and
 * every question of the data set is searched with `searchIndex` (limit 20, RANKING), in blocks that
 * alternate between the builds (AB then BA each round, so drift on a shared machine falls on both).
 * The bare baseline, measured in the same rounds: plain BM25 (bench/lib/bm25.ts) over the same
 * texts. `--data union`: issue 43's corpus instead (bench/lib/agent-memory-data.ts: every
 * LongMemEval-S dev haystack's distinct turns in one workspace, 68k facts, not run through capture),
 * every dev question asked of it; no `--facts` needed. No timing here is asserted anywhere.
 *
 *   bun bench/search-against.ts --against REF [--facts DIR] [--data locomo|longmemeval|union] [--rounds 3]
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { IndexedFact } from "../src/memory/index/fact-index";
import { loadAgentCorpus } from "./lib/agent-memory-data";
import { ingestedFact } from "./lib/indexed-fact";
import { Bm25 } from "./lib/bm25";
import { loadLocomo } from "./lib/locomo-data";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";
import { addWorktree } from "./support/worktree";

const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const SEARCH_LIMIT = 20;

function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/search-against.ts --against REF --facts DIR [--data locomo|longmemeval] [--rounds 3]`);
  process.exit(2);
}

const against = argValue("--against") ?? usage("--against REF is required");
const data = argValue("--data") ?? "locomo";
if (data !== "locomo" && data !== "longmemeval" && data !== "union") usage(`--data: ${data}`);
const factsDir = argValue("--facts") ?? (data === "union" ? "" : usage("--facts DIR is required (bun bench/retrieval.ts --save-facts DIR)"));
const rounds = Number(argValue("--rounds") ?? 3);

/** One workspace: its stored facts and the questions asked of it. */
interface Haystack {
  key: string;
  now: number;
  facts: IndexedFact[];
  questions: string[];
}

/** The union corpus as one workspace: each turn a fact as an import stores it, observed at one instant. */
function unionHaystack(): Haystack {
  const { turns, questions } = loadAgentCorpus();
  const now = Date.now();
  const facts = turns.map((text, i) => ingestedFact(`turn_${i}`, text, now));

  return { key: "union", now, facts, questions };
}

function haystacks(): Haystack[] {
  if (data === "union") return [unionHaystack()];
  const asked =
    data === "locomo"
      ? loadLocomo(LOCOMO_PATH).map((c) => ({
          key: c.sampleId,
          questions: c.questions.filter((q) => q.category >= 1 && q.category <= 4).map((q) => q.question),
        }))
      : loadLongMemEval(LONGMEMEVAL_PATH).map((q) => ({ key: q.id, questions: [q.question] }));
  return asked.map(({ key, questions }) => {
    const file = join(factsDir, data, `${key.replace(/[^A-Za-z0-9_-]+/g, "_")}.undated.json`);
    if (!existsSync(file)) usage(`${file} is missing: save the facts first (bun bench/retrieval.ts --data ${data} --save-facts ${factsDir})`);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { now: number; facts: IndexedFact[] };
    return { key, now: saved.now, facts: saved.facts, questions };
  });
}

/** A build's search over one haystack, timed per question. */
type Searcher = (query: string) => void;

interface Build {
  label: string;
  prepare(h: Haystack): Searcher;
}

/** The build rooted at `root`: its own FactIndex and searchIndex, imported by path. */
async function buildAt(label: string, root: string): Promise<Build> {
  const { FactIndex } = (await import(join(root, "src/memory/index/fact-index.ts"))) as typeof import("../src/memory/index/fact-index");
  const { searchIndex } = (await import(join(root, "src/memory/search.ts"))) as typeof import("../src/memory/search");
  return {
    label,
    prepare(h) {
      const index = new FactIndex();
      for (const f of h.facts) index.add(f);
      const v = { workspaceId: h.key, audience: "internal" as const, endUserId: null, agent: null, kinds: null };
      return (query) => void searchIndex(index, v, { query, limit: SEARCH_LIMIT }, undefined, h.now);
    },
  };
}

const bm25: Build = {
  label: "bare baseline: BM25",
  prepare(h) {
    const index = new Bm25(h.facts.map((f) => f.text));
    return (query) => void index.search(query, SEARCH_LIMIT);
  },
};

const worktree = addWorktree(against);
try {
  const builds = [await buildAt(`${against} (${worktree.commit})`, worktree.dir), await buildAt("this tree", join(import.meta.dir, "..")), bm25];
  const stacks = haystacks();
  const prepared = builds.map((b) => stacks.map((h) => b.prepare(h)));
  const latencies = builds.map(() => [] as number[]);
  const warm = (i: number): void => {
    for (const [j, h] of stacks.entries()) for (const q of h.questions.slice(0, 5)) prepared[i]![j]!(q);
  };
  for (const i of builds.keys()) warm(i);
  for (let round = 0; round < rounds; round++) {
    // AB then BA: the two builds take turns going first; the baseline runs between.
    const order = round % 2 === 0 ? [0, 2, 1] : [1, 2, 0];
    for (const i of order) {
      for (const [j, h] of stacks.entries()) {
        for (const q of h.questions) {
          const started = performance.now();
          prepared[i]![j]!(q);
          latencies[i]!.push(performance.now() - started);
        }
      }
    }
  }
  const questions = stacks.reduce((n, h) => n + h.questions.length, 0);
  console.log(`# Model-free search, ${data}: ${questions} questions over ${stacks.length} workspaces, ${rounds} rounds, in process\n`);
  console.log("| build | searches | p50 ms | p95 ms | p50 × REF |");
  console.log("|---|---:|---:|---:|---:|");
  for (const l of latencies) l.sort((a, b) => a - b);
  const p50 = (i: number): number => percentile(latencies[i]!, 50);
  for (const [i, b] of builds.entries()) {
    const row = [b.label, latencies[i]!.length, p50(i).toFixed(3), percentile(latencies[i]!, 95).toFixed(3), (p50(i) / p50(0)).toFixed(2)];
    console.log(`| ${row.join(" | ")} |`);
  }

  console.log(`\n${provenance().join("\n")}`);
} finally {
  worktree.remove();
}
