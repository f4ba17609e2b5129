import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createAnthropicProvider, type AnthropicProviderOptions } from "../../src/models/anthropic";
import { MAX_MODEL_CALLS } from "../../src/models/tool-loop";
import type { ModelError, GenerateResult } from "../../src/models/types";
import { createFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic";
import { harness, modelError, type Harness } from "../helpers/generate";
import { providerContract } from "../helpers/provider-contract";

const API_KEY = "sk-ant-test-0123456789-SECRET";

let fake: FakeAnthropic;

beforeAll(() => {
  fake = createFakeAnthropic();
});
afterEach(() => fake.reset());
afterAll(() => fake.stop());

function provider(options: Partial<AnthropicProviderOptions> = {}) {
  return createAnthropicProvider({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0, ...options });
}

async function run(h: Harness, options: Partial<AnthropicProviderOptions> = {}): Promise<GenerateResult> {
  return provider(options).generate(h.request, (delta) => h.deltas.push(delta));
}

describe("anthropic provider: streaming", () => {
  test("streams text in several deltas and returns exactly what was streamed", async () => {
    fake.enqueue({ text: "Billing is owned by Dana, per memory.", chunks: 5, usage: { input_tokens: 42, output_tokens: 9 } });
    const h = harness();
    const result = await run(h);
    expect(h.deltas.length).toBe(5);
    expect(h.deltas.join("")).toBe(result.text);
    expect(result.text).toBe("Billing is owned by Dana, per memory.");
    expect(result.usage).toEqual({ input_tokens: 42, output_tokens: 9 });
  });

  test("sends model, system prompt, messages and max_tokens as given, with both tools", async () => {
    fake.enqueue({ text: "ok" });
    const h = harness();
    await run(h);
    expect(fake.requests.length).toBe(1);
    const sent = fake.requests[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/messages");
    expect(sent.body.model).toBe("test-model");
    expect(sent.body.system).toBe(h.request.system);
    expect(sent.body.messages).toEqual(h.request.messages);
    expect(sent.body.max_tokens).toBe(321);
    expect(sent.body.stream).toBe(true);
    expect(sent.body.tool_choice).toBeUndefined();
    const tools = sent.body.tools as { name: string; description: string; input_schema: { required: string[] } }[];
    expect(tools.map((t) => t.name)).toEqual(["search_memory", "remember"]);
    expect(tools[0]!.input_schema.required).toEqual(["query"]);
    expect(tools[1]!.input_schema.required).toEqual(["fact"]);
    for (const tool of tools) expect(tool.description.length).toBeGreaterThan(80);
    // The key travels in a header only (this SDK version sends it as a bearer token).
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers["anthropic-version"]).toBeString();
  });

  test("an empty answer is an empty string with usage", async () => {
    fake.enqueue({ text: "", usage: { input_tokens: 5, output_tokens: 1 } });
    const h = harness();
    const result = await run(h);
    expect(result).toEqual({ text: "", usage: { input_tokens: 5, output_tokens: 1 } });
    expect(h.deltas).toEqual([]);
  });
});

describe("anthropic provider: tool loop", () => {
  test("an agent that may not write memory is not offered remember, and a call to it is refused", async () => {
    fake.enqueue({ toolUse: { id: "toolu_rem", name: "remember", input: { fact: "Dana owns billing." } } }, { text: "Noted." });
    const h = harness();
    const { remember: _omitted, ...readOnly } = h.request.tools;
    h.request.tools = readOnly;
    await run(h);
    expect(fake.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(["search_memory"]);
    expect(fake.requests[1]!.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      is_error: true,
      content: 'Unknown tool "remember". Available tools: search_memory.',
    });
    expect(h.remembered).toEqual([]);
  });

  test("search_memory: runs the search and sends the result back as a tool_result", async () => {
    fake.enqueue(
      { text: "Let me check memory.", toolUse: { id: "toolu_search1", name: "search_memory", input: { query: "billing owner" } } },
      { text: "Dana owns billing." },
    );
    const h = harness();
    const result = await run(h);

    expect(h.searches).toEqual(["billing owner"]);
    expect(fake.requests.length).toBe(2);
    const second = fake.requests[1]!.body.messages;
    expect(second.slice(0, 3)).toEqual(h.request.messages);
    expect(second[3]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Let me check memory." },
        { type: "tool_use", id: "toolu_search1", name: "search_memory", input: { query: "billing owner" } },
      ],
    });
    expect(second[4]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_search1", content: "- Billing is owned by Dana. [fact_billing]" }],
    });
    expect(second.length).toBe(5);
    // The system prompt and tools are sent again on every call.
    expect(fake.requests[1]!.body.system).toBe(h.request.system);
    expect(fake.requests[1]!.body.tools.length).toBe(2);

    // Text from both turns, separated, exactly as streamed.
    expect(result.text).toBe("Let me check memory.\n\nDana owns billing.");
    expect(h.deltas.join("")).toBe(result.text);
  });

  test("remember: stores the fact and returns the confirmation to the model", async () => {
    fake.enqueue({ toolUse: { id: "toolu_rem1", name: "remember", input: { fact: "Dana prefers PostgreSQL for new services." } } }, { text: "Noted." });
    const h = harness();
    const result = await run(h);
    expect(h.remembered).toEqual(["Dana prefers PostgreSQL for new services."]);
    expect(h.searches).toEqual([]);
    const last = fake.requests[1]!.body.messages.at(-1);
    expect(last).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_rem1", content: "Remembered as fact_new1." }],
    });
    // No text in the first turn, so no separator.
    expect(result.text).toBe("Noted.");
    expect(h.deltas.join("")).toBe("Noted.");
  });

  test("every tool call of a turn runs, in order, answered in one user message", async () => {
    fake.enqueue(
      {
        toolUse: [
          { id: "toolu_a", name: "search_memory", input: { query: "first" } },
          { id: "toolu_b", name: "remember", input: { fact: "The team ships on Tuesdays." } },
          { id: "toolu_c", name: "search_memory", input: { query: "second" } },
        ],
      },
      { text: "Done." },
    );
    const h = harness();
    await run(h);
    expect(h.searches).toEqual(["first", "second"]);
    expect(h.remembered).toEqual(["The team ships on Tuesdays."]);
    const results = fake.requests[1]!.body.messages.at(-1).content as { tool_use_id: string }[];
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
  });

  test(`stops after ${MAX_MODEL_CALLS} model calls, the last one without tool use`, async () => {
    for (let i = 0; i < MAX_MODEL_CALLS + 2; i += 1) {
      fake.enqueue({ text: `Round ${i + 1}.`, toolUse: { name: "search_memory", input: { query: `q${i + 1}` } } });
    }
    const h = harness();
    const result = await run(h);
    expect(fake.requests.length).toBe(MAX_MODEL_CALLS);
    expect(fake.pending()).toBe(2);
    // Tools run for every call but the last.
    expect(h.searches).toEqual(["q1", "q2", "q3"]);
    expect(fake.requests.map((r) => r.body.tool_choice)).toEqual([undefined, undefined, undefined, { type: "none" }]);
    expect(result.text).toBe("Round 1.\n\nRound 2.\n\nRound 3.\n\nRound 4.");
    expect(h.deltas.join("")).toBe(result.text);
  });

  test("usage is summed over all calls", async () => {
    fake.enqueue(
      { toolUse: { name: "search_memory", input: { query: "x" } }, usage: { input_tokens: 100, output_tokens: 20 } },
      { toolUse: { name: "remember", input: { fact: "A fact." } }, usage: { input_tokens: 150, output_tokens: 25 } },
      { text: "Answer.", usage: { input_tokens: 200, output_tokens: 30 } },
    );
    const result = await run(harness());
    expect(result.usage).toEqual({ input_tokens: 450, output_tokens: 75 });
  });

  test("tool failures and bad input go back to the model as errors, and the run goes on", async () => {
    fake.enqueue(
      {
        toolUse: [
          { id: "toolu_fail", name: "search_memory", input: { query: "anything" } },
          { id: "toolu_bad", name: "search_memory", input: { q: "wrong field" } },
          { id: "toolu_blank", name: "remember", input: { fact: "   " } },
          { id: "toolu_unknown", name: "delete_everything", input: {} },
        ],
      },
      { text: "I could not search." },
    );
    const h = harness(
      {},
      {
        searchMemory: async () => {
          throw new Error("database is down");
        },
      },
    );
    const result = await run(h);
    expect(result.text).toBe("I could not search.");
    const results = fake.requests[1]!.body.messages.at(-1).content as { tool_use_id: string; is_error?: boolean; content: string }[];
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ["toolu_fail", true],
      ["toolu_bad", true],
      ["toolu_blank", true],
      ["toolu_unknown", true],
    ]);
    expect(results[0]!.content).toContain("database is down");
    expect(results[1]!.content).toContain("query");
    expect(results[3]!.content).toContain("Unknown tool");
    expect(h.remembered).toEqual([]);
  });

  test("an empty search result tells the model that nothing matched", async () => {
    fake.enqueue({ toolUse: { id: "toolu_e", name: "search_memory", input: { query: "nothing" } } }, { text: "Nothing." });
    const h = harness({}, { searchMemory: async () => ({ text: "", factIds: [] }) });
    await run(h);
    const result = fake.requests[1]!.body.messages.at(-1).content[0];
    expect(result.is_error).toBeUndefined();
    expect(result.content).toMatch(/no facts/i);
  });
});

describe("anthropic provider: errors", () => {
  const cases: [number, string, ModelError["code"]][] = [
    [429, "rate_limit_error", "model_rate_limited"],
    [529, "overloaded_error", "model_overloaded"],
    [401, "authentication_error", "model_auth_failed"],
    [403, "permission_error", "model_auth_failed"],
    [500, "api_error", "model_error"],
    [400, "invalid_request_error", "model_error"],
  ];
  for (const [status, type, code] of cases) {
    test(`HTTP ${status} ${type} -> ${code}, without the API key in the message`, async () => {
      // The server's message even echoes the key; the ModelError must not.
      fake.enqueue({ error: { status, type, message: `problem with key ${API_KEY}` } });
      const h = harness();
      const error = await modelError(run(h));
      expect(error.code).toBe(code);
      expect(error.message).not.toContain(API_KEY);
      expect(error.message).toContain(String(status));
      expect(h.deltas).toEqual([]);
    });
  }

  test("an error event in the middle of the stream maps by its type", async () => {
    fake.enqueue({ text: "Partial", streamError: { type: "overloaded_error", message: "Overloaded" } });
    const h = harness();
    const error = await modelError(run(h));
    expect(error.code).toBe("model_overloaded");
    expect(h.deltas.join("")).toBe("Partial");
  });

  test("a stream dropped after message_start -> model_unavailable, after the text that did arrive", async () => {
    fake.enqueue({ drop: true, text: "Half an ans" });
    const h = harness();
    const error = await modelError(run(h));
    expect(error.code).toBe("model_unavailable");
    expect(h.deltas.join("")).toBe("Half an ans");
  });
});

providerContract({
  name: "anthropic",
  apiKey: API_KEY,
  fake: () => fake,
  provider: (options) => createAnthropicProvider({ apiKey: API_KEY, ...options }),
  rootPath: "",
  toolCall: (name, input) => ({ toolUse: { name, input } }),
  error: (status) => ({ error: { status } }),
  overloaded: { response: { error: { status: 529 } }, code: "model_overloaded" },
  firstEvent: `event: message_start\ndata: ${JSON.stringify({
    type: "message_start",
    message: {
      id: "msg_reset",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  })}\n\n`,
});
