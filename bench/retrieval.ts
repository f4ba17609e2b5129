/**
 * Retrieval quality on three sets, each beside a plain BM25 over the same texts in the
 * same run:
 * - LoCoMo (short chat turns): every turn of a conversation taught as a fact (one workspace per
 *   conversation), every question of categories 1-4 searched; evidence recall@1/5/10/20, hit@10.
 * - LongMemEval-S dev (long chat sessions, user and assistant): every turn of a question's
 *   haystack taught as a fact (one workspace per question); turn recall@5/10, session
 *   recall@5/10 and NDCG@10, per question type.
 * - Our paraphrase set (bench/sets/paraphrase.json): questions whose answering fact shares no
 *   content word with them, among distractors; hit@1/5/10 and the share of empty results, plus a
 *   billing workspace asked unrelated questions, where empty is right.
 * Beside memoryd, each table shows the same facts ranked in process with one signal switched off,
 * so what it adds is measured in the run: undated, "meaning off" (`meaning: 0`); dated, "time off"
 * (`time: 0`: no time read in the question).
 *
 * Facts are taught with `teachFacts` (20 per call, as the REST route allows) and searched with
 * `searchFacts` (limit 20), the functions behind the API. After each data set's tables, what capture
 * did with the texts taught, per time mode: of the evidence turns (the units any question asked
 * names as evidence) and of all turns, how many were taught, stay live, ended up superseded (not
 * searchable: a later fact replaced them, or they were stored as an older value's history) and were
 * skipped as duplicates (no fact of their own), read back from the workspace's facts
 * (bench/lib/stored.ts, `fatesOfItems`). A LongMemEval turn over 4,000 characters counts once per
 * chunk; the paraphrase set's "turns" are its facts. Not with `--facts` (nothing is taught). Each question falls in the `tune` or the
 * `check` split by a hash of its id: tune on one, confirm on the other (`--split`).
 *
 * Usage: bun bench/retrieval.ts [--data paraphrase|locomo|longmemeval|all] [--split tune|check|all]
 *          [--time undated|dated|both] [--questions N] [--save-facts DIR | --facts DIR] [--dump FILE]
 * `--time` (both by default): undated teaches every text now; dated teaches each at its session's
 * date moved so the questions are asked now (see TimeMode). The paraphrase set has no dates.
 * `--save-facts DIR` keeps what capture stored (per workspace, the live facts); `--facts DIR`
 * ranks those again in process without teaching (for sweeping ranking changes: capture is not
 * re-run, so only use it while capture is unchanged). Embedded PGlite in a temp dir by default;
 * BENCH_DATABASE_URL (an admin URL) teaches into a fresh PostgreSQL database instead.
 * LOCOMO_PATH, LONGMEMEVAL_PATH and PARAPHRASE_PATH override the data files.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { authenticate, type AuthContext } from "../src/auth/authenticate";
import { createKey } from "../src/auth/keys";
import { createWorkspace } from "../src/auth/workspaces";
import { teachFacts } from "../src/capture/teach";
import type { Db } from "../src/db/types";
import { FactIndex, type IndexedFact } from "../src/memory/index/fact-index";
import { RANKING, type RankingParams } from "../src/memory/index/params";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts, searchIndex } from "../src/memory/search";
import { ALL_SCOPES } from "../src/schema/auth";
import { callerOf, type ServiceContext } from "../src/service";
import { Bm25, ENGLISH_STOP_WORDS } from "./lib/bm25";
import { openBenchDatabase } from "./lib/database";
import { factText, loadLocomo } from "./lib/locomo-data";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { percentile } from "./lib/metrics";
import { fatesOfItems, type ItemFate, itemsOfFacts, liveFacts } from "./lib/stored";
import { argValue } from "./support/args";

const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const PARAPHRASE_PATH = process.env.PARAPHRASE_PATH ?? join(import.meta.dir, "sets", "paraphrase.json");
const TEACH_BATCH = 20;
const SEARCH_LIMIT = 20;

/** A text taught as a fact, and the evidence unit (turn) it stands for. */
interface Unit {
  id: string;
  /** The session the unit belongs to (session-level recall). */
  session: string;
  /** When it was said (its session's date), epoch milliseconds; null when the data set has no date. */
  at: number | null;
  text: string;
}

interface Question {
  id: string;
  /** LoCoMo category or LongMemEval question type. */
  group: string;
  query: string;
  evidence: string[];
  evidenceSessions: string[];
}

/** One workspace's worth: the texts to teach and the questions asked of them. */
interface Haystack {
  key: string;
  /** When its questions are asked, epoch milliseconds; null when the data set has no dates. */
  askedAt: number | null;
  units: Unit[];
  questions: Question[];
}

interface Dataset {
  name: "locomo" | "longmemeval" | "paraphrase";
  title: string;
  haystacks: Haystack[];
  /** Measures reported, in order: "turn@k", "session@k", "ndcg@10", "hit@10". */
  measures: string[];
}

/** FNV-1a: a stable split of question ids, the same on every machine and run. */
function splitOf(id: string): "tune" | "check" {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 3 === 0 ? "check" : "tune";
}

function locomoDataset(): Dataset {
  const conversations = loadLocomo(LOCOMO_PATH);
  return {
    name: "locomo",
    title: "LoCoMo, categories 1-4",
    measures: ["turn@1", "turn@5", "turn@10", "turn@20", "hit@10"],
    haystacks: conversations.map((c) => ({
      key: c.sampleId,
      askedAt: c.askedAt,
      units: c.turns.map((t) => ({ id: t.diaId, session: t.diaId.split(":")[0]!, at: t.at, text: factText(t) })),
      questions: c.questions
        .map((q, i) => ({ q, i }))
        .filter(({ q }) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0)
        .map(({ q, i }) => ({
          id: `${c.sampleId}:${i}`,
          group: String(q.category),
          query: q.question,
          evidence: q.evidence,
          evidenceSessions: [...new Set(q.evidence.map((e) => e.split(":")[0]!))],
        })),
    })),
  };
}

function longMemEvalDataset(): Dataset {
  return {
    name: "longmemeval",
    title: "LongMemEval-S dev",
    measures: ["turn@5", "turn@10", "session@5", "session@10", "ndcg@10"],
    haystacks: loadLongMemEval(LONGMEMEVAL_PATH).map((q) => ({
      key: q.id,
      askedAt: q.askedAt,
      units: q.units.map((u) => ({ id: u.turnId, session: u.sessionId, at: u.at, text: u.text })),
      questions: [{ id: q.id, group: q.type, query: q.question, evidence: q.evidenceTurns, evidenceSessions: q.evidenceSessions }],
    })),
  };
}

/**
 * Our paraphrase set (bench/sets/paraphrase.json, written before the meaning signal was tuned):
 * questions answered by a fact that shares no content word with them, among distractors; and a
 * billing workspace asked about unrelated things, where the right answer is an empty result.
 */
function paraphraseDataset(): Dataset {
  interface Entry {
    id: string;
    text: string;
  }
  const set = JSON.parse(readFileSync(PARAPHRASE_PATH, "utf8")) as {
    facts: Entry[];
    distractors: Entry[];
    questions: { id: string; query: string; answers: string[] }[];
    unrelated: { facts: Entry[]; queries: string[] };
  };
  const unit = (e: Entry): Unit => ({ id: e.id, session: e.id, at: null, text: e.text });
  return {
    name: "paraphrase",
    title: "Paraphrase set (bench/sets/paraphrase.json)",
    measures: ["hit@1", "hit@5", "hit@10", "empty"],
    haystacks: [
      {
        key: "paraphrase",
        askedAt: null,
        units: [...set.facts, ...set.distractors].map(unit),
        questions: set.questions.map((q) => ({ id: q.id, group: "paraphrase", query: q.query, evidence: q.answers, evidenceSessions: q.answers })),
      },
      {
        key: "unrelated",
        askedAt: null,
        units: set.unrelated.facts.map(unit),
        questions: set.unrelated.queries.map((query, i) => ({ id: `u${i}`, group: "unrelated (want empty)", query, evidence: [], evidenceSessions: [] })),
      },
    ],
  };
}

interface Ranked {
  question: Question;
  /** Per result, best first: the units it stands for. */
  ranked: Unit[][];
}

function measure(r: Ranked, name: string): number {
  const [kind, kText] = name.split("@") as [string, string];
  const k = Number(kText);
  const top = r.ranked.slice(0, k);
  if (kind === "turn") {
    const found = new Set(top.flat().map((u) => u.id));
    return r.question.evidence.filter((e) => found.has(e)).length / r.question.evidence.length;
  }
  if (kind === "session") {
    const found = new Set(top.flat().map((u) => u.session));
    return r.question.evidenceSessions.filter((s) => found.has(s)).length / r.question.evidenceSessions.length;
  }
  if (kind === "empty") return r.ranked.length === 0 ? 1 : 0;
  if (kind === "hit") {
    if (r.question.evidence.length === 0) return Number.NaN;
    const found = new Set(top.flat().map((u) => u.id));
    return r.question.evidence.some((e) => found.has(e)) ? 1 : 0;
  }
  // NDCG with binary gains: a result is relevant when it holds an evidence unit not credited yet.
  const evidence = new Set(r.question.evidence);
  let dcg = 0;
  top.forEach((units, i) => {
    const fresh = units.filter((u) => evidence.delete(u.id));
    if (fresh.length > 0) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, r.question.evidence.length); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

const mean = (all: number[]): number => {
  const xs = all.filter((x) => !Number.isNaN(x));
  return xs.length === 0 ? Number.NaN : (100 * xs.reduce((a, b) => a + b, 0)) / xs.length;
};
const fmt = (x: number): string => (Number.isNaN(x) ? "–" : x.toFixed(1));

function table(dataset: Dataset, systems: { name: string; results: Ranked[] }[]): string {
  const groups = [...new Set(dataset.haystacks.flatMap((h) => h.questions.map((q) => q.group)))].sort();
  const lines = [`| group | questions | system | ${dataset.measures.join(" | ")} |`, `|---|---:|---|${dataset.measures.map(() => "---:").join("|")}|`];
  for (const group of [...groups, "**all**"]) {
    for (const system of systems) {
      const results = group === "**all**" ? system.results : system.results.filter((r) => r.question.group === group);
      if (results.length === 0) continue;
      const cells = dataset.measures.map((m) => fmt(mean(results.map((r) => measure(r, m)))));
      lines.push(`| ${group} | ${results.length} | ${system.name} | ${cells.join(" | ")} |`);
    }
  }
  return lines.join("\n");
}

/** A fresh workspace and an internal key on it; the AuthContext comes from the real authenticate(). */
async function freshWorkspace(db: Db, key: string): Promise<AuthContext> {
  const slug = `bench-${key.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}`.slice(0, 63);
  const workspace = await createWorkspace(db, slug, 0);
  const created = await createKey(db, "test", { workspace: workspace.slug, name: "retrieval bench", scopes: [...ALL_SCOPES], audience: "internal" });
  return authenticate(db, created.secret, "bench");
}

/** Taught units by what capture did with them. */
type Fates = Record<ItemFate, number>;
const noFates = (): Fates => ({ live: 0, superseded: 0, skipped: 0 });

interface RunStats {
  /** What capture did with the evidence units and with all units (none counted with `--facts`). */
  evidenceFates: Fates;
  allFates: Fates;
  facts: number;
  units: number;
  teachMs: number;
  latencies: number[];
  /** The same queries ranked in process with one signal off (SWITCHED_OFF: meaning undated, time dated). */
  switchedOffLatencies: number[];
}

/** `--params k1=1.5,b=0.8`: ranking parameters to try instead of RANKING (with `--facts` only). */
function paramsFromArgs(): RankingParams {
  const params: RankingParams = { ...RANKING };
  for (const pair of (argValue("--params") ?? "").split(",").filter((p) => p !== "")) {
    const [name, value] = pair.split("=") as [keyof RankingParams, string];
    if (!(name in RANKING) || !Number.isFinite(Number(value))) usage(`--params: unknown parameter or bad value in ${pair}`);
    params[name] = Number(value);
  }
  return params;
}
const params = paramsFromArgs();

const wanted = (q: Question, split: string): boolean => split === "all" || splitOf(q.id) === split;

/**
 * Undated: every text taught now, as a client sending what it hears as it hears it. Dated: as a
 * client importing its history would teach it, each text observed at its session's date moved so
 * that the questions are asked now (every session keeps its distance before the question), and
 * the questions searched without `as_of`. A session dated after its question (a quirk of
 * LongMemEval) is clamped to a minute before now.
 */
type TimeMode = "undated" | "dated";

/** When a unit is taught as observed in `mode`, for questions asked at `now`; undefined: now. */
function observedAt(mode: TimeMode, h: Haystack, u: Unit, now: number): string | undefined {
  if (mode === "undated" || u.at === null || h.askedAt === null) return undefined;
  return new Date(Math.min(now - (h.askedAt - u.at), now - 60_000)).toISOString();
}

/** The signal each mode's comparison column switches off. */
const SWITCHED_OFF: Record<TimeMode, string> = { undated: "meaning off", dated: "time off" };

/** What `--save-facts` keeps per workspace: the live facts and the instant their questions are asked. */
interface SavedFacts {
  now: number;
  facts: IndexedFact[];
}

async function runDataset(
  dataset: Dataset,
  mode: TimeMode,
  split: string,
  maxQuestions: number,
  savedDir: string | undefined,
  loadDir: string | undefined,
): Promise<{ memoryd: Ranked[]; switchedOff: Ranked[]; bm25: Ranked[]; bm25Stop: Ranked[]; stats: RunStats; label: string }> {
  const memoryd: Ranked[] = [];
  const switchedOff: Ranked[] = [];
  const bm25: Ranked[] = [];
  const bm25Stop: Ranked[] = [];
  const stats: RunStats = { evidenceFates: noFates(), allFates: noFates(), facts: 0, units: 0, teachMs: 0, latencies: [], switchedOffLatencies: [] };
  const haystacks: Haystack[] = [];
  let asked = 0;
  for (const h of dataset.haystacks) {
    const questions = h.questions.filter((q) => wanted(q, split));
    if (questions.length === 0 || asked >= maxQuestions) continue;
    asked += questions.length;
    haystacks.push({ ...h, questions });
  }
  const bench = loadDir === undefined ? await openBenchDatabase() : null;
  const cacheFile = (dir: string, key: string): string => join(dir, dataset.name, `${key.replace(/[^A-Za-z0-9_-]+/g, "_")}.${mode}.json`);
  try {
    for (const [n, h] of haystacks.entries()) {
      let facts: IndexedFact[];
      let now: number;
      let search: (query: string) => Promise<string[]>;
      if (bench === null) {
        ({ now, facts } = JSON.parse(readFileSync(cacheFile(loadDir!, h.key), "utf8")) as SavedFacts);
        const index = new FactIndex();
        for (const f of facts) index.add(f);
        const v = { workspaceId: h.key, audience: "internal" as const, endUserId: null, agent: null, kinds: null };
        search = async (query) => searchIndex(index, v, { query, limit: SEARCH_LIMIT }, params, now).facts.map((f) => f.fact_id);
      } else {
        const auth = await freshWorkspace(bench.db, h.key);
        const ctx: ServiceContext = {
          db: bench.db,
          index: new FactIndexes(bench.db, 1024 * 1024 * 1024),
          caller: callerOf({ ...auth, factSeq: null }, "rest"),
        };
        const t0 = performance.now();
        now = Date.now();
        for (let i = 0; i < h.units.length; i += TEACH_BATCH) {
          const batch = h.units.slice(i, i + TEACH_BATCH);
          await teachFacts(ctx, {
            facts: batch.map((u) => {
              const observed = observedAt(mode, h, u, now);
              return observed === undefined ? { text: u.text } : { text: u.text, observed_at: observed };
            }),
          });
        }
        stats.teachMs += performance.now() - t0;
        facts = await liveFacts(bench.db, auth.workspaceId);
        const evidence = new Set(h.questions.flatMap((q) => q.evidence));
        for (const [i, fate] of (await fatesOfItems(bench.db, auth.workspaceId, h.units)).entries()) {
          stats.allFates[fate] += 1;
          if (evidence.has(h.units[i]!.id)) stats.evidenceFates[fate] += 1;
        }
        if (savedDir !== undefined) {
          mkdirSync(join(savedDir, dataset.name), { recursive: true });
          writeFileSync(cacheFile(savedDir, h.key), JSON.stringify({ now, facts } satisfies SavedFacts));
        }
        search = async (query) => (await searchFacts(ctx, { query, limit: SEARCH_LIMIT })).facts.map((f) => f.fact_id);
        await search("warm the index");
      }
      // The same facts ranked in process with one signal off: what it adds, in the same run.
      const plainIndex = new FactIndex();
      for (const f of facts) plainIndex.add(f);
      const switchedOffParams: RankingParams = mode === "dated" ? { ...params, time: 0 } : { ...params, meaning: 0 };
      const visibility = { workspaceId: h.key, audience: "internal" as const, endUserId: null, agent: null, kinds: null };
      const searchSwitchedOff = (query: string): string[] =>
        searchIndex(plainIndex, visibility, { query, limit: SEARCH_LIMIT }, switchedOffParams, now).facts.map((f) => f.fact_id);
      stats.facts += facts.length;
      stats.units += h.units.length;
      const unitsOf = itemsOfFacts(facts, h.units);
      const plain = new Bm25(h.units.map((u) => u.text));
      const plainStop = new Bm25(
        h.units.map((u) => u.text),
        ENGLISH_STOP_WORDS,
      );
      for (const q of h.questions) {
        const t0 = performance.now();
        const ids = await search(q.query);
        stats.latencies.push(performance.now() - t0);
        memoryd.push({ question: q, ranked: ids.map((id) => unitsOf.get(id) ?? []) });
        const t1 = performance.now();
        const plainIds = searchSwitchedOff(q.query);
        stats.switchedOffLatencies.push(performance.now() - t1);
        switchedOff.push({ question: q, ranked: plainIds.map((id) => unitsOf.get(id) ?? []) });
        bm25.push({ question: q, ranked: plain.search(q.query, SEARCH_LIMIT).map((i) => [h.units[i]!]) });
        bm25Stop.push({ question: q, ranked: plainStop.search(q.query, SEARCH_LIMIT).map((i) => [h.units[i]!]) });
      }
      if (process.stderr.isTTY) process.stderr.write(`\r${dataset.name}: ${n + 1}/${haystacks.length} workspaces`);
    }
    if (process.stderr.isTTY) process.stderr.write("\n");
    return { memoryd, switchedOff, bm25, bm25Stop, stats, label: bench?.label ?? `in process, facts from ${loadDir}` };
  } finally {
    await bench?.close();
  }
}

/** What capture did with the evidence turns and all turns, per time mode. */
function fatesTable(runs: readonly { mode: TimeMode; run: { stats: RunStats } }[]): string {
  const cell = (n: number, of: number): string => (of === 0 ? "0" : `${n.toLocaleString("en")} (${((100 * n) / of).toFixed(1)} %)`);
  const lines = ["| mode | turns | taught | live | superseded | skipped as duplicate |", "|---|---|---:|---:|---:|---:|"];
  for (const { mode, run } of runs) {
    for (const [name, f] of [
      ["evidence turns", run.stats.evidenceFates],
      ["all turns", run.stats.allFates],
    ] as const) {
      const taught = f.live + f.superseded + f.skipped;
      lines.push(
        `| ${mode} | ${name} | ${taught.toLocaleString("en")} | ${cell(f.live, taught)} | ${cell(f.superseded, taught)} | ${cell(f.skipped, taught)} |`,
      );
    }
  }
  return lines.join("\n");
}

function usage(message: string): never {
  console.error(
    `${message}\nusage: bun bench/retrieval.ts [--data paraphrase|locomo|longmemeval|all] [--split tune|check|all] [--questions N] [--time undated|dated|both] [--save-facts DIR | --facts DIR] [--dump FILE] [--params k1=1.2,b=0.75]`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const data = argValue("--data") ?? "all";
  const split = argValue("--split") ?? "all";
  const time = argValue("--time") ?? "both";
  const maxQuestions = Number(argValue("--questions") ?? Number.POSITIVE_INFINITY);
  if (!["locomo", "longmemeval", "paraphrase", "all"].includes(data)) usage("--data is locomo, longmemeval, paraphrase or all");
  if (!["tune", "check", "all"].includes(split)) usage("--split is tune, check or all");
  if (!["undated", "dated", "both"].includes(time)) usage("--time is undated, dated or both");
  if (!(maxQuestions >= 1)) usage("--questions needs a number of at least 1");
  const saveDir = argValue("--save-facts");
  const loadDir = argValue("--facts");
  if (saveDir !== undefined && loadDir !== undefined) usage("--save-facts and --facts exclude each other");
  const dumpPath = argValue("--dump");
  for (const [name, path] of [
    ["locomo", LOCOMO_PATH],
    ["longmemeval", LONGMEMEVAL_PATH],
  ] as const) {
    if ((data === name || data === "all") && !existsSync(path)) {
      usage(
        `${name} data not found at ${path}: set ${name === "locomo" ? "LOCOMO_PATH" : "LONGMEMEVAL_PATH"} (the data sets are not vendored: README.md, "Quality and performance", says where they come from)`,
      );
    }
  }
  const datasets = [
    ...(data === "paraphrase" || data === "all" ? [paraphraseDataset()] : []),
    ...(data === "locomo" || data === "all" ? [locomoDataset()] : []),
    ...(data === "longmemeval" || data === "all" ? [longMemEvalDataset()] : []),
  ];
  const dump: Record<string, unknown> = {};
  for (const dataset of datasets) {
    // The paraphrase set has no dates: only its undated mode means anything.
    const dated = dataset.haystacks.some((h) => h.askedAt !== null);
    const modes: TimeMode[] = time === "both" ? (dated ? ["undated", "dated"] : ["undated"]) : [time as TimeMode];
    const runs: { mode: TimeMode; run: Awaited<ReturnType<typeof runDataset>> }[] = [];
    const lines: string[] = [];
    for (const mode of modes) {
      const started = performance.now();
      const run = await runDataset(dataset, mode, split, maxQuestions, saveDir, loadDir);
      runs.push({ mode, run });
      const sorted = [...run.stats.latencies].sort((a, b) => a - b);
      const plainSorted = [...run.stats.switchedOffLatencies].sort((a, b) => a - b);
      lines.push(
        `${mode}: search (limit ${SEARCH_LIMIT}, ${sorted.length} queries): p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms ` +
          `(${SWITCHED_OFF[mode]}, in process: p50 ${percentile(plainSorted, 50).toFixed(3)} ms, p95 ${percentile(plainSorted, 95).toFixed(3)} ms); ` +
          `${run.stats.units} texts taught as ${run.stats.facts} live facts${run.stats.teachMs > 0 ? ` in ${(run.stats.teachMs / 1000).toFixed(1)} s` : ""}; ` +
          `run ${((performance.now() - started) / 1000).toFixed(1)} s; ${run.label}`,
      );
      dump[`${dataset.name}.${mode}`] = run.memoryd.map((r, i) => ({
        id: r.question.id,
        group: r.question.group,
        query: r.question.query,
        evidence: r.question.evidence,
        memoryd: r.ranked.map((units) => units.map((u) => u.id)),
        bm25: run.bm25[i]!.ranked.map((units) => units.map((u) => u.id)),
      }));
    }
    const label = (mode: TimeMode, name: string): string => (runs.length > 1 ? `${name} (${mode})` : name);
    console.log(`## ${dataset.title} (split: ${split})\n`);
    console.log(
      table(dataset, [
        ...runs.flatMap(({ mode, run }) => [
          { name: label(mode, "memoryd"), results: run.memoryd },
          { name: label(mode, `memoryd, ${SWITCHED_OFF[mode]}`), results: run.switchedOff },
        ]),
        { name: "BM25", results: runs[0]!.run.bm25 },
      ]),
    );
    const stop = dataset.measures.map((m) => `${m} ${fmt(mean(runs[0]!.run.bm25Stop.map((r) => measure(r, m))))}`).join(", ");
    console.log(`\nBM25 (k1 1.2, b 0.75) over the same texts, the same in every mode; with English stop words dropped: ${stop}`);
    console.log(`${lines.join("\n")}\n`);
    if (loadDir === undefined) console.log(`${fatesTable(runs)}\n`);
  }
  if (dumpPath !== undefined) writeFileSync(dumpPath, JSON.stringify(dump));
}

await main();
