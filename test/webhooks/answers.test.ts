/**
 * answer.completed and answer.failed reach the outbox with the run's final state, written with
 * it; an endpoint that is not internal never gets an internal key's answer text.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createWebhook } from "../../src/webhooks/service";
import { call, makeKey } from "../helpers/app";
import { answersHarness, parseSse, type AnswersHarness } from "../helpers/answers";
import { describeEachDb } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";

describeEachDb("answer webhook events", (get) => {
  let fake: FakeAnthropic;
  let h: AnswersHarness;
  beforeAll(async () => {
    fake = createFakeAnthropic();
    h = await answersHarness(get().db, { anthropicUrl: fake.url });
  });
  afterAll(async () => {
    await h.stop();
    fake.stop();
  });

  test("a completed and a failed answer are announced; the text only to internal endpoints for an internal key", async () => {
    const { db } = get();
    const key = await makeKey(db);
    const events = ["answer.completed", "answer.failed"] as const;
    const internal = await createWebhook(db, { allowPrivate: true }, key.workspace, { url: "http://127.0.0.1:9/in", events: [...events], internal: true });
    const external = await createWebhook(db, { allowPrivate: true }, key.workspace, { url: "http://127.0.0.1:9/out", events: [...events], internal: false });
    const ask = (input: string) => call(h.app, "POST", "/v1/answers", { key: key.secret, body: { input, end_user: { id: "cust-9" } } });

    fake.enqueue({ text: "Billing runs on Postgres 16." });
    const done = parseSse((await ask("Where does billing run?")).text);
    fake.enqueue({ error: { status: 529, type: "overloaded_error", message: "busy" } });
    const failed = parseSse((await ask("And this?")).text);
    const [doneId, failedId] = [done[0]!.data.answer_id, failed[0]!.data.answer_id];

    const payloads = async (endpoint: string) =>
      (await db.sql<{ payload: string }>`SELECT payload FROM webhook_events WHERE endpoint_id = ${endpoint} ORDER BY position`).map(
        (r) => JSON.parse(r.payload) as { type: string; data: Record<string, unknown> },
      );
    const seenInside = await payloads(internal.webhook_id);
    expect(seenInside.map((e) => e.type)).toEqual(["answer.completed", "answer.failed"]);
    expect(seenInside[0]!.data).toMatchObject({ answer_id: doneId, status: "completed", output_text: "Billing runs on Postgres 16.", end_user_id: "cust-9" });
    expect(seenInside[1]!.data).toMatchObject({ answer_id: failedId, status: "failed", error_code: "model_overloaded" });
    const seenOutside = await payloads(external.webhook_id);
    expect(seenOutside.map((e) => e.type)).toEqual(["answer.completed", "answer.failed"]);
    expect(seenOutside[0]!.data).toEqual({ answer_id: doneId, conversation_id: expect.any(String), end_user_id: "cust-9", status: "completed" });
  });
});
