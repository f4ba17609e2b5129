/** memoryd/client against the real server (app.handle through the client's own fetch), on both databases. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { findWorkspace } from "../../src/auth/workspaces";
import { type AnswerEvent, Memoryd, MemorydError } from "../../src/client";
import { makeKey, type TestKey } from "../helpers/app";
import { answersHarness, type AnswersHarness } from "../helpers/answers";
import { describeEachDb } from "../helpers/databases";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";

type Fetch = (input: string, init: RequestInit) => Promise<Response>;

describeEachDb("memoryd/client", (get) => {
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

  const server: Fetch = (input, init) => h.app.handle(new Request(input, init));
  const clientFor = (key: TestKey, fetch: Fetch = server, maxRetries = 2) =>
    new Memoryd({ baseUrl: "http://memoryd.test", apiKey: key.secret, fetch, maxRetries });
  const answerCount = async (workspace: string): Promise<number> => {
    const ws = await findWorkspace(get().db, workspace);
    const rows = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM answers WHERE workspace_id = ${ws.id}`;
    return rows[0]?.n ?? 0;
  };

  test("memory: whoami, teach, teach from messages, search, context and the facts API", async () => {
    const key = await makeKey(get().db);
    const memoryd = clientFor(key);
    expect((await memoryd.whoami()).scopes).toContain("memory.write");
    expect(await memoryd.teach({ facts: [{ text: "Ana's manager is Bo." }, { text: "The billing service runs on Postgres 16." }] })).toEqual({
      accepted_fact_count: 2,
      created: 2,
      superseded: 0,
      skipped: 0,
    });
    const taught = await memoryd.teachMessages({
      messages: [
        { role: "user", content: "My sister Ana works at the aquarium. What's the weather?" },
        { role: "assistant", content: "Your manager is Tom." },
      ],
    });
    expect(taught).toMatchObject({ statements: ["My sister Ana works at the aquarium."], created: 1 });
    const found = await memoryd.search({ query: "what does billing run on" });
    expect(found.facts[0]?.fact_text).toBe("The billing service runs on Postgres 16.");
    const packet = await memoryd.context({ query: "Ana", token_budget: 500 });
    expect(packet.rendered).toContain("Ana's manager is Bo.");
    const listed = await memoryd.facts.list({ limit: 2 });
    expect(listed.facts).toHaveLength(2);
    expect((await memoryd.facts.list({ cursor: listed.next_cursor ?? undefined })).facts).toHaveLength(1);
    const [bo] = (await memoryd.search({ query: "Ana manager", limit: 1 })).facts;
    expect((await memoryd.facts.get(bo!.fact_id)).fact.fact_text).toBe("Ana's manager is Bo.");
    expect(await memoryd.facts.delete(bo!.fact_id)).toEqual({ fact_id: bo!.fact_id, restored: [] });
    expect((await memoryd.search({ query: "Ana manager" })).facts.map((f) => f.fact_text)).not.toContain("Ana's manager is Bo.");
  });

  test("answers: queued, polled until final, and streamed event by event", async () => {
    const key = await makeKey(get().db);
    const memoryd = clientFor(key);
    await memoryd.teach({ facts: [{ text: "The billing service runs on Postgres 16." }] });
    fake.enqueue({ text: "Billing runs on Postgres 16." });
    const queued = await memoryd.answers.create({ input: "What does billing run on?" });
    expect(queued.status).toBe("queued");
    const answer = await memoryd.answers.wait(queued.answer_id, { includeSources: true, pollMs: 25 });
    expect(answer).toMatchObject({ status: "completed", output_text: "Billing runs on Postgres 16." });
    expect((await memoryd.answers.get(queued.answer_id)).status).toBe("completed");

    fake.enqueue({ text: "Streaming works in several pieces.", chunks: 4 });
    const events: AnswerEvent[] = [];
    for await (const event of memoryd.answers.stream({ input: "Does streaming work?" })) events.push(event);
    expect(events[0]?.event).toBe("answer.created");
    expect(events.at(-1)).toEqual({ event: "done", data: { ok: true } });
    const deltas = events.flatMap((e) => (e.event === "answer.delta" ? [e.data.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Streaming works in several pieces.");
    expect(events.find((e) => e.event === "answer.completed")).toMatchObject({ data: { output_text: "Streaming works in several pieces." } });
  });

  test("a stream cut mid-way is an error, not a silent end", async () => {
    const key = await makeKey(get().db);
    fake.enqueue({ text: "This answer never reaches the end of the wire.", chunks: 4 });
    // The server's stream, cut after its first event.
    const cut: Fetch = async (input, init) => {
      const response = await server(input, init);
      const reader = response.body!.getReader();
      const first = await reader.read();
      void reader.cancel();
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(first.value!);
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: response.headers });
    };
    const events: string[] = [];
    const failure = await (async () => {
      for await (const event of clientFor(key, cut).answers.stream({ input: "Say something long." })) events.push(event.event);
    })().catch((error: unknown) => error);
    expect(events).toEqual(["answer.created"]);
    expect(failure).toBeInstanceOf(MemorydError);
    expect((failure as MemorydError).code).toBe("stream_cut");
  });

  test("a lost connection and a 429 with Retry-After are retried, and the answer still runs once", async () => {
    const key = await makeKey(get().db);
    fake.enqueue({ text: "Once." });
    let attempts = 0;
    const keys: (string | null)[] = [];
    const flaky: Fetch = async (input, init) => {
      attempts += 1;
      keys.push(new Headers(init.headers).get("idempotency-key"));
      if (attempts === 1)
        return new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), { status: 429, headers: { "retry-after": "0" } });
      // The server takes the request, but its response is lost on the way back.
      if (attempts === 2) {
        await server(input, init);
        throw new TypeError("connection reset");
      }
      return server(input, init);
    };
    const queued = await clientFor(key, flaky).answers.create({ input: "Say once." });
    expect(attempts).toBe(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await answerCount(key.workspace)).toBe(1);
    expect((await clientFor(key).answers.wait(queued.answer_id, { pollMs: 25 })).output_text).toBe("Once.");
  });

  test("errors are typed: the envelope's status, code, message and details; no retry where a retry could repeat a write", async () => {
    const key = await makeKey(get().db);
    const wrong = new Memoryd({ baseUrl: "http://memoryd.test", apiKey: "mk_not_a_real_key", fetch: server });
    const unauthorised = await wrong.whoami().catch((error: unknown) => error);
    expect(unauthorised).toBeInstanceOf(MemorydError);
    expect((unauthorised as MemorydError).status).toBe(401);
    const invalid = (await clientFor(key)
      .search({ query: "" })
      .catch((error: unknown) => error)) as MemorydError;
    expect([invalid.status, invalid.code]).toEqual([422, "validation_error"]);
    expect(JSON.stringify(invalid.details)).toContain("query");
    let sent = 0;
    const down: Fetch = async () => {
      sent += 1;
      return new Response("upstream down", { status: 503 });
    };
    const teachFailure = (await clientFor(key, down)
      .teach({ facts: [{ text: "A fact." }] })
      .catch((error: unknown) => error)) as MemorydError;
    expect([teachFailure.status, teachFailure.code, sent]).toEqual([503, "http_error", 1]);
    sent = 0;
    await clientFor(key, down, 2)
      .search({ query: "anything" })
      .catch(() => undefined);
    expect(sent).toBe(3);
    const aborted = new AbortController();
    aborted.abort(new Error("caller gave up"));
    await expect(clientFor(key).whoami({ signal: aborted.signal })).rejects.toThrow("caller gave up");
    expect(() => new Memoryd({ baseUrl: "memoryd.test", apiKey: "k" })).toThrow("baseUrl");
  });
});
