import { afterAll, describe, expect, test } from "bun:test";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";
import { createFakeOpenAI } from "../helpers/fake-openai";
import { parseSse } from "../helpers/answers";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { cleanup, request, startServer, tempDir, type ServerHandle } from "./binary";

afterAll(cleanup, 30_000);

const modes = process.env.TEST_DATABASE_URL ? (["embedded", "postgres"] as const) : (["embedded"] as const);

async function untilStatus(url: string, key: string, id: string, wanted: string[], timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(url, `/v1/answers/${id}`, { key });
    if (wanted.includes(res.json?.data?.status)) return res.json.data;
    if (Date.now() > deadline) throw new Error(`answer ${id} did not reach ${wanted.join("|")}: ${res.text}`);
    await Bun.sleep(1000);
  }
}

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

for (const mode of modes) {
  describe(`answers through the binary [${mode}]`, () => {
    const database = async (): Promise<{ dataDir?: string; databaseUrl?: string; drop(): Promise<void> }> => {
      if (mode === "embedded") return { dataDir: tempDir(), drop: async () => {} };
      const databaseUrl = await createPostgresDatabase();
      return { databaseUrl, drop: () => dropPostgresDatabase(databaseUrl) };
    };

    test("with no API key configured the local provider answers from memory, streamed", async () => {
      const db = await database();
      const server = await startServer({ ...db });
      try {
        const key = server.secret!;
        await request(server.url, "/v1/memory/facts", { key, ...json({ facts: [{ text: "The on-call rotation changes every Monday." }] }) });
        const res = await request(server.url, "/v1/answers", { key, ...json({ input: "When does the on-call rotation change?" }) });
        const events = parseSse(res.text);
        expect(events.map((e) => e.event).at(-2)).toBe("answer.completed");
        expect(events.at(-2)!.data.output_text).toContain("The on-call rotation changes every Monday.");
        expect(events.at(-2)!.data.sources[0].fact_text).toBe("The on-call rotation changes every Monday.");
      } finally {
        await server.stop();
        await db.drop();
      }
    }, 60_000);

    test("OPENAI_BASE_URL alone: serve names the providers, and main (auto) answers through the OpenAI-compatible server", async () => {
      const db = await database();
      const fake = createFakeOpenAI();
      const server = await startServer({ ...db, env: { OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "llama3.1" } });
      try {
        expect(server.stdout()).toContain(`openai at ${fake.url} (default model llama3.1), local; agents on auto use openai`);
        fake.enqueue({ text: "Answered by the local model.", usage: { prompt_tokens: 30, completion_tokens: 6 } });
        const res = await request(server.url, "/v1/answers", { key: server.secret!, ...json({ input: "Who answers?" }) });
        const completed = parseSse(res.text).at(-2)!;
        expect(completed.event).toBe("answer.completed");
        expect(completed.data).toMatchObject({ output_text: "Answered by the local model.", usage: { input_tokens: 30, output_tokens: 6 } });
        expect(fake.requests[0]!.body.model).toBe("llama3.1");
        expect(fake.requests[0]!.headers.authorization).toBeUndefined();
      } finally {
        await server.stop();
        await fake.stop();
        await db.drop();
      }
    }, 60_000);

    test("kill -9 mid-run: the next instance takes the lapsed lease over and the run finishes", async () => {
      const db = await database();
      const fake: FakeAnthropic = createFakeAnthropic();
      // A short lease, so the takeover does not wait out the default 15 s.
      const env = { ANTHROPIC_API_KEY: "sk-test-e2e", ANTHROPIC_BASE_URL: fake.url, MEMORYD_ANSWER_LEASE_SECONDS: "3" };
      let first: ServerHandle | undefined = await startServer({ ...db, env });
      let second: ServerHandle | undefined;
      try {
        const key = first.secret!;
        fake.enqueue({ hang: true });
        const created = await request(first.url, "/v1/answers", { key, ...json({ input: "Take a long time", stream: false }) });
        expect(created.status).toBe(202);
        const id = created.json.data.answer_id as string;
        await untilStatus(first.url, key, id, ["in_progress"], 15_000);
        // Kill only once the model call is under way (the hanging reply is taken).
        for (let i = 0; i < 100 && fake.requests.length === 0; i++) await Bun.sleep(100);
        expect(fake.requests.length).toBe(1);
        first.proc.kill("SIGKILL");
        await first.exited(5_000);
        first = undefined;
        fake.enqueue({ text: "Done after the takeover." });
        second = await startServer({ ...db, env });
        const answer = await untilStatus(second.url, key, id, ["completed", "failed"], 45_000);
        expect(answer).toMatchObject({ status: "completed", output_text: "Done after the takeover." });
      } finally {
        if (first) await first.stop("SIGKILL");
        if (second) await second.stop();
        fake.stop();
        await db.drop();
      }
    }, 90_000);

    test("SIGTERM lets a running answer finish, then exits 0", async () => {
      const db = await database();
      const fake = createFakeAnthropic();
      const server = await startServer({ ...db, env: { ANTHROPIC_API_KEY: "sk-test-e2e", ANTHROPIC_BASE_URL: fake.url } });
      try {
        const key = server.secret!;
        fake.enqueue({ text: "finished gracefully", chunks: 4, delayMs: 400 });
        const streaming = request(server.url, "/v1/answers", { key, ...json({ input: "Finish before you go" }) });
        await Bun.sleep(500);
        const exit = server.stop("SIGTERM", 20_000);
        const events = parseSse((await streaming).text);
        expect(events.map((e) => e.event).at(-2)).toBe("answer.completed");
        expect(events.at(-2)!.data.output_text).toBe("finished gracefully");
        expect(await exit).toBe(0);
      } finally {
        fake.stop();
        await db.drop();
      }
    }, 60_000);
  });
}
