import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { countTokens } from "../../src/memory/tokens";
import { createOpenAIProvider, tokenLimit, type OpenAIProviderOptions } from "../../src/models/openai";
import { MAX_MODEL_CALLS } from "../../src/models/tool-loop";
import type { ModelError, GenerateResult } from "../../src/models/types";
import { createFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { harness, modelError, type Harness } from "../helpers/generate";
import { providerContract } from "../helpers/provider-contract";

const API_KEY = "sk-openai-test-0123456789-SECRET";

let fake: FakeOpenAI;

beforeAll(() => {
  fake = createFakeOpenAI();
});
afterEach(() => fake.reset());
afterAll(() => fake.stop());

function provider(options: Partial<OpenAIProviderOptions> = {}) {
  return createOpenAIProvider({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0, ...options });
}

async function run(h: Harness, options: Partial<OpenAIProviderOptions> = {}): Promise<GenerateResult> {
  return provider(options).generate(h.request, (delta) => h.deltas.push(delta));
}

const sentMessages = (i: number) => fake.requests[i]!.body.messages;

describe("openai provider: streaming", () => {
  test("streams text in several deltas, returns exactly what was streamed, usage from the usage chunk", async () => {
    fake.enqueue({ text: "Billing is owned by Dana, per memory.", chunks: 5, usage: { prompt_tokens: 42, completion_tokens: 9 } });
    const h = harness();
    const result = await run(h);
    expect(h.deltas.length).toBe(5);
    expect(h.deltas.join("")).toBe(result.text);
    expect(result.text).toBe("Billing is owned by Dana, per memory.");
    expect(result.usage).toEqual({ input_tokens: 42, output_tokens: 9 });
  });

  test("sends the system prompt first, then the conversation, both tools, include_usage and max_tokens", async () => {
    fake.enqueue({ text: "ok" });
    const h = harness();
    await run(h);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body.model).toBe("test-model");
    expect(sent.body.messages).toEqual([{ role: "system", content: h.request.system }, ...h.request.messages]);
    expect(sent.body.stream).toBe(true);
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    // A server other than OpenAI's own gets max_tokens (Ollama reads nothing else).
    expect(sent.body.max_tokens).toBe(321);
    expect(sent.body.max_completion_tokens).toBeUndefined();
    expect(sent.body.tool_choice).toBeUndefined();
    const tools = sent.body.tools ?? [];
    expect(tools.map((t) => [t.type, t.function.name])).toEqual([
      ["function", "search_memory"],
      ["function", "remember"],
    ]);
    expect(tools[0]!.function.parameters.required).toEqual(["query"]);
    expect(tools[1]!.function.parameters.required).toEqual(["fact"]);
    for (const tool of tools) expect(tool.function.description.length).toBeGreaterThan(80);
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  test("a request with no tools (the capture model's) sends neither tools nor tool_choice: Chat Completions refuses an empty list", async () => {
    fake.enqueue({ text: '{"decisions":[]}' });
    const h = harness();
    const result = await provider().generate({ ...h.request, tools: null }, () => {});
    expect(result.text).toBe('{"decisions":[]}');
    expect(fake.requests[0]!.body.tools).toBeUndefined();
    expect(fake.requests[0]!.body.tool_choice).toBeUndefined();
  });

  test("OpenAI's own API gets max_completion_tokens (its reasoning models refuse max_tokens)", () => {
    expect(tokenLimit("https://api.openai.com/v1", 500)).toEqual({ max_completion_tokens: 500 });
    expect(tokenLimit("http://127.0.0.1:11434/v1", 500)).toEqual({ max_tokens: 500 });
  });

  test("without an API key no Authorization header is sent (local servers need none)", async () => {
    fake.enqueue({ text: "ok" });
    await createOpenAIProvider({ baseURL: fake.url, maxRetries: 0 }).generate(harness().request, () => {});
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("a server that reports no usage is charged by an o200k count of what was sent and received", async () => {
    fake.enqueue({ text: "Dana owns billing.", usage: false });
    const h = harness();
    const result = await run(h);
    expect(result.usage.output_tokens).toBe(countTokens("Dana owns billing."));
    const sent = [h.request.system, ...h.request.messages.map((m) => m.content)].join("\n");
    expect(result.usage.input_tokens).toBe(countTokens(sent));
  });

  test("an empty answer is an empty string", async () => {
    fake.enqueue({ text: "", usage: { prompt_tokens: 5, completion_tokens: 1 } });
    const h = harness();
    expect(await run(h)).toEqual({ text: "", usage: { input_tokens: 5, output_tokens: 1 } });
    expect(h.deltas).toEqual([]);
  });
});

describe("openai provider: tool calls", () => {
  test("search_memory: arguments streamed in fragments are assembled, run, and answered with a tool message", async () => {
    fake.enqueue(
      { text: "Let me check memory.", toolCalls: { id: "call_s1", name: "search_memory", input: { query: "billing owner" } } },
      { text: "Dana owns billing." },
    );
    const h = harness();
    const result = await run(h);
    expect(h.searches).toEqual(["billing owner"]);
    const second = sentMessages(1);
    expect(second.slice(0, 4)).toEqual(sentMessages(0));
    expect(second[4]).toEqual({
      role: "assistant",
      content: "Let me check memory.",
      tool_calls: [{ id: "call_s1", type: "function", function: { name: "search_memory", arguments: '{"query":"billing owner"}' } }],
    });
    expect(second[5]).toEqual({ role: "tool", tool_call_id: "call_s1", content: "- Billing is owned by Dana. [fact_billing]" });
    expect(second.length).toBe(6);
    expect(fake.requests[1]!.body.tools?.length).toBe(2);
    expect(result.text).toBe("Let me check memory.\n\nDana owns billing.");
    expect(h.deltas.join("")).toBe(result.text);
  });

  test("several calls in one turn run in order, each answered by its own tool message", async () => {
    fake.enqueue(
      {
        toolCalls: [
          { id: "call_a", name: "search_memory", input: { query: "first" } },
          { id: "call_b", name: "remember", input: { fact: "The team ships on Tuesdays." } },
          { id: "call_c", name: "search_memory", input: { query: "second" } },
        ],
      },
      { text: "Done." },
    );
    const h = harness();
    const result = await run(h);
    expect(h.searches).toEqual(["first", "second"]);
    expect(h.remembered).toEqual(["The team ships on Tuesdays."]);
    const second = sentMessages(1);
    expect(second[4]!.content).toBeNull();
    expect(second[4]!.tool_calls?.map((c) => c.id)).toEqual(["call_a", "call_b", "call_c"]);
    expect(second.slice(5).map((m) => [m.role, m.tool_call_id])).toEqual([
      ["tool", "call_a"],
      ["tool", "call_b"],
      ["tool", "call_c"],
    ]);
    expect(result.text).toBe("Done.");
  });

  test("Ollama's style (each call whole, all at index 0) is read as separate calls", async () => {
    fake.enqueue(
      {
        whole: true,
        toolCalls: [
          { id: "call_x", name: "search_memory", input: { query: "deploy" } },
          { id: "call_y", name: "search_memory", input: { query: "billing" } },
        ],
      },
      { text: "Both found." },
    );
    const h = harness();
    await run(h);
    expect(h.searches).toEqual(["deploy", "billing"]);
  });

  test(`tool calls across several turns, at most ${MAX_MODEL_CALLS} calls, the last with tool_choice none`, async () => {
    for (let i = 0; i < MAX_MODEL_CALLS + 2; i += 1) {
      fake.enqueue({ text: `Round ${i + 1}.`, toolCalls: { name: "search_memory", input: { query: `q${i + 1}` } } });
    }
    const h = harness();
    const result = await run(h);
    expect(fake.requests.length).toBe(MAX_MODEL_CALLS);
    expect(fake.pending()).toBe(2);
    expect(h.searches).toEqual(["q1", "q2", "q3"]);
    expect(fake.requests.map((r) => r.body.tool_choice)).toEqual([undefined, undefined, undefined, "none"]);
    // Each turn's assistant message and tool answer stay in the conversation.
    expect(sentMessages(3).map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]);
    expect(result.text).toBe("Round 1.\n\nRound 2.\n\nRound 3.\n\nRound 4.");
    expect(h.deltas.join("")).toBe(result.text);
  });

  test("usage is summed over all calls", async () => {
    fake.enqueue(
      { toolCalls: { name: "search_memory", input: { query: "x" } }, usage: { prompt_tokens: 100, completion_tokens: 20 } },
      { toolCalls: { name: "remember", input: { fact: "A fact." } }, usage: { prompt_tokens: 150, completion_tokens: 25 } },
      { text: "Answer.", usage: { prompt_tokens: 200, completion_tokens: 30 } },
    );
    expect((await run(harness())).usage).toEqual({ input_tokens: 450, output_tokens: 75 });
  });

  test("bad arguments, unknown tools and failing tools go back as errors, and the run goes on", async () => {
    fake.enqueue(
      {
        toolCalls: [
          { id: "call_fail", name: "search_memory", input: { query: "anything" } },
          { id: "call_json", name: "search_memory", input: '{"query": "unterminated' },
          { id: "call_unknown", name: "delete_everything", input: {} },
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
    expect((await run(h)).text).toBe("I could not search.");
    const results = sentMessages(1).slice(5);
    expect(results.map((m) => m.tool_call_id)).toEqual(["call_fail", "call_json", "call_unknown"]);
    expect(results[0]!.content).toBe("Error: search_memory failed: database is down");
    expect(results[1]!.content).toContain('"query" must be');
    expect(results[2]!.content).toContain('Unknown tool "delete_everything"');
  });

  test("an agent that may not write memory is offered search_memory only", async () => {
    fake.enqueue({ toolCalls: { id: "call_r", name: "remember", input: { fact: "Dana owns billing." } } }, { text: "Noted." });
    const h = harness();
    const { remember: _omitted, ...readOnly } = h.request.tools;
    h.request.tools = readOnly;
    await run(h);
    expect(fake.requests[0]!.body.tools?.map((t) => t.function.name)).toEqual(["search_memory"]);
    expect(sentMessages(1).at(-1)!.content).toBe('Error: Unknown tool "remember". Available tools: search_memory.');
  });

  test("a call without an id gets one, so its answer can refer to it", async () => {
    fake.enqueue({ whole: true, toolCalls: { id: "", name: "search_memory", input: { query: "x" } } }, { text: "ok" });
    await run(harness());
    const [assistant, tool] = sentMessages(1).slice(4);
    expect(assistant!.tool_calls?.[0]?.id).toMatch(/^call_/);
    expect(tool!.tool_call_id).toBe(assistant!.tool_calls?.[0]?.id ?? "missing");
  });
});

describe("openai provider: errors", () => {
  const cases: [number, ModelError["code"]][] = [
    [401, "model_auth_failed"],
    [403, "model_auth_failed"],
    [429, "model_rate_limited"],
    [500, "model_error"],
    [503, "model_unavailable"],
    [404, "model_error"],
  ];
  for (const [status, code] of cases) {
    test(`HTTP ${status} -> ${code}, with the server's message and without the API key`, async () => {
      fake.enqueue({ error: { status, message: `trouble with key ${API_KEY}` } });
      const h = harness();
      const error = await modelError(run(h));
      expect(error.code).toBe(code);
      expect(error.message).toContain(`HTTP ${status}`);
      expect(error.message).toContain("trouble with key");
      expect(error.message).not.toContain(API_KEY);
      expect(h.deltas).toEqual([]);
    });
  }

  test("an error object inside the stream -> model_error, after the text that did arrive", async () => {
    fake.enqueue({ text: "Partial", streamError: { message: "the model crashed" } });
    const h = harness();
    const error = await modelError(run(h));
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("the model crashed");
    expect(h.deltas.join("")).toBe("Partial");
  });

  test("a stream that ends before finish_reason -> model_unavailable, after the text that did arrive", async () => {
    fake.enqueue({ drop: true, text: "Half an ans" });
    const h = harness();
    expect((await modelError(run(h))).code).toBe("model_unavailable");
    expect(h.deltas.join("")).toBe("Half an ans");
  });

  test("a line that is not JSON -> model_error (malformed stream)", async () => {
    fake.enqueue({ malformed: true });
    const error = await modelError(run(harness()));
    expect(error.code).toBe("model_error");
    expect(error.message).toMatch(/malformed/);
  });
});

providerContract({
  name: "openai",
  apiKey: API_KEY,
  fake: () => fake,
  provider: (options) => createOpenAIProvider({ apiKey: API_KEY, ...options }),
  rootPath: "/v1",
  toolCall: (name, input) => ({ toolCalls: { name, input } }),
  error: (status) => ({ error: { status } }),
  overloaded: { response: { error: { status: 503 } }, code: "model_unavailable" },
  firstEvent: `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] })}\n\n`,
});
