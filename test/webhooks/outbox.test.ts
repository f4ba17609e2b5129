/**
 * The webhook outbox on both databases: events are written with the change they announce, per
 * subscribed endpoint, in order; endpoints that are not internal never get a fact an external key
 * could not see; forgetting an end user deletes their events; expiries are announced once.
 */
import { expect, test } from "bun:test";
import { createWorkspace, type Workspace } from "../../src/auth/workspaces";
import { captureFacts } from "../../src/capture/pipeline";
import type { Db } from "../../src/db/types";
import { forgetEndUser } from "../../src/memory/admin";
import { deleteFact } from "../../src/memory/browse";
import { announceExpiredFacts } from "../../src/webhooks/outbox";
import { createWebhook } from "../../src/webhooks/service";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const LOOPBACK = { allowPrivate: true };

async function outbox(db: Db, endpointId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await db.sql<{ payload: string }>`SELECT payload FROM webhook_events WHERE endpoint_id = ${endpointId} ORDER BY position`;
  return rows.map((r) => {
    const body = JSON.parse(r.payload) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    return { type: body.type, data: body.data };
  });
}

async function withEndpoints(db: Db): Promise<{ ws: Workspace; internal: string; external: string; factsOnly: string }> {
  const ws = await createWorkspace(db, uniqueSlug("hooks"), 0);
  const all = ["fact.created", "fact.superseded", "fact.deleted", "fact.expired", "end_user.forgotten", "answer.completed", "answer.failed"] as const;
  const internal = await createWebhook(db, LOOPBACK, ws.slug, { url: "http://127.0.0.1:9/internal", events: [...all], internal: true });
  const external = await createWebhook(db, LOOPBACK, ws.slug, { url: "http://127.0.0.1:9/external", events: [...all], internal: false });
  const factsOnly = await createWebhook(db, LOOPBACK, ws.slug, { url: "http://127.0.0.1:9/facts", events: ["fact.created"], internal: true });
  expect(internal.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  return { ws, internal: internal.webhook_id, external: external.webhook_id, factsOnly: factsOnly.webhook_id };
}

describeEachDb("webhook outbox", (get) => {
  test("teach writes fact.created and fact.superseded in order; an inferred fact never reaches an endpoint that is not internal", async () => {
    const { db } = get();
    const { ws, internal, external, factsOnly } = await withEndpoints(db);
    const first = await captureFacts(db, ws.id, [{ text: "Ana's manager is Bo.", origin: "user_stated" }]);
    const second = await captureFacts(db, ws.id, [
      { text: "Ana's manager is Cy.", origin: "user_stated" },
      { text: "Ana seems to enjoy hiking.", origin: "agent_inferred" },
    ]);
    const [bo, cy, hiking] = [first.factIds[0], second.factIds[0], second.factIds[1]];
    const seen = await outbox(db, internal);
    expect(seen.map((e) => [e.type, e.data.fact_id])).toEqual([
      ["fact.created", bo],
      ["fact.created", cy],
      ["fact.created", hiking],
      ["fact.superseded", bo],
    ]);
    expect(seen[0]!.data).toMatchObject({ fact_text: "Ana's manager is Bo.", origin: "user_stated", subject: "Ana", end_user_id: null, expires_at: null });
    expect(seen[3]!.data).toEqual({ fact_id: bo, superseded_by: cy });
    expect((await outbox(db, external)).map((e) => [e.type, e.data.fact_id])).toEqual([
      ["fact.created", bo],
      ["fact.created", cy],
      ["fact.superseded", bo],
    ]);
    expect((await outbox(db, factsOnly)).map((e) => e.type)).toEqual(["fact.created", "fact.created", "fact.created"]);

    // A duplicate writes nothing; a disabled endpoint gets nothing new.
    await db.sql`UPDATE webhook_endpoints SET enabled = false WHERE id = ${factsOnly}`;
    await captureFacts(db, ws.id, [
      { text: "Ana's manager is Cy.", origin: "user_stated" },
      { text: "Refunds take five days.", origin: "ingested" },
    ]);
    expect((await outbox(db, internal)).length).toBe(5);
    expect((await outbox(db, factsOnly)).length).toBe(3);
  });

  test("an agent's own facts and their supersession reach internal endpoints only, named by agent", async () => {
    const { db } = get();
    const { ws, internal, external } = await withEndpoints(db);
    const first = await captureFacts(db, ws.id, [{ text: "Ana's manager is Bo.", origin: "user_stated", agent: "support" }]);
    const second = await captureFacts(db, ws.id, [{ text: "Ana's manager is Cy.", origin: "user_stated", agent: "support" }]);
    const seen = await outbox(db, internal);
    expect(seen.map((e) => [e.type, e.data.fact_id])).toEqual([
      ["fact.created", first.factIds[0]],
      ["fact.created", second.factIds[0]],
      ["fact.superseded", first.factIds[0]],
    ]);
    expect(seen[0]!.data).toMatchObject({ agent: "support" });
    // Deleting the agent's live fact is announced inside only, as its creation was.
    await deleteFact(db, second.factIds[0]!);
    expect((await outbox(db, internal)).map((e) => e.type)).toEqual(["fact.created", "fact.created", "fact.superseded", "fact.deleted"]);
    expect(await outbox(db, external)).toEqual([]);
    // A workspace fact is announced everywhere, with no agent.
    await captureFacts(db, ws.id, [{ text: "Refunds take five days.", origin: "ingested" }]);
    expect((await outbox(db, external)).map((e) => [e.type, e.data.agent])).toEqual([["fact.created", null]]);
  });

  test("deleting a fact announces it; forgetting an end user deletes every event about them and announces that", async () => {
    const { db } = get();
    const { ws, internal, external } = await withEndpoints(db);
    const workspaceFact = await captureFacts(db, ws.id, [{ text: "Refunds take five days.", origin: "ingested" }]);
    await captureFacts(db, ws.id, [{ text: "I live in Lyon.", origin: "user_stated", endUser: { id: "cust-1" } }]);
    await captureFacts(db, ws.id, [{ text: "I live in Oslo.", origin: "user_stated", endUser: { id: "cust-1" } }]);
    await deleteFact(db, workspaceFact.factIds[0]!);
    expect((await outbox(db, internal)).map((e) => e.type)).toEqual(["fact.created", "fact.created", "fact.created", "fact.superseded", "fact.deleted"]);

    const receipt = await db.transaction((tx) => forgetEndUser(tx, ws, "cust-1"));
    expect(receipt.facts_deleted).toBe(2);
    for (const endpoint of [internal, external]) {
      const left = await outbox(db, endpoint);
      expect(left.map((e) => e.type)).toEqual(["fact.created", "fact.deleted", "end_user.forgotten"]);
      expect(JSON.stringify(left)).not.toContain("Lyon");
      expect(left[2]!.data).toEqual({ end_user_id: "cust-1", facts_deleted: 2 });
    }
  });

  test("an expiry that passed is announced once, to endpoints subscribed since before it", async () => {
    const { db } = get();
    const { ws, internal, external } = await withEndpoints(db);
    // The endpoints existed two hours ago; a fact observed then expired an hour ago.
    await db.sql`UPDATE webhook_endpoints SET created_at = now() - interval '2 hours' WHERE workspace_id = ${ws.id}`;
    const observed = new Date(Date.now() - 90 * 60_000);
    const expired = new Date(Date.now() - 60 * 60_000);
    const taught = await captureFacts(db, ws.id, [
      { text: "Bo is on leave this week.", origin: "ingested", recordedAt: observed, expiresAt: expired },
      {
        text: "Ancient news that expired before any endpoint.",
        origin: "ingested",
        recordedAt: new Date(Date.now() - 5 * 3_600_000),
        expiresAt: new Date(Date.now() - 3 * 3_600_000),
      },
    ]);
    expect(await announceExpiredFacts(db)).toBeGreaterThanOrEqual(1);
    expect(await announceExpiredFacts(db)).toBe(0);
    for (const endpoint of [internal, external]) {
      const expiries = (await outbox(db, endpoint)).filter((e) => e.type === "fact.expired");
      expect(expiries.map((e) => e.data)).toEqual([{ fact_id: taught.factIds[0], expires_at: expired.toISOString() }]);
    }
  });
});
