/**
 * The embedding worker (src/embeddings/worker.ts, store.ts) on real databases, through memoryd's
 * embeddings client against the fake endpoint: every live fact gets exactly one vector of the
 * configured model, an endpoint that fails loses nothing and holds nothing, a text the endpoint
 * refuses is given up after being refused alone `maxAttempts` times, a model change replaces the
 * old vectors, instances share the queue without embedding a fact twice, the background loop
 * embeds what is taught and stops cleanly, and deleted or forgotten facts leave no vector behind.
 *
 * Each test runs on its own database (the worker's queue is every workspace's live facts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { AnswerEngine } from "../../src/answers/engine";
import { createApp, type App } from "../../src/app";
import { createWorkspace } from "../../src/auth/workspaces";
import { insertFacts, markSuperseded, type NewFactRow } from "../../src/capture/store";
import type { Config } from "../../src/config";
import { openPostgres } from "../../src/db/postgres";
import type { Db } from "../../src/db/types";
import { EmbeddingClient } from "../../src/embeddings/client";
import { createEmbeddings, type Embeddings } from "../../src/embeddings/setup";
import { decodeVector, leaseFactsToEmbed, storeVectors, vectorCounts } from "../../src/embeddings/store";
import { EmbeddingWorker, type BatchOutcome, type EmbeddingWorkerOptions } from "../../src/embeddings/worker";
import { sortableId } from "../../src/ids";
import { createLogger } from "../../src/log";
import { nextFactSeq } from "../../src/memory/changes";
import { FactIndexes } from "../../src/memory/index/registry";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, testConfig, uniqueSlug, type TestKey } from "../helpers/app";
import { describeEachDb, type TestDatabase } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";

const MODEL = "fake-embed";
const QUERY_PREFIX = "search_query: ";
const DOCUMENT_PREFIX = "search_document: ";
const log = createLogger("silent");

function clientFor(fake: FakeEmbeddings, model = MODEL): EmbeddingClient {
  return new EmbeddingClient({ baseURL: fake.url, model, queryPrefix: QUERY_PREFIX, documentPrefix: DOCUMENT_PREFIX });
}

function workerFor(db: Db, client: EmbeddingClient, options: Partial<EmbeddingWorkerOptions> = {}): EmbeddingWorker {
  return new EmbeddingWorker(db, client, log, { batch: 8, timeoutMs: 10_000, ...options });
}

/** The app as `serve` builds it with an embeddings endpoint (search ranks by its vectors too). */
function semanticApp(db: Db, fake: FakeEmbeddings, model = MODEL): { app: App; embeddings: Embeddings } {
  const config: Config = testConfig({
    embeddingsUrl: fake.url,
    embeddingsModel: model,
    embeddingsTimeoutMs: 5_000,
    embeddingsQueryPrefix: QUERY_PREFIX,
    embeddingsDocumentPrefix: DOCUMENT_PREFIX,
  });
  const embeddings = createEmbeddings(config, db, log, { queryFailed: () => {}, batchDone: () => {} });
  if (embeddings === null) throw new Error("embeddings not configured");
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024, { semantic: embeddings.semantic });
  return { app: createApp({ config, db, log, index, engine: new AnswerEngine({ db, index, config, log }) }), embeddings };
}

/** embedBatch until nothing waits; every outcome, in order. A bound keeps a bug from looping forever. */
async function embedUntilDone(worker: EmbeddingWorker, workspaceId?: string): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (let round = 0; round < 1_000; round++) {
    const outcome = await worker.embedBatch(workspaceId === undefined ? {} : { workspaceId });
    if (outcome.leased === 0) return outcomes;
    outcomes.push(outcome);
  }
  throw new Error("the queue never emptied");
}

/** Polls `check` until it holds; `deadlineMs` is a generous upper bound, not an expected time. */
async function until(what: string, check: () => Promise<boolean>, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

async function workspaceId(db: Db, slug: string): Promise<string> {
  const [row] = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${slug}`;
  return row!.id;
}

async function teach(app: App, key: TestKey, texts: readonly string[], endUser?: string): Promise<void> {
  for (let i = 0; i < texts.length; i += 20) {
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: texts.slice(i, i + 20).map((text) => ({ text })), ...(endUser !== undefined && { end_user: { id: endUser } }) },
    });
    expect(taught.status).toBe(202);
    expect(taught.json.data.created).toBe(Math.min(20, texts.length - i));
  }
}

/** Stores workspace facts directly, as capture would, ids in the order given (the order the queue takes them). */
async function insertRaw(db: Db, workspace: string, texts: readonly string[], endUserId: string | null = null): Promise<string[]> {
  const rows: NewFactRow[] = texts.map((text) => ({
    id: sortableId("fact"),
    text,
    normalized: text.toLowerCase(),
    kind: "observation",
    origin: "user_stated",
    subject: endUserId ?? "workspace",
    subjectType: endUserId === null ? "workspace" : "end_user",
    endUserId,
    agent: null,
    confidence: 0.8,
    recordedAt: new Date(),
    expiresAt: null,
    sensitive: false,
    pinned: false,
    claimKey: null,
    claimSubject: null,
    claimValue: null,
    claimNegated: false,
  }));
  await db.transaction(async (tx) => insertFacts(tx, workspace, await nextFactSeq(tx, workspace), rows));
  return rows.map((r) => r.id);
}

async function supersede(db: Db, workspace: string, oldId: string, newId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await markSuperseded(tx, await nextFactSeq(tx, workspace), [{ oldId, newId }]);
  });
}

interface VectorRow {
  fact_id: string;
  model: string;
  dimensions: number;
  vector: Uint8Array | null;
}

async function vectorRows(db: Db, workspace: string): Promise<VectorRow[]> {
  return db.sql<VectorRow>`SELECT fact_id, model, dimensions, vector FROM fact_vectors WHERE workspace_id = ${workspace} ORDER BY fact_id, model`;
}

async function liveFacts(db: Db, workspace: string): Promise<{ id: string; text: string }[]> {
  return db.sql<{ id: string; text: string }>`SELECT id, text FROM facts WHERE workspace_id = ${workspace} AND superseded_by IS NULL ORDER BY id`;
}

async function leaseCount(db: Db): Promise<number> {
  const [row] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM embedding_leases`;
  return row!.n;
}

/** The fact texts the fake was asked to embed (query embeddings left out), prefixes stripped. */
const documentTexts = (fake: FakeEmbeddings): string[] =>
  fake.requests.flat().flatMap((t) => (t.startsWith(DOCUMENT_PREFIX) ? [t.slice(DOCUMENT_PREFIX.length)] : []));

const countOf = (items: readonly string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
};

/** One database per test (its own `describe`), one fake endpoint per test. */
function eachDb(name: string, body: (get: () => TestDatabase, fake: () => FakeEmbeddings) => Promise<void>, timeoutMs = 60_000): void {
  describeEachDb(`embedding worker: ${name}`, (get) => {
    let fake: FakeEmbeddings;
    beforeAll(() => {
      fake = startFakeEmbeddings({ dimensions: 48 });
    });
    afterAll(async () => {
      await fake.stop();
    });
    test(name, () => body(get, () => fake), timeoutMs);
  });
}

eachDb("every live fact gets exactly one vector of the model, of the endpoint's dimension; superseded facts get none", async (get, fakeOf) => {
  const { db } = get();
  const fake = fakeOf();
  const key = await makeKey(db);
  const ws = await workspaceId(db, key.workspace);
  const app = testApp(db);
  await teach(
    app,
    key,
    Array.from({ length: 30 }, (_, i) => `Parcel ${i} is kept on shelf ${(i * 7) % 13} of aisle ${String.fromCharCode(65 + (i % 5))}.`),
  );
  const [oldId] = await insertRaw(db, ws, ["The backup window opens at 02:00."]);
  const [newId] = await insertRaw(db, ws, ["The backup window opens at 03:00."]);
  await supersede(db, ws, oldId!, newId!);

  const live = await liveFacts(db, ws);
  expect(live).toHaveLength(31);
  const outcomes = await embedUntilDone(workerFor(db, clientFor(fake)));
  expect(outcomes.every((o) => o.failed === null && o.refused === 0 && o.leased <= 8)).toBe(true);
  expect(outcomes.reduce((n, o) => n + o.embedded, 0)).toBe(31);

  const rows = await vectorRows(db, ws);
  expect(rows.map((r) => r.fact_id)).toEqual(live.map((f) => f.id));
  for (const [i, row] of rows.entries()) {
    expect(row.model).toBe(MODEL);
    expect(row.dimensions).toBe(fake.dimensions);
    expect(row.vector).not.toBeNull();
    const vector = decodeVector(row.vector!);
    expect(vector).toHaveLength(fake.dimensions);
    // The stored vector is what the endpoint answered for this fact's text (float32).
    const expected = fake.vectorOf(`${DOCUMENT_PREFIX}${live[i]!.text}`);
    for (let d = 0; d < vector.length; d++) expect(vector[d]!).toBeCloseTo(expected[d]!, 5);
  }
  expect(rows.some((r) => r.fact_id === oldId)).toBe(false);
  // Each live text was sent once, the superseded one never.
  const sent = countOf(documentTexts(fake));
  expect(sent.size).toBe(31);
  for (const fact of live) expect(sent.get(fact.text)).toBe(1);
  expect(sent.has("The backup window opens at 02:00.")).toBe(false);
  expect(await leaseCount(db)).toBe(0);
  expect(await vectorCounts(db, MODEL, ws)).toEqual({ live_facts: 31, with_vectors: 31, refused: 0, other_models: 0 });
});

for (const [mode, failure] of [
  ["down", "unavailable"],
  ["hang", "timeout"],
  ["garbage", "garbage"],
] as const) {
  eachDb(`endpoint ${mode}: the batch fails, its leases end at once, nothing is stored; back up, the next batch embeds them`, async (get, fakeOf) => {
    const { db } = get();
    const fake = fakeOf();
    const key = await makeKey(db);
    const ws = await workspaceId(db, key.workspace);
    await teach(testApp(db), key, ["Dana's favourite colour is teal.", "The office closes at six on Fridays.", "Invoices are due on the first."]);
    // A short request timeout only where the endpoint hangs: the other modes answer at once.
    const worker = workerFor(db, clientFor(fake), { timeoutMs: mode === "hang" ? 300 : 10_000 });

    fake.mode = mode;
    const failed = await worker.embedBatch();
    expect(failed.leased).toBe(3);
    expect(failed.embedded).toBe(0);
    expect(failed.failed?.failure).toBe(failure);
    expect(await vectorRows(db, ws)).toEqual([]);
    // Released, not held for the lease's 60 s, and not counted as a refusal of any fact.
    const leases = await db.sql<{ ended: boolean; attempts: number }>`SELECT lease_until <= now() AS ended, attempts FROM embedding_leases`;
    expect(leases).toHaveLength(3);
    expect(leases.every((l) => l.ended && l.attempts === 0)).toBe(true);
    // So the very next batch takes the same facts again.
    const again = await worker.embedBatch();
    expect(again.leased).toBe(3);
    expect(again.failed?.failure).toBe(failure);

    fake.mode = "ok";
    const outcomes = await embedUntilDone(worker);
    expect(outcomes.map((o) => [o.embedded, o.failed])).toEqual([[3, null]]);
    const rows = await vectorRows(db, ws);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.model === MODEL && r.vector !== null)).toBe(true);
    expect(await leaseCount(db)).toBe(0);
  });
}

eachDb(
  "a text the endpoint refuses is given up only after being refused alone maxAttempts times, and never leased again; the batch's other facts get vectors",
  async (get, fakeOf) => {
    const { db } = get();
    const fake = fakeOf();
    const ws = (await createWorkspace(db, uniqueSlug("refuse"), 0)).id;
    // Refused texts first and in the middle, so that facts after them wait on their retries.
    const texts = [
      "The REFUSE rota starts on Monday.",
      "The lobby plant needs water weekly.",
      "The REFUSE bins go out on Tuesday.",
      "Kai prefers the window seat.",
      "The printer on floor two jams often.",
    ];
    const ids = await insertRaw(db, ws, texts);
    fake.mode = "refuse";
    const maxAttempts = 3;
    const worker = workerFor(db, clientFor(fake), { maxAttempts });
    const outcomes = await embedUntilDone(worker, ws);
    expect(outcomes.reduce((n, o) => n + o.refused, 0)).toBe(2);
    expect(outcomes.reduce((n, o) => n + o.embedded, 0)).toBe(3);
    // A refusal is not an endpoint failure: only the refusals of a text alone are counted.
    expect(outcomes.every((o) => o.failed === null || o.failed.failure === "refused")).toBe(true);

    const rows = new Map((await vectorRows(db, ws)).map((r) => [r.fact_id, r]));
    expect(rows.size).toBe(5);
    for (const [i, text] of texts.entries()) {
      const row = rows.get(ids[i]!)!;
      expect(row.model).toBe(MODEL);
      if (text.includes("REFUSE")) {
        expect(row.vector).toBeNull();
      } else {
        expect(row.vector).not.toBeNull();
        expect(row.dimensions).toBe(fake.dimensions);
      }
    }
    // Each refused text was asked alone exactly maxAttempts times before it was given up.
    const alone = countOf(fake.requests.filter((r) => r.length === 1).map((r) => r[0]!));
    for (const text of texts.filter((t) => t.includes("REFUSE"))) expect(alone.get(`${DOCUMENT_PREFIX}${text}`)).toBe(maxAttempts);
    expect(await vectorCounts(db, MODEL, ws)).toEqual({ live_facts: 5, with_vectors: 3, refused: 2, other_models: 0 });

    // Never leased again, even from the start of the queue with the endpoint answering.
    fake.mode = "ok";
    const asked = fake.requests.length;
    expect((await worker.embedBatch({ workspaceId: ws })).leased).toBe(0);
    expect(await leaseFactsToEmbed(db, MODEL, { limit: 100, afterId: "", leaseSeconds: 60, workspaceId: ws })).toEqual([]);
    expect(fake.requests.length).toBe(asked);
    expect(await leaseCount(db)).toBe(0);
  },
);

describeEachDb("embedding worker: a model change re-embeds every fact with the new model and drops the old model's vectors", (get) => {
  let fakeA: FakeEmbeddings;
  let fakeB: FakeEmbeddings;
  beforeAll(() => {
    // Two models that disagree: to A pottery is a hobby, to B chess is. Different dimensions too.
    fakeA = startFakeEmbeddings({ dimensions: 32, concepts: [["hobby", "pottery"]] });
    fakeB = startFakeEmbeddings({ dimensions: 48, concepts: [["hobby", "chess"]] });
  });
  afterAll(async () => {
    await Promise.all([fakeA.stop(), fakeB.stop()]);
  });

  test("model A's vectors go, model B's come, and search ranks by B's", async () => {
    const { db } = get();
    const key = await makeKey(db);
    const ws = await workspaceId(db, key.workspace);
    const a = semanticApp(db, fakeA, "model-a");
    await teach(a.app, key, ["I go to a pottery class every Thursday.", "I play chess on Sundays.", "Invoices are due on the first."]);
    // A fact embedded by A, then superseded: B never embeds it, so only dropping other models removes A's vector.
    const [oldId] = await insertRaw(db, ws, ["The standup is at 09:30."]);
    await embedUntilDone(workerFor(db, clientFor(fakeA, "model-a")));
    const [newId] = await insertRaw(db, ws, ["The standup is at 10:00."]);
    await supersede(db, ws, oldId!, newId!);
    const rowsA = await vectorRows(db, ws);
    expect(rowsA).toHaveLength(4);
    expect(rowsA.every((r) => r.model === "model-a" && r.dimensions === 32)).toBe(true);
    const hobbiesA = await call(a.app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "what hobbies do I have?", limit: 5 } });
    expect(hobbiesA.json.data.facts[0].fact_text).toBe("I go to a pottery class every Thursday.");

    // The operator configures model B: its worker starts as `serve` starts it.
    const b = semanticApp(db, fakeB, "model-b");
    b.embeddings.worker.start();
    try {
      await until("model B's vectors and no model A's", async () => {
        const rows = await vectorRows(db, ws);
        return rows.length === 4 && rows.every((r) => r.model === "model-b");
      });
    } finally {
      await b.embeddings.worker.stop();
    }
    const live = await liveFacts(db, ws);
    const rowsB = await vectorRows(db, ws);
    expect(rowsB.map((r) => r.fact_id)).toEqual(live.map((f) => f.id));
    expect(rowsB.every((r) => r.dimensions === 48 && r.vector !== null)).toBe(true);
    expect(await vectorCounts(db, "model-b")).toMatchObject({ live_facts: 4, with_vectors: 4, other_models: 0 });

    const hobbiesB = await call(b.app, "POST", "/v1/memory/search", {
      key: key.secret,
      body: { query: "what hobbies do I have?", limit: 5, explain: true },
    });
    expect(hobbiesB.status).toBe(200);
    expect(hobbiesB.json.data.facts[0].fact_text).toBe("I play chess on Sundays.");
    expect(hobbiesB.json.data.facts[0].explanation.vector.rank).toBe(1);
    expect(hobbiesB.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).not.toContain("I go to a pottery class every Thursday.");
  });
});

describeEachDb("embedding worker: instances share the queue", (get, kind) => {
  let fake: FakeEmbeddings;
  const pools: Db[] = [];
  beforeAll(() => {
    fake = startFakeEmbeddings({ dimensions: 16 });
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await fake.stop();
  });

  test("four workers leasing in a loop while facts keep arriving: every fact is embedded exactly once and none is left", async () => {
    const { db, config } = get();
    // PostgreSQL: each instance its own pool. The embedded database has one connection, shared.
    const dbs =
      kind === "postgres"
        ? Array.from({ length: 4 }, () => {
            const pool = openPostgres({ url: config.databaseUrl!, maxConnections: 2 });
            pools.push(pool);
            return pool;
          })
        : [db, db, db, db];
    const ws = (await createWorkspace(db, uniqueSlug("share"), 0)).id;
    // Small batches and no watermark (every scan from the first fact): many leases race for the same
    // facts. On PostgreSQL this caught a scan that began before another instance's lease committed
    // re-leasing the fact once that instance had stored its vector (leaseFactsToEmbed's lock).
    const workers = dbs.map((d) => workerFor(d, clientFor(fake), { batch: 2 }));
    // Fewer on the embedded database: its one connection runs every scan in turn.
    const texts = Array.from({ length: kind === "postgres" ? 1_000 : 240 }, (_, i) => `Ticket ${i} was opened by team ${i % 9} about service ${(i * 5) % 17}.`);

    let producing = true;
    const embeddedBy = workers.map(() => 0);
    const loop = async (w: number): Promise<void> => {
      for (;;) {
        const outcome = await workers[w]!.embedBatch();
        if (outcome.failed !== null) throw outcome.failed;
        embeddedBy[w]! += outcome.embedded;
        if (outcome.leased === 0) {
          if (!producing) return;
          await Bun.sleep(1);
        }
      }
    };
    const produce = async (): Promise<void> => {
      try {
        for (let i = 0; i < texts.length; i += 12) await insertRaw(db, ws, texts.slice(i, i + 12));
      } finally {
        producing = false;
      }
    };
    await Promise.all([produce(), ...workers.map((_, w) => loop(w))]);

    // No text was sent twice: a fact leased by one instance is never leased by another.
    const sent = countOf(documentTexts(fake));
    expect([...sent].filter(([, n]) => n > 1)).toEqual([]);
    expect(sent.size).toBe(texts.length);
    expect(embeddedBy.reduce((a, b) => a + b, 0)).toBe(texts.length);
    const rows = await vectorRows(db, ws);
    expect(rows).toHaveLength(texts.length);
    expect(new Set(rows.map((r) => r.fact_id)).size).toBe(texts.length);
    expect(rows.every((r) => r.model === MODEL && r.vector !== null)).toBe(true);
    expect(await leaseCount(db)).toBe(0);
    expect(await leaseFactsToEmbed(db, MODEL, { limit: 10, afterId: "", leaseSeconds: 60 })).toEqual([]);
  }, 120_000);
});

eachDb("the background loop embeds a fact taught through the app, and stop() waits for the request under way", async (get, fakeOf) => {
  const { db } = get();
  const fake = fakeOf();
  const key = await makeKey(db);
  const ws = await workspaceId(db, key.workspace);
  const app = testApp(db);
  const batches: BatchOutcome[] = [];
  const worker = new EmbeddingWorker(db, clientFor(fake), log, { batch: 8, timeoutMs: 10_000, pollMs: 20 }, (outcome) => batches.push(outcome));
  worker.start();
  let stopped = false;
  try {
    await teach(app, key, ["The staging database runs PostgreSQL 16."]);
    await until("the taught fact's vector", async () => (await vectorRows(db, ws)).length === 1);
    expect(batches.some((b) => b.embedded === 1)).toBe(true);

    // A request in flight when stop() is called: stop() resolves once it is stored.
    let open: () => void = () => {};
    fake.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    await teach(app, key, ["The billing service runs on Node 22."]);
    await until("the second fact's request", async () => documentTexts(fake).includes("The billing service runs on Node 22."));
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await Bun.sleep(50);
    expect(stopped).toBe(false);
    fake.gate = null;
    open();
    await stopping;
    expect(await vectorRows(db, ws)).toHaveLength(2);
    expect(await leaseCount(db)).toBe(0);
  } finally {
    if (!stopped) await worker.stop();
  }
});

eachDb("a fact deleted while its batch is at the endpoint is skipped when the batch is stored: no error, no row", async (get, fakeOf) => {
  const { db } = get();
  const fake = fakeOf();
  const key = await makeKey(db);
  const ws = await workspaceId(db, key.workspace);
  const app = testApp(db);
  await teach(app, key, ["The wifi password changes monthly.", "The fire drill is on the last Friday."]);
  const [doomed, kept] = await liveFacts(db, ws);

  let open: () => void = () => {};
  fake.gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const worker = workerFor(db, clientFor(fake));
  const batch = worker.embedBatch();
  await until("the batch's request", async () => documentTexts(fake).length === 2);
  expect((await call(app, "DELETE", `/v1/memory/facts/${doomed!.id}`, { key: key.secret })).status).toBe(200);
  fake.gate = null;
  open();
  const outcome = await batch;
  expect(outcome.failed).toBeNull();
  expect(outcome.leased).toBe(2);
  expect((await vectorRows(db, ws)).map((r) => r.fact_id)).toEqual([kept!.id]);
  expect(await leaseCount(db)).toBe(0);

  // storeVectors itself, with a leased fact deleted under it.
  await teach(app, key, ["The cafeteria opens at eight."]);
  const leased = await leaseFactsToEmbed(db, MODEL, { limit: 10, afterId: "", leaseSeconds: 60, workspaceId: ws });
  expect(leased).toHaveLength(1);
  await db.sql`DELETE FROM facts WHERE id = ${leased[0]!.id}`;
  await storeVectors(db, MODEL, [{ factId: leased[0]!.id, workspaceId: ws, vector: Float32Array.from(fake.vectorOf("cafeteria")) }]);
  expect((await vectorRows(db, ws)).map((r) => r.fact_id)).toEqual([kept!.id]);
  expect(await leaseCount(db)).toBe(0);
});

eachDb("forgetting an end user removes their vectors, in the database and from what search ranks", async (get, fakeOf) => {
  const { db } = get();
  const fake = fakeOf();
  const key = await makeKey(db);
  const ws = await workspaceId(db, key.workspace);
  const { app, embeddings } = semanticApp(db, fake);
  await teach(app, key, ["I keep bees in the garden.", "My bees made honey this year."], "u-ana");
  await teach(app, key, ["I keep chickens in the yard."], "u-bo");
  await teach(app, key, ["The garden tools live in shed three."]);
  await embedUntilDone(embeddings.worker);
  const before = await vectorRows(db, ws);
  expect(before).toHaveLength(4);
  const anaFacts = await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws} AND end_user_id = 'u-ana'`;
  expect(anaFacts).toHaveLength(2);

  const search = (endUser: string, query: string) =>
    call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query, limit: 10, end_user: { id: endUser } } });
  const texts = (r: Awaited<ReturnType<typeof search>>): string[] => r.json.data.facts.map((f: { fact_text: string }) => f.fact_text);
  // Loads the workspace's vectors into memory before the forget.
  expect(texts(await search("u-ana", "bees honey"))).toContain("I keep bees in the garden.");

  const forgot = await call(app, "POST", `/v1/admin/workspaces/${key.workspace}/end-users/u-ana/forget`, { key: TEST_ADMIN_TOKEN });
  expect(forgot.status).toBe(200);
  expect(forgot.json.data.facts_deleted).toBe(2);

  const after = await vectorRows(db, ws);
  expect(after).toHaveLength(2);
  const gone = new Set(anaFacts.map((f) => f.id));
  expect(after.some((r) => gone.has(r.fact_id))).toBe(false);
  const [left] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM fact_vectors WHERE fact_id = ANY(${[...gone]}::text[])`;
  expect(left!.n).toBe(0);
  // The vectors the instance held before the forget reach no search.
  expect(await search("u-ana", "bees honey")).toMatchObject({ status: 200, json: { data: { facts: [] } } });
  expect(texts(await search("u-bo", "chickens yard"))).toEqual(["I keep chickens in the yard."]);
  expect(await vectorCounts(db, MODEL, ws)).toMatchObject({ live_facts: 2, with_vectors: 2 });
});
