/**
 * Webhook delivery on both databases against a real receiver on loopback: signed so the Standard
 * Webhooks library verifies it, in order, one at a time per endpoint even with two instances, and
 * a receiver that fails for a while gets every event, in order, once it recovers (a retried event
 * keeps its id). Rounds are driven by hand (`deliverDue`), so nothing waits on a clock.
 */
import { afterEach, expect, test } from "bun:test";
import { createWorkspace } from "../../src/auth/workspaces";
import { captureFacts } from "../../src/capture/pipeline";
import type { Db } from "../../src/db/types";
import { createLogger } from "../../src/log";
import { WebhookDeliverer } from "../../src/webhooks/deliver";
import { createWebhook, getWebhook, webhookDeliveries } from "../../src/webhooks/service";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { receiver } from "./support";

const quiet = createLogger("silent");
/** No waiting between retries: each round retries at once. */
const NOW_AGAIN = { allowPrivate: true, backoffMs: () => 0 };
const receivers: ReturnType<typeof receiver>[] = [];
afterEach(() => {
  for (const r of receivers.splice(0)) r.stop();
});

async function teachNumbered(db: Db, workspaceId: string, from: number, count: number): Promise<string[]> {
  const items = Array.from({ length: count }, (_, i) => ({ text: `Crate ${from + i} waits at the north depot.`, origin: "ingested" as const }));
  return (await captureFacts(db, workspaceId, items)).factIds;
}

/** Runs delivery rounds until nothing is waiting (bounded: a stuck outbox fails the test, not hangs it). */
async function drain(db: Db, deliverers: WebhookDeliverer[], webhookId: string): Promise<void> {
  for (let round = 0; round < 200; round++) {
    await Promise.all(deliverers.map((d) => d.deliverDue()));
    if ((await getWebhook(db, webhookId)).pending === 0) return;
  }
  throw new Error("the outbox did not drain in 200 rounds");
}

describeEachDb("webhook delivery", (get) => {
  test("deliveries are signed (the Standard Webhooks library verifies them), in order, and logged", async () => {
    const { db } = get();
    const hook = receiver();
    receivers.push(hook);
    const ws = await createWorkspace(db, uniqueSlug("deliver"), 0);
    const endpoint = await createWebhook(db, { allowPrivate: true }, ws.slug, { url: hook.url, events: ["fact.created"], internal: false });
    const ids = await teachNumbered(db, ws.id, 1, 5);
    await drain(db, [new WebhookDeliverer(db, quiet, NOW_AGAIN)], endpoint.webhook_id);
    expect(hook.received.map((r) => r.data.fact_id)).toEqual(ids);
    for (const r of hook.received) expect(hook.verify(endpoint.secret, r)).toMatchObject({ type: "fact.created" });
    expect(() => hook.verify(`whsec_${Buffer.from("another secret, 24 bytes").toString("base64")}`, hook.received[0]!)).toThrow();
    const log = await webhookDeliveries(db, endpoint.webhook_id);
    expect(log).toHaveLength(5);
    expect(log.every((d) => d.status === 200 && d.attempt === 1 && d.error === null)).toBe(true);
  });

  test("a receiver that fails for a while gets every event in order once it recovers; a retry keeps the event's id", async () => {
    const { db } = get();
    // Fails the first 7 requests (503, then 500), then answers 204.
    const hook = receiver((_, count) => (count <= 4 ? 503 : count <= 7 ? 500 : 204));
    receivers.push(hook);
    const ws = await createWorkspace(db, uniqueSlug("deliver"), 0);
    const endpoint = await createWebhook(db, { allowPrivate: true }, ws.slug, { url: hook.url, events: ["fact.created"], internal: true });
    const ids = [...(await teachNumbered(db, ws.id, 1, 3)), ...(await teachNumbered(db, ws.id, 10, 3))];
    const instances = [new WebhookDeliverer(db, quiet, NOW_AGAIN), new WebhookDeliverer(db, quiet, NOW_AGAIN)];
    await drain(db, instances, endpoint.webhook_id);

    const delivered = hook.received.filter((_, i) => i >= 7);
    expect(delivered.map((r) => r.data.fact_id)).toEqual(ids);
    // Every failed request was the first event, again and again, under one id.
    expect(new Set(hook.received.slice(0, 8).map((r) => r.id)).size).toBe(1);
    expect(hook.received.slice(0, 8).every((r) => r.data.fact_id === ids[0])).toBe(true);
    // Two instances, one endpoint: never two deliveries at once.
    expect(hook.maxInFlight()).toBe(1);
    const log = await webhookDeliveries(db, endpoint.webhook_id);
    expect(log.filter((d) => d.status === 503)).toHaveLength(4);
    expect(log.filter((d) => d.status === 500)).toHaveLength(3);
    expect(log.filter((d) => d.status === 204)).toHaveLength(6);
    expect(Math.max(...log.map((d) => d.attempt))).toBe(8);
  });

  test("a private or loopback receiver is refused unless the operator allows it", async () => {
    const { db } = get();
    const hook = receiver();
    receivers.push(hook);
    const ws = await createWorkspace(db, uniqueSlug("deliver"), 0);
    await expect(createWebhook(db, { allowPrivate: false }, ws.slug, { url: hook.url, events: ["fact.created"], internal: false })).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(
      createWebhook(db, { allowPrivate: false }, ws.slug, { url: "https://127.0.0.1/hook", events: ["fact.created"], internal: false }),
    ).rejects.toMatchObject({
      code: "validation_error",
    });
    // Created while allowed, delivered by an instance that does not allow it: refused, logged, retried later.
    const endpoint = await createWebhook(db, { allowPrivate: true }, ws.slug, { url: hook.url, events: ["fact.created"], internal: false });
    await teachNumbered(db, ws.id, 1, 1);
    await new WebhookDeliverer(db, quiet, { allowPrivate: false }).deliverDue();
    expect(hook.received).toHaveLength(0);
    const [attempt] = await webhookDeliveries(db, endpoint.webhook_id);
    expect(attempt).toMatchObject({ status: null, attempt: 1 });
    expect(attempt!.error).toContain("https only");
    expect((await getWebhook(db, endpoint.webhook_id)).pending).toBe(1);
  });
});
