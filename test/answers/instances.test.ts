import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPostgres } from "../../src/db/postgres";
import type { Db } from "../../src/db/types";
import { call, makeKey } from "../helpers/app";
import { answersHarness, parseSse, untilFinal, type AnswersHarness } from "../helpers/answers";
import { DB_KINDS, describeEachDb, openTestDatabase, type TestDatabase } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";

describeEachDb("engine shutdown", (get) => {
  test("a stream whose run cannot finish in the grace period ends with shutting_down; the run is re-queued and finished elsewhere", async () => {
    const fake = createFakeAnthropic();
    const a = await answersHarness(get().db, { anthropicUrl: fake.url });
    const key = await makeKey(get().db);
    fake.enqueue({ hang: true });
    const pending = call(a.app, "POST", "/v1/answers", { key: key.secret, body: { input: "Never finishes here" } });
    for (let i = 0; i < 100 && fake.requests.length === 0; i++) await Bun.sleep(50);
    await a.engine.stop(200);
    const events = parseSse((await pending).text);
    expect(events.map((e) => e.event)).toEqual(["answer.created", "answer.failed", "done"]);
    expect(events[1]!.data.error.code).toBe("shutting_down");
    const id = events[0]!.data.answer_id as string;
    const rows = await get().db.sql<{ status: string }>`SELECT status FROM answers WHERE id = ${id}`;
    expect(rows[0]?.status).toBe("queued");
    fake.enqueue({ text: "finished by the next instance" });
    const b = await answersHarness(get().db, { anthropicUrl: fake.url });
    try {
      const answer = await untilFinal(b.app, get().db, key.secret, id);
      expect(answer).toMatchObject({ status: "completed", output_text: "finished by the next instance" });
    } finally {
      await b.stop();
      fake.stop();
    }
  });
});

if (DB_KINDS.includes("postgres")) {
  describe("two instances on one PostgreSQL database", () => {
    let t: TestDatabase;
    let otherDb: Db;
    let fake: FakeAnthropic;
    let a: AnswersHarness;
    let b: AnswersHarness;
    beforeAll(async () => {
      t = await openTestDatabase("postgres");
      otherDb = openPostgres({ url: t.config.databaseUrl ?? "", maxConnections: 10 });
      fake = createFakeAnthropic({ defaultReply: "default reply" });
      a = await answersHarness(t.db, { anthropicUrl: fake.url });
      b = await answersHarness(otherDb, { anthropicUrl: fake.url });
    }, 60_000);
    afterAll(async () => {
      await a.stop();
      await b.stop();
      fake.stop();
      await otherDb.close();
      await t.close();
    });

    test("racing Idempotency-Key replays on both instances create one run", async () => {
      const key = await makeKey(t.db);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call(i % 2 === 0 ? a.app : b.app, "POST", "/v1/answers", {
            key: key.secret,
            body: { input: "Only once please", stream: false },
            headers: { "idempotency-key": "shared-key" },
          }),
        ),
      );
      expect(results.every((r) => r.status === 202)).toBe(true);
      expect(new Set(results.map((r) => r.json.data.answer_id)).size).toBe(1);
      const rows = await t.db.sql<{ n: number }>`SELECT count(*)::int AS n FROM answers WHERE key_id = ${key.id}`;
      expect(rows[0]?.n).toBe(1);
    });

    test("a conversation busy on one instance is busy on the other", async () => {
      const key = await makeKey(t.db);
      fake.enqueue({ text: "slow", delayMs: 800 });
      const first = await call(a.app, "POST", "/v1/answers", { key: key.secret, body: { input: "First", conversation_id: "c1", stream: false } });
      expect(first.status).toBe(202);
      const second = await call(b.app, "POST", "/v1/answers", { key: key.secret, body: { input: "Second", conversation_id: "c1" } });
      expect(second.status).toBe(409);
      expect(second.json.error.code).toBe("conversation_busy");
      await untilFinal(a.app, t.db, key.secret, first.json.data.answer_id);
    });

    test("queued runs are each executed exactly once by the two workers", async () => {
      const key = await makeKey(t.db);
      const before = fake.requests.length;
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await call(i % 2 === 0 ? a.app : b.app, "POST", "/v1/answers", {
          key: key.secret,
          body: { input: `Question number ${i}`, conversation_id: `q-${i}`, stream: false },
        });
        ids.push(res.json.data.answer_id);
      }
      for (const id of ids) expect((await untilFinal(a.app, t.db, key.secret, id)).status).toBe("completed");
      expect(fake.requests.length - before).toBe(8);
      const attempts = await t.db.sql<{ attempts: number }>`SELECT attempts FROM answers WHERE id = ANY(${ids}::text[])`;
      expect(attempts.every((r) => r.attempts === 1)).toBe(true);
    });
  });
}
