/**
 * The capture model against the built binary on the embedded database: turned on through the
 * admin API, the worker judges a change with a fake model on loopback (the real Anthropic SDK in
 * the binary), the binary killed -9 while the model holds a call, and the restarted server takes
 * the job over; the CLI then explains the decision.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createFakeAnthropic } from "../helpers/fake-anthropic";
import { oracleResponder } from "../helpers/fake-capture-model";
import { cleanup, cliOk, request, startServer, tempDir } from "./binary";

afterAll(cleanup, 30_000);

const ADMIN = "capture-admin-token-0123456789";
const json = (method: string, body: unknown, key: string) => ({ method, key, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

test("a judged change survives kill -9 mid-call: the restarted binary takes the job over and applies it once; facts explain shows it", async () => {
  let calls = 0;
  const oracle = oracleResponder((newer, older) =>
    newer === "The quarterly planning is run by Oskar now." && older === "Mira runs the quarterly planning." ? "replaces" : undefined,
  );
  const fake = createFakeAnthropic({
    responder: (body) => {
      calls += 1;
      // The first call never answers: the server is killed while it waits.
      return calls === 1 ? { hang: true } : oracle(body);
    },
  });
  const dataDir = join(tempDir(), "data");
  const env = { MEMORYD_ADMIN_TOKEN: ADMIN, ANTHROPIC_API_KEY: "sk-e2e-capture-secret", ANTHROPIC_BASE_URL: fake.url };
  try {
    const first = await startServer({ dataDir, env });
    const key = first.secret!;
    const on = await request(first.url, "/v1/admin/workspaces/default/capture-model", json("PUT", { provider: "anthropic", model: "claude-e2e" }, ADMIN));
    expect(on.status).toBe(200);
    await request(first.url, "/v1/memory/facts", json("POST", { facts: [{ text: "Mira runs the quarterly planning." }] }, key));
    await request(first.url, "/v1/memory/facts", json("POST", { facts: [{ text: "The quarterly planning is run by Oskar now." }] }, key));
    await until("the model call", async () => (fake.requests.length > 0 ? true : undefined));
    first.proc.kill("SIGKILL");
    await first.exited(10_000);

    const second = await startServer({ dataDir, env });
    const superseded = await until("the model's decision", async () => {
      const page = await request(second.url, "/v1/admin/workspaces/default/supersessions", { key: ADMIN });
      return (JSON.parse(page.text).data.supersessions as any[]).find((s) => s.replaced.text === "Mira runs the quarterly planning.");
    });
    expect(superseded.by_model).toMatchObject({ model: "anthropic/claude-e2e", label: "replaces", applied: true });
    const decisions = await request(second.url, "/v1/admin/workspaces/default/capture-decisions", { key: ADMIN });
    expect(JSON.parse(decisions.text).data.decisions).toHaveLength(1);
    const metrics = await request(second.url, "/metrics", { key: ADMIN });
    expect(metrics.text).toContain('memoryd_capture_model_calls_total{kind="judge",outcome="ok"}');
    expect(second.stdout() + second.stderr() + first.stdout() + first.stderr()).not.toContain("sk-e2e-capture-secret");
    await second.stop();

    const explained = await cliOk(["facts", "explain", superseded.replaced.fact_id, "--data-dir", dataDir], { env });
    expect(explained).toContain("decided by the capture model:");
    expect(explained).toContain("by model anthropic/claude-e2e, judge-1");
    const status = JSON.parse(await cliOk(["capture-model", "status", "default", "--json", "--data-dir", dataDir], { env }));
    expect(status).toMatchObject({ enabled: true, provider: "anthropic", model: "claude-e2e" });
    expect(status.jobs.queued + status.jobs.running).toBe(0);
  } finally {
    await fake.stop();
  }
}, 120_000);
