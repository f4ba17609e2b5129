import { afterAll, beforeAll, expect, test } from "bun:test";
import { AnswerEngine } from "../../src/answers/engine";
import { createApp } from "../../src/app";
import { findWorkspace } from "../../src/auth/workspaces";
import { MIGRATIONS } from "../../src/db/migrations/index";
import { createEmbeddings } from "../../src/embeddings/setup";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { embeddingsSetting, serviceStatus } from "../../src/admin/status";
import { makeKey, TEST_ADMIN_TOKEN, call, testApp, testConfig, type Handler } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";

describeEachDb("GET /v1/admin/status", (get) => {
  test("the database, migrations, the answer queue, counts and this process's index memory", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    expect((await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Status probe fact." }] } })).status).toBe(202);
    // A search builds the workspace's index in this process.
    expect((await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "status probe" } })).status).toBe(200);
    const res = await call(app, "GET", "/v1/admin/status", { key: TEST_ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const status = res.json.data;
    expect(status.database.kind).toBe(get().db.kind);
    expect(status.database.version).toContain("PostgreSQL");
    expect(status.migrations).toEqual({ applied: MIGRATIONS.length, latest: MIGRATIONS.at(-1)!.version, pending: [] });
    expect(status.answers).toMatchObject({ queued: expect.any(Number), in_progress: expect.any(Number) });
    expect(status.workspaces).toBeGreaterThanOrEqual(1);
    expect(status.live_facts).toBeGreaterThanOrEqual(1);
    expect(status.embeddings).toBeNull();
    expect(status.index.workspaces).toBeGreaterThanOrEqual(1);
    expect(status.index.bytes).toBeGreaterThan(0);
    expect(status.index.budget_bytes).toBeGreaterThan(status.index.bytes);
    expect(status.capture_model).toMatchObject({ workspaces: expect.any(Number), queued: expect.any(Number), failed_last_day: expect.any(Number) });
  });

  test("the capture model's part counts workspaces with one and their jobs", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const before = (await call(app, "GET", "/v1/admin/status", { key: TEST_ADMIN_TOKEN })).json.data.capture_model;
    await get().db.sql`UPDATE workspaces SET capture_provider = 'anthropic' WHERE slug = ${key.workspace}`;
    await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Status probe for the capture queue." }] } });
    const after = (await call(app, "GET", "/v1/admin/status", { key: TEST_ADMIN_TOKEN })).json.data.capture_model;
    expect(after.workspaces).toBe(before.workspaces + 1);
    expect(after.queued).toBe(before.queued + 1);
  });
});

describeEachDb("GET /v1/admin/status: the embeddings part", (get) => {
  let fake: FakeEmbeddings;
  beforeAll(() => {
    fake = startFakeEmbeddings({ dimensions: 48 });
  });
  afterAll(async () => {
    await fake.stop();
  });

  const status = async (app: Handler): Promise<any> => {
    const res = await call(app, "GET", "/v1/admin/status", { key: TEST_ADMIN_TOKEN });
    expect(res.status).toBe(200);
    return res.json.data;
  };

  test("null when no endpoint is configured", async () => {
    expect((await status(testApp(get().db))).embeddings).toBeNull();
  });

  test("the running server's model, dimension and vectors; the waiting facts; the key never shown", async () => {
    const config = testConfig({ embeddingsUrl: fake.url, embeddingsModel: "status-embed", embeddingsApiKey: "sk-status-secret-77" });
    const log = createLogger("silent");
    const embeddings = createEmbeddings(config, get().db, log, { queryFailed: () => {}, batchDone: () => {} })!;
    const index = new FactIndexes(get().db, config.indexMemoryMb * 1024 * 1024, { semantic: embeddings.semantic });
    const app = createApp({ config, db: get().db, log, index, engine: new AnswerEngine({ db: get().db, index, config, log }) });
    const key = await makeKey(get().db);
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "The boiler is serviced in October." }, { text: "Noor takes the late shift." }, { text: "The van needs new tyres." }] },
    });
    expect(taught.status).toBe(202);
    const before = await status(app);
    expect(before.embeddings).toEqual({
      url: fake.url,
      model: "status-embed",
      dimensions: null,
      live_facts: before.live_facts,
      with_vectors: 0,
      refused: 0,
      waiting: before.live_facts,
      other_models: 0,
    });

    // One batch, as the worker would: the client now knows the dimension.
    const outcome = await embeddings.worker.embedBatch({ workspaceId: (await findWorkspace(get().db, key.workspace)).id });
    expect(outcome.embedded).toBeGreaterThan(0);
    const after = await status(app);
    expect(after.embeddings).toMatchObject({ dimensions: 48, with_vectors: outcome.embedded, refused: 0, waiting: after.live_facts - outcome.embedded });
    expect(JSON.stringify(after)).not.toContain("sk-status-secret-77");

    // Without the server's client (another instance, or one not yet asked), the dimension is the stored vectors'.
    const other = testApp(get().db, { embeddingsUrl: "http://ops:hunter22@127.0.0.1:9/v1", embeddingsModel: "status-embed" });
    expect((await status(other)).embeddings).toMatchObject({ url: "http://***@127.0.0.1:9/v1", dimensions: 48, with_vectors: outcome.embedded });
    // A model with no vectors yet: nothing known, every live fact waits, the other model's vectors counted.
    const fresh = (await status(testApp(get().db, { embeddingsUrl: fake.url, embeddingsModel: "next-embed" }))).embeddings;
    expect(fresh).toMatchObject({ dimensions: null, with_vectors: 0, waiting: fresh.live_facts, other_models: outcome.embedded });
  });
});

describeEachDb("memoryd doctor's status of a database before the vectors' migration", (get) => {
  test("every live fact waits; nothing is read from tables that are not there yet", async () => {
    const db = get().db;
    const key = await makeKey(db);
    expect(
      (await call(testApp(db), "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The gate code changed in May." }] } })).status,
    ).toBe(202);
    await db.sql`DROP TABLE embedding_leases`;
    await db.sql`DROP TABLE fact_vectors`;
    await db.sql`DELETE FROM schema_migrations WHERE version = 16`;
    const status = await serviceStatus(db, null, embeddingsSetting({ embeddingsUrl: "http://127.0.0.1:11434/v1", embeddingsModel: "nomic-embed-text" }));
    expect(status.migrations.pending).toEqual([16]);
    expect(status.embeddings).toEqual({
      url: "http://127.0.0.1:11434/v1",
      model: "nomic-embed-text",
      dimensions: null,
      live_facts: 1,
      with_vectors: 0,
      refused: 0,
      waiting: 1,
      other_models: 0,
    });
    expect((await serviceStatus(db, null, null)).embeddings).toBeNull();
  });
});
