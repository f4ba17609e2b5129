/**
 * Where a search and a context packet spend their time at the size of an agent's memory (issue
 * 43), in process: issue 43's corpus (bench/lib/agent-memory-data.ts) analysed by capture and
 * added to one FactIndex, then the dev questions through `searchIndex` and `contextFromIndex`,
 * each phase timed on its own (plan, rank, phrasing re-score, facts out, packet), beside the bare
 * cost of the same loop over a 20,000-fact index of short facts.
 *
 *   bun bench/agent-memory-profile.ts [--limit-turns N] [--passes 3] [--only agent] [--facts-cache FILE]
 *
 * `--facts-cache FILE` keeps the analysed facts in FILE (read when it exists): capture's analysis
 * takes half a minute and is not what is measured. For a CPU profile of the phases:
 * `bun --cpu-prof --cpu-prof-dir bench/out bench/agent-memory-profile.ts --only agent --facts-cache F`,
 * then `bun bench/profile.ts --summarize bench/out/<file>.cpuprofile`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { analyzeFact } from "../src/capture/analyze";
import { contextFromIndex } from "../src/memory/context";
import { FactIndex, type IndexedFact } from "../src/memory/index/fact-index";
import { planQuery } from "../src/memory/index/plan";
import { rankFacts } from "../src/memory/index/ranking";
import { readFilter } from "../src/memory/index/filter";
import { renderPacket } from "../src/memory/packet";
import { decodeIndex, encodeIndex } from "../src/memory/index/snapshot";
import { searchIndex } from "../src/memory/search";
import type { Visibility } from "../src/memory/visibility";
import { loadAgentCorpus } from "./lib/agent-memory-data";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const limitTurns = argValue("--limit-turns") === undefined ? Number.POSITIVE_INFINITY : Number(argValue("--limit-turns"));
const passes = Number(argValue("--passes") ?? 3);
const onlyAgent = argValue("--only") === "agent";
const factsCache = argValue("--facts-cache");
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const corpus = loadAgentCorpus();
const turns = corpus.turns.slice(0, limitTurns);
const now = Date.now();

/** The facts as capture makes them: its subject and kind; observed a minute apart, oldest first. */
function factsOf(texts: readonly string[]): IndexedFact[] {
  return texts.map((text, i) => {
    const a = analyzeFact({ text, teamMembers: [] });
    return {
      id: `f${String(i).padStart(7, "0")}`,
      text,
      kind: a.kind,
      origin: "ingested",
      subject: a.subject,
      subjectType: a.subjectType,
      endUserId: null,
      agent: null,
      confidence: 0.8,
      recordedAt: now - (texts.length - i) * 60_000,
      expiresAt: null,
      sensitive: a.sensitive,
      pinned: false,
    };
  });
}

/** `factsOf(texts)`, read from and kept in `factsCache` when one is named. */
function cachedFactsOf(texts: readonly string[], name: string): IndexedFact[] {
  const file = factsCache === undefined ? undefined : `${factsCache}.${name}.json`;
  if (file !== undefined && existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as IndexedFact[];
    if (cached.length === texts.length) return cached;
  }
  const facts = factsOf(texts);
  if (file !== undefined) writeFileSync(file, JSON.stringify(facts));
  return facts;
}

/** The JavaScript heap and array buffers, MiB, after a full collection. */
function memoryMb(): number {
  Bun.gc(true);
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

function build(facts: readonly IndexedFact[]): { index: FactIndex; ms: number } {
  const started = performance.now();
  const index = new FactIndex();
  for (const fact of facts) index.add(fact);
  return { index, ms: performance.now() - started };
}

/** The index through a snapshot and back, as a restart reads it: encode and decode times, bytes, and the restored index's memory. */
function throughSnapshot(index: FactIndex): { encodeMs: number; decodeMs: number; mb: number; restored: { index: FactIndex; memoryMb: number } } {
  let started = performance.now();
  const bytes = encodeIndex(index);
  if (bytes === null) throw new Error("the index made no snapshot");
  const encodeMs = performance.now() - started;
  const size = bytes.length;
  const before = memoryMb();
  started = performance.now();
  const restored = decodeIndex(bytes);
  const decodeMs = performance.now() - started;
  if (restored === null) throw new Error("the snapshot did not decode");
  return { encodeMs, decodeMs, mb: size / 2 ** 20, restored: { index: restored, memoryMb: memoryMb() - before } };
}

const v: Visibility = { workspaceId: "w", audience: "internal", endUserId: null, agent: null, kinds: null };
const time = (f: () => void): number => {
  const started = performance.now();
  f();
  return performance.now() - started;
};
const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

interface Phases {
  plan: number[];
  rank: number[];
  search: number[];
  context: number[];
  packet: number[];
}

/** Each question through each phase, `passes` times; a phase's samples are its per-question times of the last pass. */
function measure(index: FactIndex, questions: readonly string[]): Phases {
  const out: Phases = { plan: [], rank: [], search: [], context: [], packet: [] };
  for (let pass = 0; pass < passes; pass++) {
    const last = pass === passes - 1;
    for (const query of questions) {
      const filter = readFilter(index, v, now);
      let plan = planQuery(index, query, undefined, now);
      const planMs = time(() => {
        plan = planQuery(index, query, undefined, now);
      });
      const rankMs = time(() => rankFacts(index, plan, filter, { limit: 10, now }));
      const searchMs = time(() => searchIndex(index, v, { query, limit: 10 }, undefined, now));
      let packetFacts = contextFromIndex(index, v, { query, token_budget: 2000 }, now, null).facts;
      const contextMs = time(() => {
        packetFacts = contextFromIndex(index, v, { query, token_budget: 2000 }, now, null).facts;
      });
      const packetMs = time(() => renderPacket({ pinned: [], aboutActor: [], retrieved: packetFacts, tokenBudget: 2000, lineCosts: index.lineCosts }));
      if (!last) continue;
      out.plan.push(planMs);
      out.rank.push(rankMs);
      out.search.push(searchMs);
      out.context.push(contextMs);
      out.packet.push(packetMs);
    }
  }
  return out;
}

log(`analysing ${turns.length} turns`);
const agentFacts = cachedFactsOf(turns, "agent");
const shortFacts = cachedFactsOf(
  Array.from({ length: 20_000 }, (_, i) => {
    const turn = turns[(i * 7919) % turns.length]!;
    const sentence = turn.split(/(?<=[.!?])\s+/)[1] ?? turn;
    return sentence.slice(0, 160);
  }),
  "short",
);
log("building");
const agent = build(agentFacts);
const short = build(onlyAgent ? [] : shortFacts);
const snapshot = throughSnapshot(agent.index);
log(`agent index ${agent.ms.toFixed(0)} ms; short ${short.ms.toFixed(0)} ms; snapshot decode ${snapshot.decodeMs.toFixed(0)} ms`);
const agentPhases = measure(agent.index, corpus.questions);
const shortPhases = measure(short.index, onlyAgent ? [] : corpus.questions);

const chars = turns.reduce((sum, t) => sum + t.length, 0);
const row = (what: string, a: number[], b: number[]): string =>
  `| ${what} | ${p(a, 50).toFixed(2)} / ${p(a, 95).toFixed(2)} | ${p(b, 50).toFixed(2)} / ${p(b, 95).toFixed(2)} |`;
const out = [
  `# Search and context at an agent's size, in process (${new Date().toISOString()})`,
  "",
  `agent: ${turns.length.toLocaleString("en")} turns (${(chars / 1e6).toFixed(1)} M characters); short: 20,000 single sentences of the same turns (the bare case).`,
  `${corpus.questions.length} questions, ${passes} passes, the last one's times.`,
  "",
  "| what | agent | short |",
  "|---|---|---|",
  `| index build (add) | ${agent.ms.toFixed(0)} ms (${((agent.ms / turns.length) * 1000).toFixed(1)} µs/fact) | ${short.ms.toFixed(0)} ms |`,
  `| FactIndex.bytes() of the index built (text ${(chars / turns.length).toFixed(0)} chars/fact) | ${(agent.index.bytes() / 2 ** 20).toFixed(0)} MiB | ${(short.index.bytes() / 2 ** 20).toFixed(0)} MiB |`,
  `| snapshot: encode / decode, size (uncompressed) | ${snapshot.encodeMs.toFixed(0)} / ${snapshot.decodeMs.toFixed(0)} ms, ${snapshot.mb.toFixed(0)} MiB | – |`,
  `| memory of the index restored from it (heap + array buffers, measured) | ${snapshot.restored.memoryMb.toFixed(0)} MiB (${((snapshot.restored.memoryMb * 2 ** 20) / turns.length).toFixed(0)} B/fact) | – |`,
  "",
  "| phase, ms p50 / p95 | agent | short |",
  "|---|---|---|",
  row("planQuery", agentPhases.plan, shortPhases.plan),
  row("rankFacts (limit 10, with the phrasing re-score)", agentPhases.rank, shortPhases.rank),
  row("searchIndex (limit 10)", agentPhases.search, shortPhases.search),
  row("contextFromIndex (token_budget 2,000)", agentPhases.context, shortPhases.context),
  row("of which renderPacket (line costs known)", agentPhases.packet, shortPhases.packet),
  "",
  ...provenance(),
];
console.log(out.join("\n"));
