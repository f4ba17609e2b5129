/**
 * The shipped binary with an embeddings endpoint (the fake one, in this process): facts taught
 * before a kill -9 that came while a batch was at the endpoint all get exactly one vector once the
 * server is back (the dead instance's leases run out and the batch is embedded again), a question
 * in other words then finds its fact over HTTP, and an endpoint that hangs leaves search answering
 * by words within the timeout.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { openEmbedded } from "../../src/db/embedded";
import { openPostgres } from "../../src/db/postgres";
import type { Db } from "../../src/db/types";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";
import { cleanup, request, startServer, tempDir, type StartOptions } from "./binary";

afterAll(cleanup, 30_000);

const modes = process.env.TEST_DATABASE_URL ? (["embedded", "postgres"] as const) : (["embedded"] as const);
const MODEL = "fake-embed";
const QUERY_PREFIX = "search_query: ";
const DOCUMENT_PREFIX = "search_document: ";
const TIMEOUT_MS = 500;
const POTTERY = "I go to a pottery class every Thursday.";
const post = (body: unknown, key: string) => ({ method: "POST", key, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const metric = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);

const env = (fake: FakeEmbeddings) => ({
  MEMORYD_EMBEDDINGS_URL: fake.url,
  MEMORYD_EMBEDDINGS_MODEL: MODEL,
  MEMORYD_EMBEDDINGS_BATCH: "10",
  MEMORYD_EMBEDDINGS_TIMEOUT_MS: String(TIMEOUT_MS),
  MEMORYD_EMBEDDINGS_QUERY_PREFIX: QUERY_PREFIX,
  MEMORYD_EMBEDDINGS_DOCUMENT_PREFIX: DOCUMENT_PREFIX,
});

/**
 * Polls `check` every `everyMs` until it returns a value; `timeoutMs` is a generous upper bound, not
 * an expected time. A check that calls an authenticated route polls slowly enough to stay inside
 * the key's 120 requests a minute, so the call after it is never rate limited.
 */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** The fact texts the fake was asked to embed, prefix stripped (queries left out). */
const documentTexts = (requests: readonly string[][]): string[] =>
  requests.flat().flatMap((t) => (t.startsWith(DOCUMENT_PREFIX) ? [t.slice(DOCUMENT_PREFIX.length)] : []));

async function killedMidBatch(target: StartOptions, reopen: () => Promise<Db>): Promise<void> {
  const fake = startFakeEmbeddings({ concepts: [["hobby", "pottery"]] });
  let open: () => void = () => {};
  try {
    const first = await startServer({ ...target, env: env(fake) });
    const key = first.secret!;
    const texts = [POTTERY, ...Array.from({ length: 199 }, (_, i) => `Parcel ${i} is kept on shelf ${i % 13} of aisle ${String.fromCharCode(65 + (i % 7))}.`)];
    const teach = async (slice: readonly string[]): Promise<void> => {
      for (let i = 0; i < slice.length; i += 20) {
        const taught = await request(first.url, "/v1/memory/facts", post({ facts: slice.slice(i, i + 20).map((text) => ({ text })) }, key));
        expect(taught.status).toBe(202);
        expect(taught.json.data.created).toBe(Math.min(20, slice.length - i));
      }
    };
    // Half the facts, and the worker embeds some of them in the background.
    await teach(texts.slice(0, 100));
    await until(
      "some facts embedded",
      async () => (metric((await request(first.url, "/metrics")).text, "memoryd_facts_embedded_total") >= 30 ? true : undefined),
      60_000,
    );
    // Then the endpoint holds every answer: the next batch stays in flight.
    fake.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    await teach(texts.slice(100));
    await until("a batch at the endpoint", async () => (documentTexts(fake.held).length > 0 ? true : undefined), 60_000);
    first.proc.kill("SIGKILL");
    await first.exited(10_000);
    const inFlight = new Set(documentTexts(fake.held));
    fake.gate = null;
    open();

    const second = await startServer({ ...target, env: env(fake) });
    try {
      // The dead instance's lease on its batch runs out (60 s), then a rescan takes the batch again.
      await until(
        "a vector for every fact",
        async () => {
          // A search brings the instance's vectors up to date; the gauge counts them.
          await request(second.url, "/v1/memory/search", post({ query: "parcel shelf", limit: 1 }, key));
          return metric((await request(second.url, "/metrics")).text, "memoryd_vectors_in_memory") === texts.length ? true : undefined;
        },
        150_000,
        1_000,
      );
      const found = await request(second.url, "/v1/memory/search", post({ query: "what hobbies do I have?", limit: 5, explain: true }, key));
      expect(found.status).toBe(200);
      expect(found.json.data.facts[0].fact_text).toBe(POTTERY);
      expect(found.json.data.facts[0].explanation.vector.rank).toBe(1);

      // The endpoint hangs: search answers by words, within the timeout (the margin is generous: the machine is shared).
      fake.mode = "hang";
      const started = performance.now();
      const hanging = await request(second.url, "/v1/memory/search", post({ query: "pottery class hobbies", limit: 5 }, key));
      const elapsed = performance.now() - started;
      expect(hanging.status).toBe(200);
      expect(hanging.json.data.facts[0].fact_text).toBe(POTTERY);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 5_000);
      fake.mode = "ok";
      expect(await second.stop("SIGTERM")).toBe(0);
    } finally {
      await second.stop("SIGKILL");
    }

    // Each text was sent once, but the batch in flight at the kill, sent again after the restart:
    // what was stored before the kill is not embedded again.
    const sent = new Map<string, number>();
    for (const text of documentTexts(fake.requests)) sent.set(text, (sent.get(text) ?? 0) + 1);
    expect(new Set(sent.keys())).toEqual(new Set(texts));
    const twice = [...sent].filter(([, n]) => n === 2).map(([text]) => text);
    expect([...sent.values()].every((n) => n === 1 || n === 2)).toBe(true);
    expect(inFlight.size).toBeGreaterThan(0);
    for (const text of inFlight) expect(twice).toContain(text);
    expect(twice.length).toBeLessThanOrEqual(10);

    // In the database: every live fact has exactly one vector, of the model, and no lease is left.
    const db = await reopen();
    try {
      const live = await db.sql<{ id: string }>`SELECT id FROM facts WHERE superseded_by IS NULL ORDER BY id`;
      expect(live).toHaveLength(texts.length);
      const rows = await db.sql<{ fact_id: string; model: string; dimensions: number; has_vector: boolean }>`
        SELECT fact_id, model, dimensions, vector IS NOT NULL AS has_vector FROM fact_vectors ORDER BY fact_id, model`;
      expect(rows.map((r) => r.fact_id)).toEqual(live.map((f) => f.id));
      expect(rows.every((r) => r.model === MODEL && r.dimensions === fake.dimensions && r.has_vector)).toBe(true);
      expect(await db.sql`SELECT fact_id FROM embedding_leases`).toEqual([]);
    } finally {
      await db.close();
    }
  } finally {
    open();
    await fake.stop();
  }
}

describe("embeddings (binary)", () => {
  for (const mode of modes) {
    test(`[${mode}] a kill -9 while a batch is at the endpoint: once restarted, every fact has exactly one vector and search finds by meaning`, async () => {
      const databaseUrl = mode === "postgres" ? await createPostgresDatabase() : undefined;
      const dataDir = tempDir();
      const target: StartOptions = databaseUrl !== undefined ? { databaseUrl } : { dataDir };
      try {
        await killedMidBatch(target, async () => (databaseUrl !== undefined ? openPostgres({ url: databaseUrl, maxConnections: 1 }) : openEmbedded(dataDir)));
      } finally {
        if (databaseUrl) await dropPostgresDatabase(databaseUrl);
      }
    }, 240_000);
  }
});
