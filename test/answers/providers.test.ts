/**
 * Providers chosen per agent, end to end through the app on both databases: one workspace with
 * `main` on Claude (auto, anthropic configured) and an agent on an OpenAI-compatible server; an
 * agent whose provider the server lacks fails its runs with `model_not_configured`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findWorkspace } from "../../src/auth/workspaces";
import { answersHarness, parseSse, untilFinal, type AnswersHarness } from "../helpers/answers";
import { call, makeKey, TEST_ADMIN_TOKEN, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";
import { createFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";

describeEachDb("providers per agent", (get) => {
  const agent = (h: AnswersHarness, key: TestKey, body: Record<string, unknown>) =>
    call(h.app, "POST", `/v1/admin/workspaces/${key.workspace}/agents`, { key: TEST_ADMIN_TOKEN, body });
  const ask = (h: AnswersHarness, key: TestKey, body: Record<string, unknown>) => call(h.app, "POST", "/v1/answers", { key: key.secret, body });

  describe("anthropic and openai both configured", () => {
    let claude: FakeAnthropic;
    let openai: FakeOpenAI;
    let h: AnswersHarness;
    beforeAll(async () => {
      claude = createFakeAnthropic();
      openai = createFakeOpenAI();
      h = await answersHarness(get().db, { anthropicUrl: claude.url, openaiUrl: openai.url });
    });
    afterAll(async () => {
      await h.stop();
      await Promise.all([claude.stop(), openai.stop()]);
    });

    test("main (auto) answers on Claude and an openai agent on the local server, streamed, with credits from its usage", async () => {
      const key = await makeKey(get().db);
      await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The billing service runs on Postgres 16." }] } });
      const created = await agent(h, key, { slug: "local-llm", display_name: "Local", provider: "openai", model: "llama3.1", instructions: "Be brief." });
      expect(created.status).toBe(201);
      expect(created.json.data).toMatchObject({ provider: "openai", model: "llama3.1" });

      claude.enqueue({ text: "Claude here." });
      const fromMain = parseSse((await ask(h, key, { input: "Who are you?" })).text);
      expect(fromMain.at(-2)!.data.output_text).toBe("Claude here.");
      expect(openai.requests.length).toBe(0);

      openai.enqueue({ text: "Billing runs on Postgres 16.", chunks: 4, usage: { prompt_tokens: 1500, completion_tokens: 600 } });
      const res = await ask(h, key, { input: "What does billing run on?", agent_slug: "local-llm" });
      const events = parseSse(res.text);
      expect(events.map((e) => e.event)).toEqual([
        "answer.created",
        "answer.delta",
        "answer.delta",
        "answer.delta",
        "answer.delta",
        "answer.completed",
        "done",
      ]);
      const completed = events.at(-2)!.data;
      expect(completed).toMatchObject({ status: "completed", output_text: "Billing runs on Postgres 16.", usage: { input_tokens: 1500, output_tokens: 600 } });
      expect(completed.sources.map((s: { fact_text: string }) => s.fact_text)).toContain("The billing service runs on Postgres 16.");

      const sent = openai.requests.at(-1)!.body;
      expect(sent.model).toBe("llama3.1");
      const system = sent.messages[0]!;
      expect(system.role).toBe("system");
      // The packet (opening with its "data, not instructions" notice) comes before the agent's instructions.
      expect(system.content).toContain("The billing service runs on Postgres 16.");
      expect(system.content!.indexOf("<workspace_memory>")).toBeGreaterThan(0);
      expect(system.content!.indexOf("Be brief.")).toBeGreaterThan(system.content!.indexOf("</workspace_memory>"));
      expect(sent.messages.at(-1)).toEqual({ role: "user", content: "What does billing run on?" });
      // 1,000 credits, then one answer of 2,100 tokens (ceil: 3) after the 1-credit main answer.
      const credits = (await findWorkspace(get().db, key.workspace)).credits;
      expect(credits).toBe(1000 - 1 - 3);
    });

    test("an openai agent without a model uses OPENAI_MODEL's default; its tool calls search and write memory", async () => {
      const key = await makeKey(get().db);
      await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Dana owns the billing service." }] } });
      await agent(h, key, { slug: "ollama", display_name: "Ollama", provider: "openai" });
      openai.enqueue(
        { toolCalls: { id: "call_1", name: "search_memory", input: { query: "billing owner" } } },
        { toolCalls: { id: "call_2", name: "remember", input: { fact: "Dana prefers weekly billing reports." } } },
        { text: "Dana owns billing." },
      );
      const queued = await ask(h, key, { input: "Who owns billing?", agent_slug: "ollama", stream: false });
      const answer = await untilFinal(h.app, get().db, key.secret, queued.json.data.answer_id);
      expect(answer).toMatchObject({ status: "completed", output_text: "Dana owns billing." });
      const requests = openai.requests.slice(-3);
      expect(requests.map((r) => r.body.model)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini", "gpt-4.1-mini"]);
      const toolAnswer = requests[1]!.body.messages.at(-1)!;
      expect(toolAnswer).toMatchObject({ role: "tool", tool_call_id: "call_1" });
      expect(toolAnswer.content).toContain("Dana owns the billing service.");
      const found = await call(h.app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "weekly billing reports" } });
      expect(found.json.data.facts[0]).toMatchObject({ fact_text: "Dana prefers weekly billing reports.", origin: "agent_inferred" });
    });

    test("errors from the OpenAI-compatible server end the run with a stable code", async () => {
      const key = await makeKey(get().db);
      await agent(h, key, { slug: "flaky", display_name: "Flaky", provider: "openai", model: "m" });
      openai.enqueue({ error: { status: 429, message: "slow down" } });
      const events = parseSse((await ask(h, key, { input: "Hello?", agent_slug: "flaky" })).text);
      expect(events.map((e) => e.event)).toEqual(["answer.created", "answer.failed", "done"]);
      expect(events[1]!.data.error).toEqual({ code: "model_rate_limited", message: expect.stringContaining("slow down") });
      expect((await findWorkspace(get().db, key.workspace)).credits).toBe(1000);
    });
  });

  describe("no language model configured", () => {
    let h: AnswersHarness;
    beforeAll(async () => {
      h = await answersHarness(get().db);
    });
    afterAll(() => h.stop());

    test("an agent on a provider the server lacks fails with model_not_configured, streamed and queued, at no cost", async () => {
      const key = await makeKey(get().db);
      await agent(h, key, { slug: "gpt", display_name: "GPT", provider: "openai" });
      await agent(h, key, { slug: "claude", display_name: "Claude", provider: "anthropic" });

      const events = parseSse((await ask(h, key, { input: "Hello?", agent_slug: "gpt" })).text);
      expect(events.map((e) => e.event)).toEqual(["answer.created", "answer.failed", "done"]);
      expect(events[1]!.data.error).toEqual({
        code: "model_not_configured",
        message: "the openai provider is not configured on this server (set OPENAI_BASE_URL or OPENAI_API_KEY)",
      });

      const queued = await ask(h, key, { input: "Hello?", agent_slug: "claude", stream: false });
      const failed = await untilFinal(h.app, get().db, key.secret, queued.json.data.answer_id);
      expect(failed).toMatchObject({ status: "failed", output_text: "", error: { code: "model_not_configured" } });
      expect(failed.error.message).toContain("ANTHROPIC_API_KEY");
      expect((await findWorkspace(get().db, key.workspace)).credits).toBe(1000);

      // main stays on auto, which is the local provider here.
      const local = parseSse((await ask(h, key, { input: "Anything?" })).text);
      expect(local.at(-2)!.event).toBe("answer.completed");
    });
  });

  test("shutdown cancels an openai model call mid-stream: the stream ends with shutting_down and the run goes back to the queue", async () => {
    const openai = createFakeOpenAI();
    const h = await answersHarness(get().db, { openaiUrl: openai.url });
    try {
      const key = await makeKey(get().db);
      await agent(h, key, { slug: "slow", display_name: "Slow", provider: "openai", model: "m" });
      openai.enqueue({ text: "one two three four five six", chunks: 6, delayMs: 1_000 });
      const pending = ask(h, key, { input: "Take your time", agent_slug: "slow" });
      for (let i = 0; i < 100 && openai.requests.length === 0; i++) await Bun.sleep(50);
      const started = Date.now();
      await h.engine.stop(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      const events = parseSse((await pending).text);
      expect(events.at(-2)).toMatchObject({ event: "answer.failed", data: { error: { code: "shutting_down" } } });
      const [row] = await get().db.sql<{ status: string }>`SELECT status FROM answers WHERE id = ${events[0]!.data.answer_id}`;
      expect(row?.status).toBe("queued");
      expect((await findWorkspace(get().db, key.workspace)).credits).toBe(1000);
    } finally {
      await openai.stop();
    }
  });
});
