/**
 * The opt-in embeddings endpoint (issue 37), measured with the fake OpenAI-compatible endpoint of
 * test/helpers/fake-embeddings.ts on loopback, driven through memoryd's embeddings client (fetch),
 * each part beside its bare baseline in the same run:
 *
 * 1. quality   Paraphrase set (bench/sets/paraphrase.json) taught with `teachFacts` into embedded
 *              PGlite, embedded with `EmbeddingWorker.embedBatch` (256 dimensions), searched with
 *              `searchFacts` (limit 10): answer in the first 5 / 10 and empty results, beside the
 *              same facts searched without the endpoint (the model-free ranking with its meaning
 *              signal) and plain BM25 (bench/lib/bm25.ts). The fake is pinned per text: each
 *              question gets a random unit "topic"; the question's and its answering fact's
 *              vectors are that topic plus Gaussian noise of norm `--noise` (relative to the topic;
 *              expected cosine 1 / (1 + noise²)); half the distractors are near misses (a random
 *              direction plus `--near` times some question's topic), the rest random. A sweep over
 *              the noise shows where the fused ranking stops gaining.
 * 2. failure   Search latency over HTTP (one connection) with the endpoint down (503) or hanging,
 *              MEMORYD_EMBEDDINGS_TIMEOUT_MS 1000 (the default) and 200, p50 / p95 / max over
 *              `--failure-searches` searches, beside the same app without an endpoint.
 * 3. scale     Synthetic facts (bench/support/synth.ts) taught into one workspace until `--facts` are live,
 *              embedded at 768 dimensions; search p50 / p95 over HTTP (one connection, `fetch`)
 *              with the endpoint answering in 5 ms, beside the same facts served by an app
 *              without the endpoint, blocks of 50 alternating; and a fresh app's first search (index
 *              built, vectors loaded) with no endpoint, the endpoint answering, down and hanging.
 *    memory    VectorSet.bytes() per vector and the fact_vectors rows' size in the database.
 *    recall    The sign-bit shortlist (VectorSet.nearest) against the exact scan (exactNearest)
 *              over the same vectors: recall at k = 10 (and 50, the depth search fuses), and time.
 *
 * Usage: bun bench/embeddings.ts [--quick] [--only quality,failure,scale] [--noise 1.25] [--near 0.5]
 *          [--facts 20000] [--searches 500] [--failure-searches 200] [--pg [ADMIN_URL]]
 * Embedded PGlite in a temp dir by default. `--pg` (default postgres://postgres@127.0.0.1:5432/postgres)
 * or DATABASE_URL runs every part on PostgreSQL instead, in a database memoryd_bench_embeddings
 * created here and dropped at the end. `--quick`: 6,000 facts, 100 HTTP searches, 40 failure searches, 50
 * recall queries. No timing here is asserted anywhere; tables go to stdout, progress to stderr.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { AnswerEngine } from "../src/answers/engine";
import { authenticate, type AuthContext } from "../src/auth/authenticate";
import { createKey } from "../src/auth/keys";
import { createWorkspace } from "../src/auth/workspaces";
import { teachFacts } from "../src/capture/teach";
import { createApp } from "../src/app";
import { loadConfig, type Config } from "../src/config";
import type { Db } from "../src/db/types";
import { SemanticSearch } from "../src/embeddings/semantic";
import { createEmbeddings, type Embeddings } from "../src/embeddings/setup";
import { EXACT_UP_TO, type VectorSet } from "../src/embeddings/vectors";
import type { EmbeddingWorker } from "../src/embeddings/worker";
import { createLogger } from "../src/log";
import type { IndexedFact } from "../src/memory/index/fact-index";
import { FUSION_DEPTH } from "../src/memory/index/fusion";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts, searchIndex } from "../src/memory/search";
import { visibilityFor } from "../src/memory/visibility";
import { ALL_SCOPES } from "../src/schema/auth";
import type { SearchHit } from "../src/schema/memory";
import { callerOf, type ServiceContext } from "../src/service";
import { startFakeEmbeddings, type FakeEmbeddings } from "../test/helpers/fake-embeddings";
import { Bm25 } from "./lib/bm25";
import { openBenchDatabase, type BenchDatabase } from "./lib/database";
import { percentile } from "./lib/metrics";
import { itemsOfFacts, liveFacts } from "./lib/stored";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";
import { factStream, makeCast, makeQueries, Rng, type SynthFact } from "./support/synth";

/** The similarity floor a search applies by default (MEMORYD_EMBEDDINGS_MIN_SIMILARITY). */
const VECTOR_ONLY_FLOOR = loadConfig({}, {}).embeddingsMinSimilarity;

const quick = process.argv.includes("--quick");
const only = new Set((argValue("--only") ?? "quality,failure,scale").split(","));
for (const part of only) if (!["quality", "failure", "scale"].includes(part)) usage(`unknown part "${part}"`);
const NOISE = Number(argValue("--noise") ?? 1.25);
const NEAR = Number(argValue("--near") ?? 0.5);
const SWEEP = [0.5, 0.75, 1.0, 1.25, 1.5, 2.0];
const QUALITY_DIMENSIONS = 256;
const SCALE_DIMENSIONS = 768;
const SCALE_FACTS = Number(argValue("--facts") ?? (quick ? 6_000 : 20_000));
const HTTP_SEARCHES = Number(argValue("--searches") ?? (quick ? 100 : 500));
const FAILURE_SEARCHES = Number(argValue("--failure-searches") ?? (quick ? 40 : 200));
const RECALL_QUERIES = quick ? 50 : 200;
const SEARCH_LIMIT = 10;
const TEACH_BATCH = 20;
const ENDPOINT_DELAY_MS = 5;
const PG_DATABASE = "memoryd_bench_embeddings";
const PARAPHRASE_PATH = process.env.PARAPHRASE_PATH ?? join(import.meta.dir, "sets", "paraphrase.json");
const SEED = "bench-embeddings";
/** Requests per key stay under the 120 a minute of RATE_LIMIT: searches rotate over this many keys. */
const KEYS = 30;

const pgIndex = process.argv.indexOf("--pg");
const pgAdminUrl =
  pgIndex >= 0
    ? process.argv[pgIndex + 1] !== undefined && !process.argv[pgIndex + 1]!.startsWith("--")
      ? process.argv[pgIndex + 1]!
      : "postgres://postgres@127.0.0.1:5432/postgres"
    : process.env.DATABASE_URL || undefined;
for (const [name, value] of [
  ["--noise", NOISE],
  ["--near", NEAR],
  ["--facts", SCALE_FACTS],
  ["--searches", HTTP_SEARCHES],
  ["--failure-searches", FAILURE_SEARCHES],
] as const) {
  if (!(value >= 0) || !Number.isFinite(value)) usage(`${name} needs a number`);
}

const log = createLogger("silent");
const progress = (line: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

function usage(message: string): never {
  console.error(
    `${message}\nusage: bun bench/embeddings.ts [--quick] [--only quality,failure,scale] [--noise 1.25] [--near 0.5] [--facts 20000] [--searches 500] [--failure-searches 200] [--pg [ADMIN_URL]]`,
  );
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

const ms = (x: number): string => (Number.isNaN(x) ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(1));
const pct = (part: number, whole: number): string => (whole === 0 ? "–" : ((100 * part) / whole).toFixed(1));
const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
const load = (): string =>
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`;

/** The product's configuration, with the fake endpoint when `fake` is given. */
function configFor(fake: FakeEmbeddings | null, model: string, timeoutMs = 1000): Config {
  return loadConfig(
    {},
    {
      MEMORYD_LOG_LEVEL: "silent",
      ...(fake !== null && {
        MEMORYD_EMBEDDINGS_URL: fake.url,
        MEMORYD_EMBEDDINGS_MODEL: model,
        MEMORYD_EMBEDDINGS_TIMEOUT_MS: String(timeoutMs),
        MEMORYD_EMBEDDINGS_QUERY_PREFIX: "search_query: ",
        MEMORYD_EMBEDDINGS_DOCUMENT_PREFIX: "search_document: ",
      }),
    },
  );
}

function embeddingsFor(db: Db, config: Config): Embeddings {
  const embeddings = createEmbeddings(config, db, log, { queryFailed: () => {}, batchDone: () => {} });
  if (embeddings === null) throw new Error("embeddings not configured");
  return embeddings;
}

interface Workspace {
  id: string;
  slug: string;
  auth: AuthContext;
  /** Secrets of `KEYS` internal keys, for HTTP searches. */
  secrets: string[];
}

async function freshWorkspace(db: Db, name: string, keys = 1): Promise<Workspace> {
  const slug = `bench-emb-${name}-${Date.now().toString(36)}`.slice(0, 63);
  const workspace = await createWorkspace(db, slug, 0);
  const secrets: string[] = [];
  for (let i = 0; i < keys; i++) {
    const created = await createKey(db, "test", { workspace: slug, name: `embeddings bench ${i}`, scopes: [...ALL_SCOPES], audience: "internal" });
    secrets.push(created.secret);
  }
  return { id: workspace.id, slug, auth: await authenticate(db, secrets[0], "bench"), secrets };
}

const contextOf = (db: Db, ws: Workspace, index: FactIndexes): ServiceContext => ({ db, index, caller: callerOf({ ...ws.auth, factSeq: null }, "rest") });

async function teachAll(db: Db, ws: Workspace, texts: readonly string[], onBatch?: (done: number) => void): Promise<number> {
  const ctx = contextOf(db, ws, new FactIndexes(db, 64 * 1024 * 1024));
  const started = performance.now();
  for (let i = 0; i < texts.length; i += TEACH_BATCH) {
    await teachFacts(ctx, { facts: texts.slice(i, i + TEACH_BATCH).map((text) => ({ text })) });
    onBatch?.(Math.min(texts.length, i + TEACH_BATCH));
  }
  return performance.now() - started;
}

/** Embeds every waiting fact of the workspace, batch after batch, as the worker's rounds do. */
async function embedAll(worker: EmbeddingWorker, workspaceId: string, onBatch?: (done: number) => void): Promise<{ embedded: number; ms: number }> {
  const started = performance.now();
  let embedded = 0;
  let afterId = "";
  for (;;) {
    const outcome = await worker.embedBatch({ workspaceId, afterId });
    if (outcome.failed) throw outcome.failed;
    if (outcome.leased === 0 || outcome.lastId === null) return { embedded, ms: performance.now() - started };
    embedded += outcome.embedded;
    afterId = outcome.lastId;
    onBatch?.(embedded);
  }
}

/** An app (the product's routes and pipeline) listening on a loopback port. */
interface Served {
  url: string;
  stop(): Promise<void>;
}

function serve(db: Db, config: Config, semantic: SemanticSearch | null): Served {
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024, { semantic });
  const app = createApp({ config, db, log, index, engine: new AnswerEngine({ db, index, config, log }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const port = app.server?.port;
  if (port === undefined) throw new Error("the app did not listen");
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await app.stop(true);
    },
  };
}

let keyTurn = 0;
/** One search over HTTP, timed from the request to the parsed body. */
async function httpSearch(served: Served, ws: Workspace, query: string): Promise<{ ms: number; ids: string[]; status: number }> {
  const secret = ws.secrets[keyTurn++ % ws.secrets.length]!;
  const started = performance.now();
  const response = await fetch(`${served.url}/v1/memory/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: SEARCH_LIMIT }),
  });
  const body = (await response.json()) as any;
  const elapsed = performance.now() - started;
  const ids = response.status === 200 ? (body.data.facts as { fact_id: string }[]).map((f) => f.fact_id) : [];
  return { ms: elapsed, ids, status: response.status };
}

/** Standard normal draws from the bench's seeded generator (Box-Muller). */
function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** A random direction: unit length. */
function direction(rng: Rng, dimensions: number): Float64Array {
  const v = new Float64Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    v[i] = gaussian(rng);
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) v[i]! /= norm;
  return v;
}

/** Σ weight × vector. */
function mix(dimensions: number, parts: readonly (readonly [number, Float64Array])[]): number[] {
  const out = new Array<number>(dimensions).fill(0);
  for (const [weight, v] of parts) for (let i = 0; i < dimensions; i++) out[i]! += weight * v[i]!;
  return out;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

// ---------------------------------------------------------------------------------------------
// 1. Paraphrase quality

interface Entry {
  id: string;
  text: string;
}

interface ParaphraseSet {
  facts: Entry[];
  distractors: Entry[];
  questions: { id: string; query: string; answers: string[] }[];
  unrelated: { facts: Entry[]; queries: string[] };
}

/** Stored fact id → the set's entry ids it stands for: same text, else the same duplicate key. */
function entriesOfFacts(facts: readonly IndexedFact[], entries: readonly Entry[]): Map<string, string[]> {
  return new Map([...itemsOfFacts(facts, entries)].map(([id, items]) => [id, items.map((e) => e.id)]));
}

/**
 * The fake's vectors for the paraphrase run, drawn once (seeded) and scaled by the noise level:
 * a question and its answering facts share the question's topic; a near-miss distractor holds
 * `NEAR` of some question's topic; everything else is a random direction.
 */
class ParaphraseVectors {
  private readonly topic = new Map<string, Float64Array>();
  private readonly noise = new Map<string, Float64Array>();
  private readonly nearMiss = new Map<string, string>();
  private readonly rng = new Rng(`${SEED}:paraphrase-vectors`);

  constructor(
    private readonly set: ParaphraseSet,
    private readonly dimensions: number,
  ) {
    for (const q of set.questions) this.topic.set(q.id, direction(this.rng, dimensions));
    // Every other distractor (in the set's order) is a near miss of a random question.
    set.distractors.forEach((d, i) => {
      if (i % 2 === 0) this.nearMiss.set(d.id, set.questions[this.rng.int(set.questions.length)]!.id);
    });
  }

  /** A fixed random direction per key: the noise of a text, or the whole of an unrelated text. */
  private noiseOf(key: string): Float64Array {
    let v = this.noise.get(key);
    if (v === undefined) {
      v = direction(this.rng, this.dimensions);
      this.noise.set(key, v);
    }
    return v;
  }

  question(id: string, noise: number): number[] {
    return mix(this.dimensions, [
      [1, this.topic.get(id)!],
      [noise, this.noiseOf(`q:${id}`)],
    ]);
  }

  /** A stored fact's vector from the entries it stands for. */
  fact(factId: string, entryIds: readonly string[], noise: number): number[] {
    const topics = this.set.questions.filter((q) => q.answers.some((a) => entryIds.includes(a))).map((q) => this.topic.get(q.id)!);
    if (topics.length > 0) return mix(this.dimensions, [...topics.map((t) => [1, t] as const), [noise, this.noiseOf(`f:${factId}`)]]);
    const near = entryIds.map((e) => this.nearMiss.get(e)).find((q) => q !== undefined);
    if (near !== undefined) {
      return mix(this.dimensions, [
        [NEAR, this.topic.get(near)!],
        [1, this.noiseOf(`f:${factId}`)],
      ]);
    }
    return mix(this.dimensions, [[1, this.noiseOf(`f:${factId}`)]]);
  }

  random(key: string): number[] {
    return mix(this.dimensions, [[1, this.noiseOf(`r:${key}`)]]);
  }
}

interface Asked {
  /** Entry ids per result, best first. */
  ranked: string[][];
  answers: string[];
}

const rankOf = (a: Asked): number => a.ranked.findIndex((entries) => entries.some((e) => a.answers.includes(e)));
const hitAt = (results: readonly Asked[], k: number): number => results.filter((a) => rankOf(a) >= 0 && rankOf(a) < k).length;
const empties = (results: readonly Asked[]): number => results.filter((a) => a.ranked.length === 0).length;

async function paraphrasePart(bench: BenchDatabase): Promise<void> {
  const set = JSON.parse(readFileSync(PARAPHRASE_PATH, "utf8")) as ParaphraseSet;
  progress(`paraphrase: teaching ${set.facts.length + set.distractors.length} + ${set.unrelated.facts.length} facts (${bench.label})`);
  const fake = startFakeEmbeddings({ dimensions: QUALITY_DIMENSIONS });
  try {
    const db = bench.db;
    const main = await freshWorkspace(db, "paraphrase", KEYS);
    const unrelated = await freshWorkspace(db, "unrelated");
    const entries = [...set.facts, ...set.distractors];
    await teachAll(
      db,
      main,
      entries.map((e) => e.text),
    );
    await teachAll(
      db,
      unrelated,
      set.unrelated.facts.map((e) => e.text),
    );
    const mainFacts = await liveFacts(db, main.id);
    const unrelatedFacts = await liveFacts(db, unrelated.id);
    const entriesOf = entriesOfFacts(mainFacts, entries);
    const vectors = new ParaphraseVectors(set, QUALITY_DIMENSIONS);

    /** Pins the fake's vector of every text at this noise level. */
    const pin = (noise: number): void => {
      fake.vectors.clear();
      for (const f of mainFacts) fake.vectors.set(f.text, vectors.fact(f.id, entriesOf.get(f.id) ?? [], noise));
      for (const f of unrelatedFacts) fake.vectors.set(f.text, vectors.random(`u:${f.id}`));
      for (const q of set.questions) fake.vectors.set(q.query, vectors.question(q.id, noise));
      set.unrelated.queries.forEach((query, i) => {
        fake.vectors.set(query, vectors.random(`uq:${i}`));
      });
    };

    if (only.has("quality")) {
      const askAll = async (ctx: ServiceContext, unrelatedCtx: ServiceContext, explain = false) => {
        const asked: (Asked & { hits: SearchHit[] })[] = [];
        const latencies: number[] = [];
        for (const q of set.questions) {
          const started = performance.now();
          const result = await searchFacts(ctx, { query: q.query, limit: SEARCH_LIMIT, ...(explain && { explain: true }) });
          latencies.push(performance.now() - started);
          asked.push({ ranked: result.facts.map((f) => entriesOf.get(f.fact_id) ?? []), answers: q.answers, hits: result.facts });
        }
        let unrelatedEmpty = 0;
        for (const query of set.unrelated.queries) {
          if ((await searchFacts(unrelatedCtx, { query, limit: SEARCH_LIMIT })).facts.length === 0) unrelatedEmpty += 1;
        }
        return { asked, unrelatedEmpty, latencies };
      };

      /** The fake's vectors alone: the exact nearest stored vectors, no words; `top` is the first one's similarity. */
      const vectorAlone = async (embeddings: Embeddings): Promise<(Asked & { top: number })[]> => {
        const stored = await embeddings.semantic.vectorsOf(main.id);
        return set.questions.map((q) => {
          const hits = stored.exactNearest(Float32Array.from(fake.vectors.get(q.query)!), SEARCH_LIMIT, () => true);
          return { ranked: hits.map((h) => entriesOf.get(h.factId) ?? []), answers: q.answers, top: hits[0]?.similarity ?? Number.NaN };
        });
      };

      /** Mean cosine of a question to its answers, and to its most similar non-answer fact. */
      const similarities = (): { answer: number; bestOther: number } => {
        let answer = 0;
        let answers = 0;
        let bestOther = 0;
        for (const q of set.questions) {
          const qv = fake.vectors.get(q.query)!;
          let best = -1;
          for (const f of mainFacts) {
            const c = cosine(qv, fake.vectors.get(f.text)!);
            if ((entriesOf.get(f.id) ?? []).some((e) => q.answers.includes(e))) {
              answer += c;
              answers += 1;
            } else best = Math.max(best, c);
          }
          bestOther += best;
        }
        return { answer: answer / answers, bestOther: bestOther / set.questions.length };
      };

      // Without the endpoint: the model-free ranking (words and the meaning signal), and BM25.
      const plainIndex = new FactIndexes(db, 256 * 1024 * 1024);
      const plain = await askAll(contextOf(db, main, plainIndex), contextOf(db, unrelated, plainIndex));
      const bm25 = new Bm25(entries.map((e) => e.text));
      const bm25Unrelated = new Bm25(set.unrelated.facts.map((e) => e.text));
      const bm25Asked: Asked[] = set.questions.map((q) => ({ ranked: bm25.search(q.query, SEARCH_LIMIT).map((i) => [entries[i]!.id]), answers: q.answers }));
      const bm25UnrelatedEmpty = set.unrelated.queries.filter((query) => bm25Unrelated.search(query, SEARCH_LIMIT).length === 0).length;

      // With the endpoint, at each noise level of the sweep (the main level last, so its vectors stay).
      interface Level {
        noise: number;
        asked: (Asked & { hits: SearchHit[] })[];
        alone: (Asked & { top: number })[];
        unrelatedEmpty: number;
        latencies: number[];
        cos: { answer: number; bestOther: number };
        embedMs: number;
      }
      const levels: Level[] = [];
      for (const noise of [...SWEEP.filter((n) => n !== NOISE), NOISE]) {
        pin(noise);
        // A model name per level: the worker re-embeds every fact (the facts lacking a vector of the current model are its queue).
        const config = configFor(fake, `fake-paraphrase-${noise}`);
        const embeddings = embeddingsFor(db, config);
        const a = await embedAll(embeddings.worker, main.id);
        const b = await embedAll(embeddings.worker, unrelated.id);
        if (a.embedded !== mainFacts.length || b.embedded !== unrelatedFacts.length) {
          throw new Error(`embedded ${a.embedded} + ${b.embedded} of ${mainFacts.length} + ${unrelatedFacts.length} facts`);
        }
        const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024, { semantic: embeddings.semantic });
        const run = await askAll(contextOf(db, main, index), contextOf(db, unrelated, index), noise === NOISE);
        levels.push({ noise, ...run, alone: await vectorAlone(embeddings), cos: similarities(), embedMs: a.ms + b.ms });
        progress(`quality: noise ${noise}: answer in first 5 ${hitAt(run.asked, 5)} of ${set.questions.length}`);
      }
      const chosen = levels.at(-1)!;
      const n = set.questions.length;
      const u = set.unrelated.queries.length;
      const expected = 1 / (1 + NOISE * NOISE);

      console.log(`## 1. Paraphrase set with the fake endpoint (${bench.label}, ${QUALITY_DIMENSIONS} dimensions)\n`);
      console.log(
        `${mainFacts.length} live facts (${set.facts.length} answers, ${set.distractors.length} distractors) and ${unrelatedFacts.length} in the unrelated workspace, ` +
          `taught with teachFacts (${TEACH_BATCH} a call), embedded with EmbeddingWorker.embedBatch (batch 32) through the \`openai\` SDK; ` +
          `${n} questions searched with searchFacts, limit ${SEARCH_LIMIT}. The fake's vectors: topic + noise of norm **${NOISE}** ` +
          `(expected cosine question–answer 1/(1+${NOISE}²) = ${expected.toFixed(2)}; measured ${chosen.cos.answer.toFixed(3)}); ` +
          `${set.distractors.length / 2} distractors are near misses (random + ${NEAR} × some question's topic), the rest and the unrelated workspace random. ` +
          `Mean cosine of a question to its most similar non-answer fact: ${chosen.cos.bestOther.toFixed(3)}. Similarity floor of a vector rank (MEMORYD_EMBEDDINGS_MIN_SIMILARITY): ${VECTOR_ONLY_FLOOR}. ${load()} after the sweep.\n`,
      );
      const lat = (xs: number[]): string => {
        const s = sorted(xs);
        return `${ms(percentile(s, 50))} / ${ms(percentile(s, 95))}`;
      };
      console.log(
        "| system | answer in first 1 | first 5 | first 10 | empty results | unrelated workspace: empty (want all) | search p50 / p95 ms (in process) |",
      );
      console.log("|---|---:|---:|---:|---:|---:|---:|");
      const row = (name: string, asked: readonly Asked[], unrelatedEmpty: string, latency: string): void => {
        console.log(
          `| ${name} | ${pct(hitAt(asked, 1), n)} | ${pct(hitAt(asked, 5), n)} | ${pct(hitAt(asked, 10), n)} | ${pct(empties(asked), n)} | ${unrelatedEmpty} | ${latency} |`,
        );
      };
      row("memoryd + fake endpoint (fused)", chosen.asked, `${chosen.unrelatedEmpty} of ${u}`, lat(chosen.latencies));
      row("memoryd, no endpoint (words + meaning signal)", plain.asked, `${plain.unrelatedEmpty} of ${u}`, lat(plain.latencies));
      row("BM25 (bench/lib/bm25.ts)", bm25Asked, `${bm25UnrelatedEmpty} of ${u}`, "–");
      row("the fake's vectors alone (exact nearest, no words, no floor)", chosen.alone, "–", "–");
      console.log(
        `\nTarget: ≥ 90 % in the first five with the fake: **${hitAt(chosen.asked, 5) >= 0.9 * n ? "met" : "not met"}** (${hitAt(chosen.asked, 5)} of ${n}).\n`,
      );

      // Where the fused ranking lost an answer its vectors had first.
      const lost = chosen.asked
        .map((a, i) => ({ a, alone: chosen.alone[i]! }))
        .filter(({ a, alone }) => rankOf(alone) === 0 && (rankOf(a) < 0 || rankOf(a) >= 5));
      let dropped = 0;
      let past10 = 0;
      let sixToTen = 0;
      const above: { similarity: number; rank: number }[] = [];
      let aboveTotal = 0;
      for (const { a, alone } of lost) {
        const at = rankOf(a);
        if (at < 0 && alone.top < VECTOR_ONLY_FLOOR) {
          dropped += 1;
          continue;
        }
        if (at < 0) past10 += 1;
        else sixToTen += 1;
        for (const hit of a.hits.slice(0, at < 0 ? a.hits.length : at)) {
          aboveTotal += 1;
          const e = hit.explanation;
          if (e !== undefined && e.score > 0 && e.vector !== undefined) above.push(e.vector);
        }
      }
      const lowAbove = above.filter((v) => v.similarity < VECTOR_ONLY_FLOOR).length;
      console.log(
        `Answers the fake's vectors alone rank first but the fused list does not have in its first five: **${lost.length} of ${n}**. ` +
          `${dropped} are not returned: the answer's similarity is under the ${VECTOR_ONLY_FLOOR} floor and it shares no word with the question. ` +
          `${sixToTen} are 6th–10th and ${past10} past the 10th: of the ${aboveTotal} results ranked above them, ${above.length} were in both lists ` +
          `(found by words and among the ${FUSION_DEPTH} nearest vectors), ${lowAbove} of those with a similarity under ${VECTOR_ONLY_FLOOR} ` +
          `(median similarity ${percentile(sorted(above.map((v) => v.similarity)), 50).toFixed(3)}, median vector rank ${percentile(sorted(above.map((v) => v.rank)), 50)}): ` +
          `each such fact scores 1/(60 + word rank) + 1/(60 + vector rank), above the 1/61 of an answer found by its vector alone.\n`,
      );

      console.log("### Noise sweep (same facts, re-embedded under a model name per level)\n");
      console.log(
        "| noise | cos(question, answer) | best other cos | vectors alone: first 1 / 5 | fused: first 5 / 10 | fused: empty | unrelated empty | embed ms |",
      );
      console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (const level of sorted(levels.map((l) => l.noise)).map((noise) => levels.find((l) => l.noise === noise)!)) {
        console.log(
          `| ${level.noise}${level.noise === NOISE ? " (main)" : ""} | ${level.cos.answer.toFixed(3)} | ${level.cos.bestOther.toFixed(3)} | ` +
            `${pct(hitAt(level.alone, 1), n)} / ${pct(hitAt(level.alone, 5), n)} | ${pct(hitAt(level.asked, 5), n)} / ${pct(hitAt(level.asked, 10), n)} | ` +
            `${pct(empties(level.asked), n)} | ${level.unrelatedEmpty} of ${u} | ${Math.round(level.embedMs)} |`,
        );
      }
      console.log("");
    }

    if (only.has("failure")) {
      const model = `fake-paraphrase-${NOISE}`;
      if (!only.has("quality")) {
        pin(NOISE);
        const embeddings = embeddingsFor(db, configFor(fake, model));
        await embedAll(embeddings.worker, main.id);
      }
      await failurePart(
        db,
        bench.label,
        main,
        fake,
        set.questions.map((q) => q.query),
        model,
      );
    }
  } finally {
    await fake.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Endpoint down or hanging

async function failurePart(db: Db, label: string, ws: Workspace, fake: FakeEmbeddings, questions: readonly string[], model: string): Promise<void> {
  const queries = Array.from({ length: FAILURE_SEARCHES }, (_, i) => questions[i % questions.length]!);
  interface Scenario {
    name: string;
    timeoutMs: number | null;
    mode: "ok" | "down" | "hang";
  }
  const scenarios: Scenario[] = [
    { name: "bare baseline: no endpoint configured", timeoutMs: null, mode: "ok" },
    { name: "endpoint answering (0 ms)", timeoutMs: 1000, mode: "ok" },
    { name: "endpoint down (503)", timeoutMs: 1000, mode: "down" },
    { name: "endpoint hanging", timeoutMs: 1000, mode: "hang" },
    { name: "endpoint down (503)", timeoutMs: 200, mode: "down" },
    { name: "endpoint hanging", timeoutMs: 200, mode: "hang" },
  ];
  const baselineIds: string[][] = [];
  const lines: string[] = [];
  for (const scenario of scenarios) {
    progress(`failure: ${scenario.name}${scenario.timeoutMs === null ? "" : `, timeout ${scenario.timeoutMs} ms`}: ${queries.length} searches`);
    const config = configFor(scenario.timeoutMs === null ? null : fake, model, scenario.timeoutMs ?? 1000);
    const embeddings = scenario.timeoutMs === null ? null : embeddingsFor(db, config);
    const served = serve(db, config, embeddings?.semantic ?? null);
    try {
      fake.mode = "ok";
      for (const query of queries.slice(0, 3)) await httpSearch(served, ws, query); // builds the index and loads the vectors
      fake.mode = scenario.mode;
      const latencies: number[] = [];
      let non200 = 0;
      let sameAsBaseline = 0;
      for (const [i, query] of queries.entries()) {
        const result = await httpSearch(served, ws, query);
        latencies.push(result.ms);
        if (result.status !== 200) non200 += 1;
        if (scenario.timeoutMs === null) baselineIds.push(result.ids);
        else if (JSON.stringify(result.ids) === JSON.stringify(baselineIds[i])) sameAsBaseline += 1;
      }
      const s = sorted(latencies);
      const bound = scenario.timeoutMs === null ? null : scenario.timeoutMs + 50;
      const over = bound === null ? 0 : latencies.filter((x) => x > bound).length;
      const failures = embeddings?.semantic.stats().failures;
      lines.push(
        `| ${scenario.name} | ${scenario.timeoutMs ?? "–"} | ${latencies.length} | ${ms(percentile(s, 50))} | ${ms(percentile(s, 95))} | ${ms(s.at(-1) ?? Number.NaN)} | ` +
          `${bound === null ? "–" : `${over} (bound ${bound} ms)`} | ${scenario.timeoutMs === null ? "–" : `${sameAsBaseline} of ${latencies.length}`} | ` +
          `${failures === undefined ? "–" : `timeout ${failures.timeout}, unavailable ${failures.unavailable}`} | ${non200} | ` +
          `${bound === null || scenario.mode === "ok" ? "–" : over === 0 ? "yes" : "**no**"} |`,
      );
    } finally {
      fake.mode = "ok";
      await served.stop();
    }
  }
  console.log(
    `## 2. Endpoint down or hanging (${label}: the paraphrase workspace, ${queries.length} searches each over HTTP, 1 connection, limit ${SEARCH_LIMIT})\n`,
  );
  console.log(
    `Each app listens in this process, as does the fake; 3 searches with the endpoint answering before each row (index build, vectors load), then the endpoint's mode set. ` +
      `"Results equal": the same facts in the same order as the bare baseline's answer to the same query. ${load()} at the end.\n`,
  );
  console.log(
    "| endpoint | timeout ms | searches | p50 ms | p95 ms | max ms | over timeout + 50 ms | results equal to the baseline's | failures counted | non-200 | every search within timeout + 50 ms |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|");
  for (const line of lines) console.log(line);
  console.log("");
}

// ---------------------------------------------------------------------------------------------
// 3-5. At scale: HTTP latency, memory, recall of the shortlist

function openDatabase(): Promise<BenchDatabase> {
  return pgAdminUrl === undefined ? openBenchDatabase() : openBenchDatabase({ adminUrl: pgAdminUrl, name: PG_DATABASE, maxConnections: 10 });
}

async function scalePart(bench: BenchDatabase): Promise<void> {
  const fake = startFakeEmbeddings({ dimensions: SCALE_DIMENSIONS });
  const served: Served[] = [];
  try {
    const db = bench.db;
    const ws = await freshWorkspace(db, "scale", KEYS);
    const cast = makeCast(SEED);
    const stream = factStream(SEED, cast);
    // Capture drops duplicates and supersedes changed claims: texts are taught until the
    // workspace holds `SCALE_FACTS` live facts.
    const texts: string[] = [];
    let teachMs = 0;
    let live = 0;
    progress(`scale: teaching synthetic facts until ${SCALE_FACTS} are live (${bench.label})`);
    while (live < SCALE_FACTS) {
      const chunk = Array.from(
        { length: Math.min(5_000, Math.max(TEACH_BATCH, Math.ceil((SCALE_FACTS - live) * 1.15))) },
        () => (stream.next().value as SynthFact).text,
      );
      teachMs += await teachAll(db, ws, chunk);
      texts.push(...chunk);
      const [row] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts WHERE workspace_id = ${ws.id} AND superseded_by IS NULL`;
      live = row?.n ?? 0;
      progress(`scale: taught ${texts.length}, ${live} live`);
    }
    const config = configFor(fake, "fake-768");
    const embeddings = embeddingsFor(db, config);
    progress(`scale: embedding ${live} live facts at ${SCALE_DIMENSIONS} dimensions`);
    const embedded = await embedAll(embeddings.worker, ws.id, (done) => {
      if (done % 5000 < config.embeddingsBatch) progress(`scale: embedded ${done}`);
    });

    // 3. HTTP, with the endpoint answering in 5 ms and without an endpoint, same facts.
    const withEndpoint = serve(db, config, embeddings.semantic);
    served.push(withEndpoint);
    const bare = serve(db, configFor(null, ""), null);
    served.push(bare);
    const queries = makeQueries(SEED, cast, HTTP_SEARCHES);
    fake.delayMs = ENDPOINT_DELAY_MS;
    const first = { with: (await httpSearch(withEndpoint, ws, queries[0]!)).ms, bare: (await httpSearch(bare, ws, queries[0]!)).ms };
    for (const query of queries.slice(0, 50)) {
      await httpSearch(withEndpoint, ws, query);
      await httpSearch(bare, ws, query);
    }
    progress(`scale: ${queries.length} searches over HTTP each, with and without the endpoint`);
    const latencies = { with: [] as number[], bare: [] as number[] };
    let non200 = 0;
    let emptyWith = 0;
    let emptyBare = 0;
    for (let block = 0; block < queries.length; block += 50) {
      for (const [name, target] of [
        ["with", withEndpoint],
        ["bare", bare],
      ] as const) {
        for (const query of queries.slice(block, block + 50)) {
          const result = await httpSearch(target, ws, query);
          latencies[name].push(result.ms);
          if (result.status !== 200) non200 += 1;
          if (result.ids.length === 0) {
            if (name === "with") emptyWith += 1;
            else emptyBare += 1;
          }
        }
      }
    }
    // The endpoint's share: the query's vector alone, in process, through the same client and
    // timeout (the client itself: SemanticSearch would answer most of these from its cache).
    const vectorOnly: number[] = [];
    for (const query of queries.slice(0, 200)) {
      const started = performance.now();
      await embeddings.semantic.client.embedQuery(query, config.embeddingsTimeoutMs);
      vectorOnly.push(performance.now() - started);
    }
    const distinct = new Set(queries).size;
    // A fresh app's first search (empty caches): the index is built and the workspace's vectors
    // loaded while the query waits, whatever the endpoint does.
    const coldFirst: { name: string; ms: number; bound: number | null }[] = [];
    for (const mode of ["none", "ok", "down", "hang"] as const) {
      const coldConfig = mode === "none" ? configFor(null, "") : config;
      const fresh = serve(db, coldConfig, mode === "none" ? null : embeddingsFor(db, coldConfig).semantic);
      fake.mode = mode === "none" ? "ok" : mode;
      try {
        const result = await httpSearch(fresh, ws, queries[1]!);
        if (result.status !== 200) non200 += 1;
        coldFirst.push({
          name:
            mode === "none"
              ? "no endpoint"
              : mode === "ok"
                ? `endpoint answering in ${ENDPOINT_DELAY_MS} ms`
                : `endpoint ${mode === "down" ? "down (503)" : "hanging"}`,
          ms: result.ms,
          bound: mode === "down" || mode === "hang" ? config.embeddingsTimeoutMs + 50 : null,
        });
      } finally {
        fake.mode = "ok";
        await fresh.stop();
      }
    }
    fake.delayMs = 0;
    // The ranking's share: the same queries ranked in process over the current index, with the
    // fake's query vector (lexical ranking + fusion) and without (no HTTP, no endpoint).
    const set = await embeddings.semantic.vectorsOf(ws.id);
    const index = await new FactIndexes(db, config.indexMemoryMb * 1024 * 1024).read(ws.id, null);
    const visibility = visibilityFor(callerOf({ ...ws.auth, factSeq: null }, "rest"), null);
    const fusedMs: number[] = [];
    const plainMs: number[] = [];
    for (const query of queries.slice(0, 200)) {
      const semantic = { query: Float32Array.from(fake.vectorOf(`search_query: ${query}`)), vectors: set, minSimilarity: VECTOR_ONLY_FLOOR };
      let t = performance.now();
      searchIndex(index, visibility, { query, limit: SEARCH_LIMIT }, undefined, Date.now(), semantic);
      fusedMs.push(performance.now() - t);
      t = performance.now();
      searchIndex(index, visibility, { query, limit: SEARCH_LIMIT });
      plainMs.push(performance.now() - t);
    }
    const w = sorted(latencies.with);
    const b = sorted(latencies.bare);
    const v = sorted(vectorOnly);
    console.log(`## 3. Search over HTTP at ${live.toLocaleString("en")} facts, endpoint answering in ${ENDPOINT_DELAY_MS} ms (${bench.label})\n`);
    console.log(
      `${texts.length.toLocaleString("en")} synthetic facts (bench/support/synth.ts, seed "${SEED}", taught until ${SCALE_FACTS.toLocaleString("en")} were live) taught with teachFacts, ${TEACH_BATCH} a call, in ` +
        `${(teachMs / 1000).toFixed(1)} s (${live.toLocaleString("en")} live); embedded at ${SCALE_DIMENSIONS} dimensions with EmbeddingWorker.embedBatch ` +
        `(batch ${config.embeddingsBatch}, fake delay 0) in ${(embedded.ms / 1000).toFixed(1)} s = ${Math.round((embedded.embedded / embedded.ms) * 1000)} facts/s. ` +
        `${queries.length} queries from makeQueries, limit ${SEARCH_LIMIT}, one connection (\`fetch\`, keep-alive), in blocks of 50 alternating between the two apps ` +
        `(both listening in this process, as is the fake endpoint), after 50 unreported searches each. ${distinct} of the ${queries.length} queries are distinct: ` +
        `a repeated one takes its vector from the cache. ${KEYS} keys in rotation. ${load()} after the searches.\n`,
    );
    console.log("| app | searches | p50 ms | p95 ms | max ms | empty results | first search (index build + vectors load) ms |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    console.log(
      `| with the endpoint (${ENDPOINT_DELAY_MS} ms) | ${w.length} | **${ms(percentile(w, 50))}** | ${ms(percentile(w, 95))} | ${ms(w.at(-1)!)} | ${emptyWith} | ${Math.round(first.with)} |`,
    );
    console.log(
      `| bare baseline: no endpoint, same facts | ${b.length} | ${ms(percentile(b, 50))} | ${ms(percentile(b, 95))} | ${ms(b.at(-1)!)} | ${emptyBare} | ${Math.round(first.bare)} |`,
    );
    console.log(
      `| the query's vector alone (EmbeddingClient.embedQuery, in process, no cache) | ${v.length} | ${ms(percentile(v, 50))} | ${ms(percentile(v, 95))} | ${ms(v.at(-1)!)} | – | – |`,
    );
    for (const [name, xs] of [
      ["in process: searchIndex with the query's vector (words + fusion over the vectors)", sorted(fusedMs)],
      ["in process: searchIndex without", sorted(plainMs)],
    ] as const) {
      console.log(`| ${name} | ${xs.length} | ${ms(percentile(xs, 50))} | ${ms(percentile(xs, 95))} | ${ms(xs.at(-1)!)} | – | – |`);
    }
    console.log("\n| a fresh app's first search (index built, vectors loaded) | ms | within timeout + 50 ms |");
    console.log("|---|---:|---|");
    for (const c of coldFirst) {
      console.log(`| ${c.name} | ${Math.round(c.ms)} | ${c.bound === null ? "–" : c.ms <= c.bound ? "yes" : `**no** (bound ${c.bound} ms)`} |`);
    }
    console.log(
      `\nnon-200 responses: ${non200}. Target p50 ≤ 8 ms with the endpoint: **${percentile(w, 50) <= 8 ? "met" : "not met"}** ` +
        `(${ms(percentile(w, 50))} ms; ${ms(percentile(w, 50) - percentile(b, 50))} ms over the bare baseline's p50).\n`,
    );

    // 4. Memory per fact.
    const coldSemantic = new SemanticSearch(db, embeddings.client, log, {
      timeoutMs: 1000,
      minSimilarity: VECTOR_ONLY_FLOOR,
      budgetBytes: Number.POSITIVE_INFINITY,
    });
    const loadStarted = performance.now();
    const cold = await coldSemantic.vectorsOf(ws.id);
    const loadMs = performance.now() - loadStarted;
    const words = Math.ceil(set.dimensions / 32);
    const nominal = set.dimensions + 4 + words * 4;
    const [rows] = await db.sql<{ n: number; column: number; octets: number; row: number }>`
      SELECT count(*)::int AS n, avg(pg_column_size(v.vector))::float8 AS column, avg(octet_length(v.vector))::float8 AS octets,
             avg(pg_column_size(v.*))::float8 AS row
        FROM fact_vectors v WHERE v.workspace_id = ${ws.id}`;
    const [sizes] = await db.sql<{ total: number; heap: number; indexes: number; toast: number; all_rows: number }>`
      SELECT pg_total_relation_size('fact_vectors')::float8 AS total, pg_relation_size('fact_vectors')::float8 AS heap,
             pg_indexes_size('fact_vectors')::float8 AS indexes,
             coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)::float8 AS toast,
             (SELECT count(*) FROM fact_vectors)::float8 AS all_rows
        FROM pg_class c WHERE c.oid = 'fact_vectors'::regclass`;
    const perRow = (x: number): string => Math.round(x / (sizes?.all_rows || 1)).toLocaleString("en");
    console.log(`## 4. Memory per fact at ${SCALE_DIMENSIONS} dimensions (${set.size.toLocaleString("en")} vectors)\n`);
    console.log("| where | bytes per fact | how |");
    console.log("|---|---:|---|");
    console.log(
      `| VectorSet.bytes() / size, in memory | ${Math.round(set.bytes() / set.size).toLocaleString("en")} | ${set.bytes().toLocaleString("en")} B / ${set.size} (arrays at their allocated capacity, plus 64 B an id) |`,
    );
    console.log(
      `| the same, arrays at exactly size | ${(nominal + 64).toLocaleString("en")} | int8 ${set.dimensions} + scale 4 + sign bits ${words * 4} = ${nominal}, plus the 64 B an id bytes() counts |`,
    );
    console.log(
      `| database: vector column (pg_column_size) | ${Math.round(rows?.column ?? 0).toLocaleString("en")} | octet_length ${Math.round(rows?.octets ?? 0)} (float32 × ${set.dimensions}) |`,
    );
    console.log(`| database: whole row (pg_column_size of the row) | ${Math.round(rows?.row ?? 0).toLocaleString("en")} | ${rows?.n} rows of this workspace |`);
    console.log(
      `| database: fact_vectors with its indexes and TOAST (pg_total_relation_size / rows) | ${perRow(sizes?.total ?? 0)} | heap ${perRow(sizes?.heap ?? 0)}, TOAST ${perRow(sizes?.toast ?? 0)}, indexes ${perRow(sizes?.indexes ?? 0)} |`,
    );
    console.log(
      `\nLoading the workspace's ${cold.size.toLocaleString("en")} vectors into a fresh SemanticSearch (vectorsSince, decode, quantise): ${Math.round(loadMs)} ms.\n`,
    );

    // 5. Recall of the shortlist against the exact scan.
    recallPart(set, fake, makeQueries(`${SEED}:recall`, cast, RECALL_QUERIES), texts);
  } finally {
    for (const s of served) await s.stop();
    await fake.stop();
  }
}

function recallPart(set: VectorSet, fake: FakeEmbeddings, queries: readonly string[], factTexts: readonly string[]): void {
  const rng = new Rng(`${SEED}:recall-facts`);
  const kinds = [
    { name: "search queries (makeQueries), the fake's vectors", vectors: queries.map((q) => Float32Array.from(fake.vectorOf(`search_query: ${q}`))) },
    {
      name: "a stored fact's text as the query",
      vectors: queries.map(() => Float32Array.from(fake.vectorOf(`search_document: ${factTexts[rng.int(factTexts.length)]!}`))),
    },
  ];
  const all = (): boolean => true;
  const lines: string[] = [];
  for (const kind of kinds) {
    for (const k of [10, FUSION_DEPTH]) {
      let overlap = 0;
      let full = 0;
      let worst = 1;
      const approxMs: number[] = [];
      const exactMs: number[] = [];
      for (const query of kind.vectors) {
        let t = performance.now();
        const approx = set.nearest(query, k, all);
        approxMs.push(performance.now() - t);
        t = performance.now();
        const exact = set.exactNearest(query, k, all);
        exactMs.push(performance.now() - t);
        const wanted = new Set(exact.map((h) => h.factId));
        const found = approx.filter((h) => wanted.has(h.factId)).length;
        const recall = exact.length === 0 ? 1 : found / exact.length;
        overlap += recall;
        if (recall === 1) full += 1;
        worst = Math.min(worst, recall);
      }
      const a = sorted(approxMs);
      const e = sorted(exactMs);
      lines.push(
        `| ${kind.name} | ${k} | ${kind.vectors.length} | **${((100 * overlap) / kind.vectors.length).toFixed(1)}** | ${pct(full, kind.vectors.length)} | ${(100 * worst).toFixed(0)} | ` +
          `${ms(percentile(a, 50))} / ${ms(percentile(a, 95))} | ${ms(percentile(e, 50))} / ${ms(percentile(e, 95))} |`,
      );
    }
  }
  console.log(`## 5. Recall of the sign-bit shortlist at ${set.size.toLocaleString("en")} vectors, ${set.dimensions} dimensions\n`);
  console.log(
    `VectorSet.nearest (past ${EXACT_UP_TO.toLocaleString("en")} vectors: Hamming distance of the sign bits picks max(1,000, 20 k) candidates, scored exactly) ` +
      `against exactNearest (every vector scored) over the same set, in process, every fact accepted. ${load()} at the end.\n`,
  );
  console.log("| queries | k | queries | recall@k % | queries with every one found % | worst query % | nearest p50 / p95 ms | exactNearest p50 / p95 ms |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const line of lines) console.log(line);
  console.log("");
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
console.log(`# Embeddings endpoint (issue 37), ${new Date().toISOString()}\n`);
console.log(`${provenance().join("; ")}; ${cpus().length} × ${cpus()[0]?.model ?? "?"}; ${load()}${quick ? "; --quick" : ""}\n`);
const database = await openDatabase();
try {
  if (only.has("quality") || only.has("failure")) await paraphrasePart(database);
  if (only.has("scale")) await scalePart(database);
} finally {
  await database.close();
}
console.log(`Run time ${((performance.now() - started) / 1000).toFixed(0)} s; ${load()} at the end.`);
