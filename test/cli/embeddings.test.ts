/**
 * `memoryd embeddings backfill` and the embeddings line of `memoryd doctor`, run as the CLI is
 * (`bun src/main.ts`, a process of its own) against a real database and the fake embeddings
 * server on loopback. The test's own connection is closed while the CLI runs on the embedded
 * database: its data directory admits one process at a time (describeEachDb would hold it open).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openEmbedded } from "../../src/db/embedded";
import { cleanup, runCli, type CliResult } from "../e2e/binary";
import { call, makeKey, testApp } from "../helpers/app";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";
import { loopbackServer } from "../helpers/fake-server";

const API_KEY = "sk-embed-secret-4f9a1c";

afterAll(cleanup, 30_000);

describe("embeddings settings through the CLI", () => {
  test.each([
    [{ MEMORYD_EMBEDDINGS_URL: "http://127.0.0.1:11434/v1" }, "MEMORYD_EMBEDDINGS_MODEL"],
    [{ MEMORYD_EMBEDDINGS_MODEL: "nomic-embed-text" }, "needs MEMORYD_EMBEDDINGS_URL"],
    [{ MEMORYD_EMBEDDINGS_URL: "localhost:11434/v1", MEMORYD_EMBEDDINGS_MODEL: "nomic-embed-text" }, 'MEMORYD_EMBEDDINGS_URL "localhost:11434/v1"'],
    [{ MEMORYD_EMBEDDINGS_URL: "ftp://127.0.0.1/v1", MEMORYD_EMBEDDINGS_MODEL: "nomic-embed-text" }, "MEMORYD_EMBEDDINGS_URL"],
    [{ MEMORYD_EMBEDDINGS_URL: "http://127.0.0.1:11434/v1", MEMORYD_EMBEDDINGS_MODEL: "m", MEMORYD_EMBEDDINGS_BATCH: "0" }, "MEMORYD_EMBEDDINGS_BATCH"],
  ])("%j: exit 2 naming the setting, never the key", async (env, message) => {
    const result = await runCli(["embeddings", "backfill", "--data-dir", "/nonexistent/memoryd"], {
      fromSource: true,
      env: { ...env, MEMORYD_EMBEDDINGS_API_KEY: API_KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr + result.stdout).not.toContain(API_KEY);
  });

  test("credentials in the URL are redacted in the error", async () => {
    const result = await runCli(["doctor", "--data-dir", "/nonexistent/memoryd"], {
      fromSource: true,
      env: { MEMORYD_EMBEDDINGS_URL: "http://user:hunter22@127.0.0.1:11434/v1" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("http://***@127.0.0.1:11434/v1");
    expect(result.stderr).not.toContain("hunter22");
  });

  test("backfill without an endpoint configured exits 2 saying what to set", async () => {
    const result = await runCli(["embeddings", "backfill", "--data-dir", "/nonexistent/memoryd"], { fromSource: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("embeddings are not configured: set MEMORYD_EMBEDDINGS_URL and MEMORYD_EMBEDDINGS_MODEL");
  });

  test("the command has its own --help", async () => {
    const result = await runCli(["embeddings", "backfill", "--help"], { fromSource: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("Usage: memoryd embeddings backfill [--workspace SLUG] [--json]");
  });
});

const FACTS_A = [
  "I go to a pottery class every Thursday.",
  "Our invoices are due on the first of the month.",
  "The staging server runs in Frankfurt.",
  "Lena prefers meetings before noon.",
  "The office plants are watered on Mondays.",
];
const FACTS_B = ["The warehouse closes at six.", "Marco speaks Portuguese.", "REFUSE this text, says the endpoint."];

for (const kind of DB_KINDS) {
  describe(`memoryd embeddings backfill and doctor [${kind}]`, () => {
    let t: TestDatabase;
    let fake: FakeEmbeddings;
    let workspaceA: string;
    let workspaceB: string;
    const dbArgs = (): string[] => (t.config.databaseUrl !== undefined ? ["--database-url", t.config.databaseUrl] : ["--data-dir", t.config.dataDir]);
    const embeddingsEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
      MEMORYD_EMBEDDINGS_URL: fake.url,
      MEMORYD_EMBEDDINGS_MODEL: "fake-embed",
      MEMORYD_EMBEDDINGS_API_KEY: API_KEY,
      MEMORYD_EMBEDDINGS_BATCH: "2",
      ...extra,
    });
    const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
      runCli([...args, ...dbArgs()], { fromSource: true, env, timeoutMs: 60_000 });
    const backfill = async (args: string[], env: Record<string, string>): Promise<Record<string, unknown>> => {
      const result = await cli(["embeddings", "backfill", "--json", ...args], env);
      if (result.code !== 0) throw new Error(`backfill exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    const doctorJson = async (env: Record<string, string>): Promise<any> => {
      const result = await cli(["doctor", "--json"], env);
      if (result.code !== 0) throw new Error(`doctor exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout).status;
    };

    beforeAll(async () => {
      fake = startFakeEmbeddings();
      t = await openTestDatabase(kind);
      const app = testApp(t.db);
      const a = await makeKey(t.db);
      const b = await makeKey(t.db);
      workspaceA = a.workspace;
      workspaceB = b.workspace;
      for (const [key, facts] of [
        [a, FACTS_A],
        [b, FACTS_B],
      ] as const) {
        const taught = await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: facts.map((text) => ({ text })) } });
        expect(taught.json.data).toMatchObject({ created: facts.length, superseded: 0 });
      }
      // The CLI opens the database itself: on the embedded one, only once this process lets go.
      if (kind === "embedded") await t.db.close();
    }, 60_000);

    afterAll(async () => {
      await fake.stop();
      if (kind === "embedded") rmSync(t.config.dataDir, { recursive: true, force: true });
      else await t.close();
    }, 30_000);

    test("doctor without an endpoint: not configured, search by words and the lexicon", async () => {
      const result = await cli(["doctor"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("embeddings: not configured (MEMORYD_EMBEDDINGS_URL unset): search ranks by words and the shipped lexicon only");
      expect((await doctorJson({})).embeddings).toBeNull();
    }, 60_000);

    test("doctor with an endpoint, before any vector: every live fact waits, the dimension is not known yet", async () => {
      const status = await doctorJson(embeddingsEnv());
      expect(status.embeddings).toEqual({
        url: fake.url,
        model: "fake-embed",
        dimensions: null,
        live_facts: 8,
        with_vectors: 0,
        refused: 0,
        waiting: 8,
        other_models: 0,
      });
      // Doctor asks the endpoint nothing.
      expect(fake.requests).toEqual([]);
    }, 60_000);

    test("backfill --workspace embeds that workspace's facts only, in batches, with the key", async () => {
      const report = await backfill(["--workspace", workspaceA], embeddingsEnv());
      expect(report).toEqual({
        workspace: workspaceA,
        model: "fake-embed",
        dimensions: fake.dimensions,
        embedded: FACTS_A.length,
        refused: 0,
        waiting_before: FACTS_A.length,
        waiting_after: 0,
      });
      expect(fake.requests.flat().sort()).toEqual([...FACTS_A].sort());
      expect(Math.max(...fake.requests.map((r) => r.length))).toBe(2);
      expect(new Set(fake.authorizations)).toEqual(new Set([`Bearer ${API_KEY}`]));
      const status = await doctorJson(embeddingsEnv());
      expect(status.embeddings).toMatchObject({ dimensions: fake.dimensions, live_facts: 8, with_vectors: 5, waiting: 3 });
    }, 60_000);

    test("backfill embeds every workspace's waiting facts; a second run embeds nothing", async () => {
      fake.requests.length = 0;
      const report = await backfill([], embeddingsEnv());
      expect(report).toEqual({
        workspace: null,
        model: "fake-embed",
        dimensions: fake.dimensions,
        embedded: FACTS_B.length,
        refused: 0,
        waiting_before: FACTS_B.length,
        waiting_after: 0,
      });
      expect(fake.requests.flat().sort()).toEqual([...FACTS_B].sort());

      fake.requests.length = 0;
      const again = await backfill([], embeddingsEnv());
      expect(again).toMatchObject({ workspace: null, dimensions: fake.dimensions, embedded: 0, refused: 0, waiting_before: 0, waiting_after: 0 });
      expect(fake.requests).toEqual([]);

      const text = await cli(["embeddings", "backfill", "--workspace", workspaceB], embeddingsEnv());
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`embedded 0 facts of ${workspaceB} with fake-embed (${fake.dimensions} dimensions)`);
    }, 60_000);

    test("doctor shows the model, its dimension and the vectors, the URL's credentials and the key hidden", async () => {
      const result = await cli(["doctor"], embeddingsEnv());
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        `embeddings: fake-embed at ${fake.url}, ${fake.dimensions} dimensions; 8 of 8 live facts have vectors (0 waiting, 0 refused)`,
      );
      expect(result.stdout + result.stderr).not.toContain(API_KEY);

      const withCredentials = fake.url.replace("http://", "http://ops:hunter22@");
      const redacted = await cli(["doctor"], embeddingsEnv({ MEMORYD_EMBEDDINGS_URL: withCredentials }));
      expect(redacted.code).toBe(0);
      expect(redacted.stdout).toContain(`embeddings: fake-embed at ${fake.url.replace("http://", "http://***@")}, `);
      expect(redacted.stdout + redacted.stderr).not.toContain("hunter22");
      expect((await doctorJson(embeddingsEnv({ MEMORYD_EMBEDDINGS_URL: withCredentials }))).embeddings.url).not.toContain("hunter22");
    }, 60_000);

    test("a text the endpoint refuses on its own is left without a vector; the rest are embedded", async () => {
      fake.mode = "refuse";
      try {
        const report = await backfill([], embeddingsEnv({ MEMORYD_EMBEDDINGS_MODEL: "refusing-embed" }));
        expect(report).toMatchObject({ embedded: 7, refused: 1, waiting_before: 8, waiting_after: 0 });
        const status = await doctorJson(embeddingsEnv({ MEMORYD_EMBEDDINGS_MODEL: "refusing-embed" }));
        expect(status.embeddings).toMatchObject({ live_facts: 8, with_vectors: 7, refused: 1, waiting: 0, dimensions: fake.dimensions });
      } finally {
        fake.mode = "ok";
      }
    }, 60_000);

    test("an endpoint that stays down: retried, then exit 1 naming the endpoint and not the key", async () => {
      fake.mode = "down";
      fake.requests.length = 0;
      try {
        const result = await cli(["embeddings", "backfill"], embeddingsEnv({ MEMORYD_EMBEDDINGS_MODEL: "other-embed" }));
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`could not embed facts: the embeddings API at ${fake.url} answered HTTP 503 (4 attempts)`);
        expect(result.stderr).toContain("0 embedded before it failed, 8 still waiting");
        expect(result.stdout + result.stderr).not.toContain(API_KEY);
        expect(fake.requests).toHaveLength(4);
      } finally {
        fake.mode = "ok";
      }
      // Nothing was given up: every fact still waits for that model.
      expect((await doctorJson(embeddingsEnv({ MEMORYD_EMBEDDINGS_MODEL: "other-embed" }))).embeddings).toMatchObject({ refused: 0, waiting: 8 });
    }, 60_000);

    test("an endpoint that cannot be reached: exit 1 naming it", async () => {
      const closed = loopbackServer(() => new Response("", { status: 500 }));
      const url = `http://127.0.0.1:${closed.port}/v1`;
      await closed.stop(true);
      const other = await cli(["embeddings", "backfill"], embeddingsEnv({ MEMORYD_EMBEDDINGS_URL: url, MEMORYD_EMBEDDINGS_MODEL: "other-embed" }));
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`could not reach the embeddings API at ${url}`);
      expect(other.stderr).not.toContain(API_KEY);
    }, 60_000);

    test("an endpoint that refuses the key stops at once, and gives no fact up", async () => {
      const authorizations: string[] = [];
      const refusing = loopbackServer((_req, _path, headers) => {
        authorizations.push(headers.authorization ?? "");
        return Response.json({ error: { message: "invalid api key" } }, { status: 401 });
      });
      try {
        const env = embeddingsEnv({ MEMORYD_EMBEDDINGS_URL: `http://127.0.0.1:${refusing.port}/v1`, MEMORYD_EMBEDDINGS_MODEL: "keyed-embed" });
        const result = await cli(["embeddings", "backfill"], env);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain("answered HTTP 401 (check MEMORYD_EMBEDDINGS_API_KEY)");
        expect(result.stderr).not.toContain(API_KEY);
        // The batch, then its first fact alone (a refusal of several texts says nothing of each); no retry.
        expect(authorizations.length).toBeLessThanOrEqual(2);
        expect(new Set(authorizations)).toEqual(new Set([`Bearer ${API_KEY}`]));
        expect((await doctorJson(env)).embeddings).toMatchObject({ refused: 0, waiting: 8 });
      } finally {
        await refusing.stop(true);
      }
    }, 60_000);

    test("kill -9 during a backfill: the next run embeds what was left, each fact once", async () => {
      const fresh = [
        "The lab opens at eight.",
        "Noor plays the oboe.",
        "Backups run at midnight.",
        "Ivo drinks green tea.",
        "The van is blue.",
        "Rent is due Friday.",
      ];
      // Nothing else waits in the workspace: whatever the tests before left.
      expect(await backfill(["--workspace", workspaceA], embeddingsEnv())).toMatchObject({ waiting_after: 0 });
      const db = kind === "embedded" ? await openEmbedded(t.config.dataDir) : t.db;
      try {
        const key = await makeKey(db, { workspace: workspaceA });
        const taught = await call(testApp(db), "POST", "/v1/memory/facts", { key: key.secret, body: { facts: fresh.map((text) => ({ text })) } });
        expect(taught.json.data.created).toBe(fresh.length);
      } finally {
        if (kind === "embedded") await db.close();
      }
      fake.requests.length = 0;
      let release = (): void => {};
      fake.gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const proc = Bun.spawn([process.execPath, "src/main.ts", "embeddings", "backfill", "--workspace", workspaceA, ...dbArgs()], {
        cwd: `${import.meta.dir}/../..`,
        env: { ...process.env, ...embeddingsEnv() },
        stdout: "ignore",
        stderr: "ignore",
      });
      try {
        for (let waited = 0; fake.held.length === 0 && waited < 30_000; waited += 50) await Bun.sleep(50);
        expect(fake.held.length).toBeGreaterThan(0);
        proc.kill("SIGKILL");
        await proc.exited;
      } finally {
        fake.gate = null;
        release();
      }
      const inFlight = fake.held.flat();
      fake.held.length = 0;
      fake.requests.length = 0;
      const report = await backfill(["--workspace", workspaceA], embeddingsEnv());
      if (kind === "embedded") {
        // One process holds the embedded database: the killed run's leases were nobody's.
        expect(report).toMatchObject({ embedded: fresh.length, waiting_after: 0 });
        expect(fake.requests.flat().sort()).toEqual([...fresh].sort());
      } else {
        // On PostgreSQL another instance might hold them: the facts the killed run had leased wait
        // for their lease to end (a minute), the others are embedded now, none twice.
        expect(report).toMatchObject({ embedded: fresh.length - inFlight.length, waiting_after: inFlight.length });
        expect(fake.requests.flat().filter((text) => inFlight.includes(text))).toEqual([]);
      }
    }, 90_000);

    if (kind === "embedded") {
      test("a server holding the data directory: backfill says so, and that the server embeds by itself", async () => {
        const held = await openEmbedded(t.config.dataDir);
        try {
          const result = await cli(["embeddings", "backfill"], embeddingsEnv());
          expect(result.code).toBe(1);
          expect(result.stderr).toContain(`data directory ${t.config.dataDir} is in use by another memoryd process (pid ${process.pid}`);
          expect(result.stderr).toContain("embeds the facts itself, in the background");
        } finally {
          await held.close();
        }
      }, 60_000);
    }
  });
}
