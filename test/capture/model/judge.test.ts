/**
 * Judged changes end to end on both databases: teach through REST, the worker hands the new facts
 * and their candidates to a fake model (the real Anthropic SDK on loopback), and memoryd applies
 * what the gates let through; Review lists it "by model", undo restores it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, TEST_ADMIN_TOKEN } from "../../helpers/app";
import { captureHarness, type CaptureHarness } from "../../helpers/capture-model";
import { describeEachDb } from "../../helpers/databases";
import { oracleResponder, type Label } from "../../helpers/fake-capture-model";

/** Pairs the oracle knows: [newer, older, label]. */
const LABELS: [string, string, Label][] = [
  ["The weekly sync is on Thursdays now.", "The weekly sync happens on Mondays.", "replaces"],
  ["Is the weekly review on Fridays?", "The weekly review is on Wednesdays.", "replaces"],
  ["Priya is also looking at the Lisbon office.", "Priya works from the Berlin office.", "updates"],
  ["The staging cluster runs in Frankfurt.", "Staging runs in the Frankfurt region.", "duplicate"],
  ["The launch is set for March 3.", "The launch is pinned to February 20.", "replaces"],
];
const labelOf = (newer: string, older: string): Label | undefined => LABELS.find(([n, o]) => n === newer && o === older)?.[2];

describeEachDb("capture model: judged changes", (get) => {
  let h: CaptureHarness;
  beforeAll(async () => {
    h = await captureHarness(get().db, oracleResponder(labelOf));
  });
  afterAll(async () => h.stop());

  const search = async (query: string, extra: Record<string, unknown> = {}) =>
    (await call(h.app, "POST", "/v1/memory/search", { key: h.key.secret, body: { query, ...extra } })).json.data.facts.map(
      (f: { fact_text: string }) => f.fact_text,
    );
  const idOf = async (text: string): Promise<string> =>
    (await get().db.sql<{ id: string }>`SELECT id FROM facts WHERE text = ${text} ORDER BY id DESC LIMIT 1`)[0]!.id;

  test("a replacement the rules do not read is applied by the model, listed by model with its reason, and undone", async () => {
    const hook = await call(h.app, "POST", `/v1/admin/workspaces/${h.key.workspace}/webhooks`, {
      key: TEST_ADMIN_TOKEN,
      body: { url: "http://127.0.0.1:9/memoryd", events: ["fact.superseded"] },
    });
    expect(hook.status).toBe(201);
    await h.teach(["The weekly sync happens on Mondays."]);
    await h.drain();
    const taught = await h.teach(["The weekly sync is on Thursdays now."]);
    expect(taught.status).toBe(202);
    // Read-your-writes before the model: both live.
    expect(await search("weekly sync")).toEqual(expect.arrayContaining(["The weekly sync happens on Mondays.", "The weekly sync is on Thursdays now."]));
    await h.drain();
    expect(await search("weekly sync")).toEqual(["The weekly sync is on Thursdays now."]);

    const judged = h.fake.requests.find((r) => JSON.stringify(r.body).includes("Thursdays"))!;
    expect(judged.body.model).toBe("claude-capture");
    expect(judged.body.tools).toBeUndefined();
    expect(judged.body.messages[0].content).toContain("<fact>The weekly sync happens on Mondays.</fact>");

    const review = await call(h.app, "GET", `/v1/admin/workspaces/${h.key.workspace}/supersessions`, { key: TEST_ADMIN_TOKEN });
    const entry = review.json.data.supersessions.find((s: any) => s.replaced.text === "The weekly sync happens on Mondays.");
    expect(entry.by_model).toMatchObject({
      model: "anthropic/claude-capture",
      label: "replaces",
      reason: "oracle: replaces",
      applied: true,
      prompt: "judge-1",
    });

    const oldId = await idOf("The weekly sync happens on Mondays.");
    const [event] = await get().db.sql<{ payload: string }>`SELECT payload FROM webhook_events WHERE endpoint_id = ${hook.json.data.webhook_id}`;
    expect(JSON.parse(event!.payload).data).toEqual({
      fact_id: oldId,
      superseded_by: await idOf("The weekly sync is on Thursdays now."),
      decided_by: "model",
      model: "anthropic/claude-capture",
      label: "replaces",
      reason: "oracle: replaces",
    });
    const explained = await call(h.app, "GET", `/v1/admin/facts/${oldId}`, { key: TEST_ADMIN_TOKEN });
    expect(explained.json.data.model_decisions).toHaveLength(1);

    const undone = await call(h.app, "POST", `/v1/admin/facts/${oldId}/restore`, { key: TEST_ADMIN_TOKEN, body: { newer: "keep" } });
    expect(undone.status).toBe(200);
    expect(await search("weekly sync")).toHaveLength(2);
    const after = await call(h.app, "GET", `/v1/admin/facts/${oldId}`, { key: TEST_ADMIN_TOKEN });
    expect(after.json.data.model_decisions[0]).toMatchObject({ undone: true });
  });

  test("the gates: a question never replaces, a pinned fact is not hidden; both are recorded as vetoed", async () => {
    await h.teach(["The weekly review is on Wednesdays.", "The launch is pinned to February 20."]);
    await h.drain();
    const pinned = await idOf("The launch is pinned to February 20.");
    expect((await call(h.app, "POST", `/v1/admin/facts/${pinned}/pin`, { key: TEST_ADMIN_TOKEN })).status).toBe(200);
    await h.teach(["Is the weekly review on Fridays?", "The launch is set for March 3."]);
    await h.drain();
    expect(await search("weekly review")).toContain("The weekly review is on Wednesdays.");
    expect(await search("launch")).toContain("The launch is pinned to February 20.");
    const vetoed = await call(h.app, "GET", `/v1/admin/workspaces/${h.key.workspace}/capture-decisions?vetoed=true`, { key: TEST_ADMIN_TOKEN });
    expect(vetoed.json.data.decisions.map((d: any) => d.vetoed_by).sort()).toEqual(["not_a_plain_statement", "pinned"]);
  });

  test("updates links the newer fact (both live, newer first); duplicate makes the newer the older's history", async () => {
    await h.teach(["Priya works from the Berlin office.", "Staging runs in the Frankfurt region."]);
    await h.drain();
    await h.teach(["Priya is also looking at the Lisbon office.", "The staging cluster runs in Frankfurt."]);
    await h.drain();
    const found = await search("Priya office");
    expect(found.slice(0, 2)).toEqual(["Priya is also looking at the Lisbon office.", "Priya works from the Berlin office."]);
    const [row] = await get().db.sql<{ updates: string[]; link_reason: string }>`
      SELECT updates, link_reason FROM facts WHERE text = 'Priya is also looking at the Lisbon office.'`;
    expect(row!.updates).toEqual([await idOf("Priya works from the Berlin office.")]);
    expect(row!.link_reason).toContain("by model anthropic/claude-capture: oracle: updates");
    expect(await search("staging Frankfurt")).toEqual(["Staging runs in the Frankfurt region."]);
  });

  test("any applied decision is undone from its record: an updates link removed, a replacement reverted; a vetoed one is refused", async () => {
    const list = async (vetoed: boolean) =>
      (await call(h.app, "GET", `/v1/admin/workspaces/${h.key.workspace}/capture-decisions?vetoed=${vetoed}`, { key: TEST_ADMIN_TOKEN })).json.data.decisions;
    const updates = (await list(false)).find((d: any) => d.label === "updates");
    const undo = (id: string) => call(h.app, "POST", `/v1/admin/capture-decisions/${id}/undo`, { key: TEST_ADMIN_TOKEN });
    const unlinked = await undo(updates.decision_id);
    expect(unlinked.json.data).toEqual({ decision_id: updates.decision_id, label: "updates", restored: null, unlinked: true });
    const [row] = await get().db.sql<{ updates: string[] }>`SELECT updates FROM facts WHERE id = ${updates.fact_id}`;
    expect(row!.updates).toEqual([]);
    expect((await undo(updates.decision_id)).json.error.code).toBe("decision_not_applied");

    const duplicate = (await list(false)).find((d: any) => d.label === "duplicate");
    const restored = await undo(duplicate.decision_id);
    expect(restored.json.data.restored).toBe(duplicate.fact_id);
    expect(await search("staging Frankfurt")).toHaveLength(2);

    const vetoed = (await list(true))[0];
    const refused = await undo(vetoed.decision_id);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain("was vetoed");
    expect((await undo("cdec_nope")).status).toBe(404);
  });

  test("the capture model's status: tokens used today, the queue, and metrics-free labels", async () => {
    const status = await call(h.app, "GET", `/v1/admin/workspaces/${h.key.workspace}/capture-model`, { key: TEST_ADMIN_TOKEN });
    expect(status.json.data).toMatchObject({ enabled: true, provider: "anthropic", model: "claude-capture", budget_spent: false });
    expect(status.json.data.tokens_today).toBeGreaterThan(0);
    expect(status.json.data.jobs.queued).toBe(0);
    expect(status.json.data.jobs.done).toBeGreaterThan(0);
  });

  test("without a capture model nothing is queued, and a provider this server lacks is refused", async () => {
    const off = await call(h.app, "DELETE", `/v1/admin/workspaces/${h.key.workspace}/capture-model`, { key: TEST_ADMIN_TOKEN });
    expect(off.json.data.enabled).toBe(false);
    const before = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM capture_jobs`;
    await h.teach(["The on-call rotation changes every Tuesday."]);
    const after = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM capture_jobs`;
    expect(after[0]!.n).toBe(before[0]!.n);
    const refused = await call(h.app, "PUT", `/v1/admin/workspaces/${h.key.workspace}/capture-model`, { key: TEST_ADMIN_TOKEN, body: { provider: "openai" } });
    expect(refused.status).toBe(422);
    expect(refused.json.error.details.fields[0].path).toBe("provider");
  });
});

describe("capture model: the prompt never carries a key", () => {
  test("the judging prompt is under 600 tokens before the candidates", async () => {
    const { countTokens } = await import("../../../src/memory/tokens");
    const { JUDGE_PROMPT, systemText } = await import("../../../src/capture/model/prompts");
    expect(countTokens(systemText(JUDGE_PROMPT))).toBeLessThan(600);
  });
});
