import { afterAll, describe, expect, test } from "bun:test";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { receiver } from "../webhooks/support";
import { cleanup, request, startServer, tempDir, type StartOptions } from "./binary";

afterAll(cleanup, 30_000);

const modes = process.env.TEST_DATABASE_URL ? (["embedded", "postgres"] as const) : (["embedded"] as const);
const ADMIN = "webhook-admin-token-0123456789";
const env = { MEMORYD_ADMIN_TOKEN: ADMIN, MEMORYD_OUTBOUND_ALLOW_PRIVATE: "true" };
const post = (body: unknown, key: string) => ({ method: "POST", key, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * kill -9 between commit and delivery: the receiver holds the first delivery open, the server is
 * killed while it waits, and the restarted server delivers the event again under the same id;
 * every event arrives, in order.
 */
async function killedMidDelivery(target: StartOptions): Promise<void> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const hook = receiver(async (_, count) => {
    if (count === 1) await held;
    return 200;
  });
  try {
    const first = await startServer({ ...target, env });
    const key = first.secret!;
    const created = await request(first.url, "/v1/admin/workspaces/default/webhooks", {
      ...post({ url: hook.url, events: ["fact.created"] }, ADMIN),
    });
    expect(created.status).toBe(201);
    const taught = await request(
      first.url,
      "/v1/memory/facts",
      post({ facts: [{ text: "Crate 1 waits at the north depot." }, { text: "Crate 2 waits at the south depot." }] }, key),
    );
    expect(taught.status).toBe(202);
    const firstTry = await until("the first delivery", () => hook.received[0]);
    first.proc.kill("SIGKILL");
    await first.exited(10_000);
    release();

    const second = await startServer({ ...target, env });
    // The dead instance's lease on the endpoint runs out, then both events arrive in order.
    await until("both events", () => (hook.received.length >= 3 ? true : undefined));
    const texts = hook.received.map((r) => r.data.fact_text);
    expect(texts).toEqual(["Crate 1 waits at the north depot.", "Crate 1 waits at the north depot.", "Crate 2 waits at the south depot."]);
    expect(hook.received[1]!.id).toBe(firstTry.id);
    expect(hook.received[2]!.id).not.toBe(firstTry.id);
    const secret = created.json.data.secret as string;
    for (const r of hook.received) expect(hook.verify(secret, r)).toMatchObject({ type: "fact.created" });
    // The receiver answers before the server records the attempt: wait for the log to show both.
    const logged = async (): Promise<number[]> => {
      const log = await request(second.url, `/v1/admin/webhooks/${created.json.data.webhook_id}/deliveries`, { key: ADMIN });
      return log.json.data.deliveries.map((d: { status: number }) => d.status);
    };
    let statuses = await logged();
    for (const deadline = Date.now() + 30_000; statuses.length < 2 && Date.now() < deadline; statuses = await logged()) await Bun.sleep(50);
    expect(statuses).toEqual([200, 200]);
    expect(await second.stop("SIGTERM")).toBe(0);
  } finally {
    release();
    hook.stop();
  }
}

describe("webhooks (binary)", () => {
  for (const mode of modes) {
    test(`[${mode}] an event committed before kill -9 is delivered once the server is back, under the same id`, async () => {
      const target: StartOptions = mode === "postgres" ? { databaseUrl: await createPostgresDatabase() } : { dataDir: tempDir() };
      try {
        await killedMidDelivery(target);
      } finally {
        if (target.databaseUrl) await dropPostgresDatabase(target.databaseUrl);
      }
    }, 90_000);
  }
});
