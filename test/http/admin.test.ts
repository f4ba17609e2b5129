/**
 * The admin API (/v1/admin): the admin credential, workspaces, keys (created here, used over REST,
 * revoked here), agents (and agent_slug picking one for an answer) and team, on both databases.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE_PROMPT } from "../../src/answers/runner";
import { createAdminToken } from "../../src/admin/credential";
import { answersHarness, untilFinal, type AnswersHarness } from "../helpers/answers";
import { call, TEST_ADMIN_TOKEN, uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";

describeEachDb("admin API", (get) => {
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
  const admin = (method: string, path: string, body?: unknown, key = TEST_ADMIN_TOKEN) => call(h.app, method, path, { key, body });

  test("the admin credential: MEMORYD_ADMIN_TOKEN or a stored admin token; API keys and wrong tokens get 401 with a challenge", async () => {
    expect((await admin("GET", "/v1/admin/workspaces")).status).toBe(200);
    const stored = await createAdminToken(get().db);
    expect(stored).toMatch(/^adm_[0-9A-Za-z]{40}$/);
    expect((await admin("GET", "/v1/admin/workspaces", undefined, stored)).status).toBe(200);
    const [row] = await get().db.sql<{ secret_hash: string }>`SELECT secret_hash FROM admin_tokens WHERE prefix = ${stored.slice(0, 12)}`;
    expect(row?.secret_hash).not.toContain(stored);

    const created = await admin("POST", "/v1/admin/workspaces/x/keys", { name: "k", scopes: ["memory.read"] });
    expect(created.status).toBe(404);
    for (const key of [undefined, "wrong-admin-token-000000", `adm_${"x".repeat(40)}`]) {
      const res = await call(h.app, "GET", "/v1/admin/workspaces", key === undefined ? {} : { key });
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe("admin_token_invalid");
      expect(res.headers.get("www-authenticate")).toStartWith('Bearer realm="memoryd-admin"');
    }
  });

  test("workspaces: create (201), duplicate (409), list, show with counts, credits set and add, validation", async () => {
    const slug = uniqueSlug("adm");
    const created = await admin("POST", "/v1/admin/workspaces", { slug, credits: 50 });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ slug, credits: 50 });
    expect((await admin("POST", "/v1/admin/workspaces", { slug })).json.error.code).toBe("already_exists");
    const bad = await admin("POST", "/v1/admin/workspaces", { slug: "Not A Slug" });
    expect([bad.status, bad.json.error.code, bad.json.error.details.fields[0].path]).toEqual([422, "validation_error", "slug"]);
    const listed = await admin("GET", "/v1/admin/workspaces");
    expect(listed.json.data.workspaces.map((w: { slug: string }) => w.slug)).toContain(slug);
    const shown = await admin("GET", `/v1/admin/workspaces/${slug}`);
    expect(shown.json.data).toMatchObject({ slug, credits: 50, live_facts: 0, active_keys: 0, end_users: 0, answers: 0 });
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/credits`, { mode: "add", amount: 25 })).json.data).toEqual({ slug, credits: 75 });
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/credits`, { mode: "set", amount: 5 })).json.data).toEqual({ slug, credits: 5 });
    const negative = await admin("POST", `/v1/admin/workspaces/${slug}/credits`, { mode: "add", amount: -10 });
    expect([negative.status, negative.json.error.code]).toEqual([422, "validation_error"]);
    expect((await admin("GET", "/v1/admin/workspaces/no-such-ws")).status).toBe(404);
  });

  test("keys: created with the secret shown once, used over REST, listed without it, revoked: the next request is 401 api_key_revoked", async () => {
    const slug = uniqueSlug("keys");
    await admin("POST", "/v1/admin/workspaces", { slug, credits: 10 });
    const created = await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "ci", scopes: ["memory.read", "memory.write"] });
    expect(created.status).toBe(201);
    const key = created.json.data;
    expect(key).toMatchObject({ name: "ci", scopes: ["memory.read", "memory.write"], audience: "internal", expires_at: null });
    expect(key.secret).toMatch(/^ak_test_/);
    expect((await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Ana's manager is Bo." }] } })).status).toBe(202);
    const listed = await admin("GET", `/v1/admin/workspaces/${slug}/keys`);
    expect(listed.json.data.keys).toHaveLength(1);
    expect(JSON.stringify(listed.json)).not.toContain(key.secret);
    const past = await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "old", scopes: ["memory.read"], expires_at: "2020-01-01T00:00:00Z" });
    expect([past.status, past.json.error.code]).toEqual([422, "validation_error"]);
    const scopes = await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "x", scopes: ["memory.rite"] });
    expect(scopes.json.error.details.fields[0].reason).toContain("expected one of memory.read, memory.write, answers.write");

    const revoked = await admin("POST", `/v1/admin/keys/${key.id}/revoke`);
    expect(revoked.json.data.revoked_at).not.toBeNull();
    const refused = await call(h.app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "manager" } });
    expect([refused.status, refused.json.error.code]).toEqual([401, "api_key_revoked"]);
    expect((await admin("GET", `/v1/admin/workspaces/${slug}`)).json.data).toMatchObject({ live_facts: 1, active_keys: 0 });
    expect((await admin("POST", "/v1/admin/keys/key_unknown/revoke")).status).toBe(404);
  });

  test("agents: main exists and is editable but not deletable; create, get, update, delete; agent_slug picks one for an answer", async () => {
    const slug = uniqueSlug("agents");
    await admin("POST", "/v1/admin/workspaces", { slug, credits: 100 });
    const listed = await admin("GET", `/v1/admin/workspaces/${slug}/agents`);
    expect(listed.json.data.agents.map((a: { slug: string }) => a.slug)).toEqual(["main"]);
    expect((await admin("DELETE", `/v1/admin/workspaces/${slug}/agents/main`)).status).toBe(422);
    const main = await admin("PATCH", `/v1/admin/workspaces/${slug}/agents/main`, { display_name: "Concierge", max_output_tokens: 300 });
    expect(main.json.data).toMatchObject({ slug: "main", display_name: "Concierge", max_output_tokens: 300, model: null, can_write_memory: true });

    const created = await admin("POST", `/v1/admin/workspaces/${slug}/agents`, {
      slug: "support",
      display_name: "Support",
      instructions: "Answer in one short sentence.",
      model: "claude-support-test",
      can_write_memory: false,
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ slug: "support", provider: "auto", max_output_tokens: 1024, can_write_memory: false });
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/agents`, { slug: "support", display_name: "Again" })).status).toBe(409);
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/agents`, { slug: "Bad Slug", display_name: "x" })).status).toBe(422);
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/agents/support`)).json.data.instructions).toBe("Answer in one short sentence.");
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/agents/nobody`)).status).toBe(404);

    // The answer runs as that agent: its model, its instructions after the memory block, no remember tool.
    const key = (await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "ask", scopes: ["answers.write", "memory.write"] })).json.data;
    await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Refunds take five days." }] } });
    fake.enqueue({ text: "Five days." });
    const asked = await call(h.app, "POST", "/v1/answers", {
      key: key.secret,
      body: { input: "How long do refunds take?", agent_slug: "support", stream: false },
    });
    expect((await untilFinal(h.app, get().db, key.secret, asked.json.data.answer_id)).status).toBe("completed");
    const sent = fake.requests.at(-1)!.body;
    expect(sent.model).toBe("claude-support-test");
    expect(sent.tools.map((t: { name: string }) => t.name)).toEqual(["search_memory"]);
    const system = typeof sent.system === "string" ? sent.system : JSON.stringify(sent.system);
    expect(system.startsWith(BASE_PROMPT)).toBe(true);
    expect(system.indexOf("Answer in one short sentence.")).toBeGreaterThan(system.indexOf("</workspace_memory>"));
    const [ran] = await get().db.sql<{ agent_slug: string }>`SELECT agent_slug FROM answers WHERE id = ${asked.json.data.answer_id}`;
    expect(ran?.agent_slug).toBe("support");

    const unknown = await call(h.app, "POST", "/v1/answers", { key: key.secret, body: { input: "hi", agent_slug: "ghost", stream: false } });
    expect([unknown.status, unknown.json.error.code]).toEqual([422, "validation_error"]);
    expect((await admin("DELETE", `/v1/admin/workspaces/${slug}/agents/support`)).json.data).toEqual({ deleted: "support" });
    const gone = await call(h.app, "POST", "/v1/answers", { key: key.secret, body: { input: "hi", agent_slug: "support", stream: false } });
    expect(gone.status).toBe(422);
    // Agents are per workspace: another workspace has only its own main.
    const other = uniqueSlug("other");
    await admin("POST", "/v1/admin/workspaces", { slug: other });
    expect((await admin("GET", `/v1/admin/workspaces/${other}/agents`)).json.data.agents.map((a: { display_name: string }) => a.display_name)).toEqual([
      "Main",
    ]);
  });

  test("team: add, list, remove; unknown member is 404", async () => {
    const slug = uniqueSlug("team");
    await admin("POST", "/v1/admin/workspaces", { slug });
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/team`, { name: "Priya  Shah" })).status).toBe(201);
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/team`)).json.data.members).toEqual(["Priya Shah"]);
    expect((await admin("DELETE", `/v1/admin/workspaces/${slug}/team/${encodeURIComponent("priya shah")}`)).status).toBe(200);
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/team`)).json.data.members).toEqual([]);
    expect((await admin("DELETE", `/v1/admin/workspaces/${slug}/team/Nobody`)).status).toBe(404);
  });

  test("facts: teach, browse with filters and cursor paging, history both ways, pin and unpin, delete (its replaced fact comes back)", async () => {
    const slug = uniqueSlug("facts");
    await admin("POST", "/v1/admin/workspaces", { slug });
    const taught = await admin("POST", `/v1/admin/workspaces/${slug}/facts`, {
      facts: [{ text: "Ana's manager is Bo." }, { text: "The password for staging is hunter2." }],
    });
    expect(taught.json.data).toMatchObject({ created: 2 });
    await admin("POST", `/v1/admin/workspaces/${slug}/facts`, { facts: [{ text: "Ana's manager is Cy." }] });
    await admin("POST", `/v1/admin/workspaces/${slug}/facts`, { facts: [{ text: "Dana prefers tea." }], end_user: { id: "u-1", name: "Dana" } });

    const live = (await admin("GET", `/v1/admin/workspaces/${slug}/facts`)).json.data;
    expect(live.facts.map((f: { text: string }) => f.text)).toEqual(["Dana prefers tea.", "Ana's manager is Cy.", "The password for staging is hunter2."]);
    expect(live.next_cursor).toBeNull();
    const all = (await admin("GET", `/v1/admin/workspaces/${slug}/facts?include_superseded=true`)).json.data.facts;
    expect(all).toHaveLength(4);
    const bo = all.find((f: { text: string }) => f.text === "Ana's manager is Bo.");
    const cy = all.find((f: { text: string }) => f.text === "Ana's manager is Cy.");
    expect(bo.superseded_by).toBe(cy.fact_id);
    const text = async (qs: string) => (await admin("GET", `/v1/admin/workspaces/${slug}/facts?${qs}`)).json.data.facts.map((f: { text: string }) => f.text);
    expect(await text("query=MANAGER")).toEqual(["Ana's manager is Cy."]);
    expect(await text("query=%25")).toEqual([]);
    expect(await text("sensitive=true")).toEqual(["The password for staging is hunter2."]);
    expect(await text("end_user=u-1")).toEqual(["Dana prefers tea."]);
    expect(await text("kind=preference")).toEqual(["Dana prefers tea."]);
    const first = (await admin("GET", `/v1/admin/workspaces/${slug}/facts?limit=2`)).json.data;
    expect(first.facts).toHaveLength(2);
    const second = (await admin("GET", `/v1/admin/workspaces/${slug}/facts?limit=2&cursor=${first.next_cursor}`)).json.data;
    expect([...first.facts, ...second.facts].map((f: { text: string }) => f.text)).toEqual(live.facts.map((f: { text: string }) => f.text));
    expect(second.next_cursor).toBeNull();
    const bad = await admin("GET", `/v1/admin/workspaces/${slug}/facts?kind=rumour&limit=0`);
    expect(bad.json.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual(["kind", "limit"]);

    const history = (await admin("GET", `/v1/admin/facts/${cy.fact_id}`)).json.data;
    expect(history.replaced.map((f: { text: string }) => f.text)).toEqual(["Ana's manager is Bo."]);
    expect(history.replaced_by).toEqual([]);
    expect((await admin("GET", `/v1/admin/facts/${bo.fact_id}`)).json.data.replaced_by.map((f: { fact_id: string }) => f.fact_id)).toEqual([cy.fact_id]);

    expect((await admin("POST", `/v1/admin/facts/${cy.fact_id}/pin`)).json.data).toEqual({ fact_id: cy.fact_id, pinned: true });
    expect(await text("pinned=true")).toEqual(["Ana's manager is Cy."]);
    await admin("POST", `/v1/admin/facts/${cy.fact_id}/unpin`);
    expect(await text("pinned=true")).toEqual([]);

    // A key holder's search sees the delete at once: Cy is gone and Bo, which Cy had replaced, is back.
    const key = (await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "r", scopes: ["memory.read"] })).json.data;
    const search = async () =>
      (await call(h.app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "Ana manager" } })).json.data.facts.map(
        (f: { fact_text: string }) => f.fact_text,
      );
    expect(await search()).toEqual(["Ana's manager is Cy."]);
    expect((await admin("DELETE", `/v1/admin/facts/${cy.fact_id}`)).json.data).toEqual({ fact_id: cy.fact_id, restored: [bo.fact_id] });
    expect(await search()).toEqual(["Ana's manager is Bo."]);
    expect((await admin("GET", `/v1/admin/facts/${cy.fact_id}`)).status).toBe(404);
    expect((await admin("DELETE", `/v1/admin/facts/${cy.fact_id}`)).status).toBe(404);
  });

  test("search as the workspace: ranked as an internal key, sensitive facts included, explain on request; unknown workspace 404", async () => {
    const slug = uniqueSlug("ask");
    await admin("POST", "/v1/admin/workspaces", { slug });
    await admin("POST", `/v1/admin/workspaces/${slug}/facts`, {
      facts: [{ text: "My physician is Dr. Okafor." }, { text: "The password for staging is hunter2." }, { text: "Refunds take five days." }],
    });
    const found = await admin("POST", `/v1/admin/workspaces/${slug}/search`, { query: "who is my doctor?", explain: true });
    expect(found.status).toBe(200);
    expect(found.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).toEqual(["My physician is Dr. Okafor."]);
    expect(found.json.data.facts[0].explanation.meaning).toEqual([
      { query_term: "doctor", fact_term: "physician", via: "neighbour", similarity: expect.any(Number), score: expect.any(Number) },
    ]);
    const secret = await admin("POST", `/v1/admin/workspaces/${slug}/search`, { query: "staging password" });
    expect(secret.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).toEqual(["The password for staging is hunter2."]);
    expect((await admin("POST", `/v1/admin/workspaces/${slug}/search`, { query: "" })).status).toBe(422);
    expect((await admin("POST", "/v1/admin/workspaces/no-such-workspace/search", { query: "doctor" })).status).toBe(404);
  });

  test("end users: list, export one user's facts as JSONL, forget with a receipt; recent answers", async () => {
    const slug = uniqueSlug("eu");
    await admin("POST", "/v1/admin/workspaces", { slug, credits: 10 });
    await admin("POST", `/v1/admin/workspaces/${slug}/facts`, {
      facts: [{ text: "Dana prefers tea." }, { text: "Dana lives in Porto." }],
      end_user: { id: "u-7", name: "Dana" },
    });
    await admin("POST", `/v1/admin/workspaces/${slug}/facts`, { facts: [{ text: "Office closes at six." }] });
    const key = (await admin("POST", `/v1/admin/workspaces/${slug}/keys`, { name: "a", scopes: ["answers.write"] })).json.data;
    fake.enqueue({ text: "Tea." });
    const asked = await call(h.app, "POST", "/v1/answers", {
      key: key.secret,
      body: { input: "What does Dana drink?", end_user: { id: "u-7" }, stream: false },
    });
    await untilFinal(h.app, get().db, key.secret, asked.json.data.answer_id);

    expect((await admin("GET", `/v1/admin/workspaces/${slug}/end-users`)).json.data.end_users).toEqual([
      { id: "u-7", name: "Dana", live_facts: 2, answers: 1 },
    ]);
    const exported = await call(h.app, "GET", `/v1/admin/workspaces/${slug}/end-users/u-7/export`, { key: TEST_ADMIN_TOKEN });
    expect(exported.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = exported.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { text: string; end_user: unknown }) => [l.text, l.end_user])).toEqual([
      ["Dana prefers tea.", { id: "u-7", name: "Dana" }],
      ["Dana lives in Porto.", { id: "u-7", name: "Dana" }],
    ]);
    const answers = (await admin("GET", `/v1/admin/workspaces/${slug}/answers`)).json.data;
    expect(answers.answers).toHaveLength(1);
    expect(answers.answers[0]).toMatchObject({ answer_id: asked.json.data.answer_id, status: "completed", agent_slug: "main", end_user_id: "u-7" });

    const receipt = (await admin("POST", `/v1/admin/workspaces/${slug}/end-users/u-7/forget`)).json.data;
    expect(receipt).toEqual({ workspace: slug, end_user_id: "u-7", facts_deleted: 2, answers_deleted: 1, conversations_deleted: 1, end_user_deleted: true });
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/end-users`)).json.data.end_users).toEqual([]);
    expect((await call(h.app, "GET", `/v1/admin/workspaces/${slug}/end-users/u-7/export`, { key: TEST_ADMIN_TOKEN })).text).toBe("");
    expect((await admin("GET", `/v1/admin/workspaces/${slug}/answers`)).json.data.answers).toEqual([]);
  });
});
