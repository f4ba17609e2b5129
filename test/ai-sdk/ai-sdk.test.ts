/** memoryd/ai-sdk with the AI SDK's mock model, against the real server (app.handle through the client's fetch), on both databases. */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { generateText, stepCountIs, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { App } from "../../src/app";
import { memoryTools, withMemory } from "../../src/ai-sdk";
import { Memoryd, MemorydError } from "../../src/client";
import { toolsFor } from "../../src/mcp/tools";
import { ALL_SCOPES } from "../../src/schema/auth";
import type { ContextPacket } from "../../src/schema/memory";
import { makeKey, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

type Fetch = (input: string, init: RequestInit) => Promise<Response>;
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type Content = GenerateResult["content"];

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const answer = (content: Content, unified: GenerateResult["finishReason"]["unified"] = "stop"): GenerateResult => ({
  content,
  finishReason: { unified, raw: undefined },
  usage,
  warnings: [],
});
/** A mock model that answers `text`, whole or streamed in words. */
const replying = (text: string): MockLanguageModelV4 =>
  new MockLanguageModelV4({
    doGenerate: answer([{ type: "text", text }]),
    doStream: {
      stream: convertArrayToReadableStream([
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...text.split(/(?<= )/).map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
      ]),
    },
  });

test("memoryd/ai-sdk pulls in no server code: only its own modules, the tool specs and the schemas", async () => {
  const build = await Bun.build({ entrypoints: [join(import.meta.dir, "../../src/ai-sdk/index.ts")], packages: "external", metafile: true, target: "node" });
  const inputs = Object.keys(build.metafile?.inputs ?? {});
  expect(inputs).toContainEqual(expect.stringMatching(/src\/ai-sdk\/index\.ts$/));
  expect(inputs.filter((path) => !/(^|\/)src\/(ai-sdk\/|client\/|schema\/|mcp\/tool-specs\.ts$)/.test(path))).toEqual([]);
});

describeEachDb("memoryd/ai-sdk", (get) => {
  let app: App;
  beforeAll(() => {
    app = testApp(get().db);
  });
  const server: Fetch = (input, init) => app.handle(new Request(input, init));
  const newClient = async (fetch: Fetch = server, maxRetries = 2): Promise<{ memoryd: Memoryd; reader: Memoryd }> => {
    const key = await makeKey(get().db);
    const make = (f: Fetch): Memoryd => new Memoryd({ baseUrl: "http://memoryd.test", apiKey: key.secret, fetch: f, maxRetries });
    return { memoryd: make(fetch), reader: make(server) };
  };
  /** Polls the facts API until a fact's text contains `text` (the teach is fire and forget). */
  const eventuallyTaught = async (reader: Memoryd, text: string): Promise<string> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const found = (await reader.facts.list({ limit: 200 })).facts.find((f) => f.fact_text.includes(text));
      if (found) return found.fact_text;
      await Bun.sleep(50);
    }
    throw new Error(`no fact containing ${JSON.stringify(text)} was taught`);
  };

  test("a fact taught beforehand reaches the system prompt the model receives, after the app's own system text", async () => {
    const { memoryd } = await newClient();
    await memoryd.teach({ facts: [{ text: "The billing service runs on Postgres 16." }] });
    const model = replying("Postgres 16.");
    const errors: Error[] = [];
    const result = await generateText({
      model: withMemory(model, { client: memoryd, teach: false, onError: (e) => errors.push(e) }),
      system: "You are a helpful assistant.",
      prompt: "What does the billing service run on?",
    });
    expect(result.text).toBe("Postgres 16.");
    expect(errors).toEqual([]);
    const [system, ...rest] = model.doGenerateCalls[0]!.prompt;
    expect(system?.role).toBe("system");
    const content = system?.role === "system" ? system.content : "";
    expect(content.startsWith("You are a helpful assistant.\n\n<workspace_memory>")).toBe(true);
    expect(content).toContain("The billing service runs on Postgres 16.");
    expect(rest.map((m) => m.role)).toEqual(["user"]);
  });

  test("with no system prompt the memory block is one at the front; no user text, no memory call", async () => {
    const { memoryd } = await newClient();
    await memoryd.teach({ facts: [{ text: "The billing service runs on Postgres 16." }] });
    const model = replying("Postgres 16.");
    await generateText({ model: withMemory(model, { client: memoryd, teach: false }), prompt: "What does billing run on?" });
    expect(model.doGenerateCalls[0]!.prompt[0]).toMatchObject({ role: "system", content: expect.stringContaining("Postgres 16") });

    let sent = 0;
    const counting: Fetch = (input, init) => {
      sent += 1;
      return server(input, init);
    };
    const silent = replying("Hello.");
    const { memoryd: counted } = await newClient(counting);
    await generateText({ model: withMemory(silent, { client: counted }), messages: [{ role: "assistant", content: "Hi, how can I help?" }] });
    expect(sent).toBe(0);
    expect(silent.doGenerateCalls[0]!.prompt.map((m) => m.role)).toEqual(["assistant"]);
  });

  test("the turn is taught after generateText", async () => {
    const { memoryd, reader } = await newClient();
    const result = await generateText({
      model: withMemory(replying("Lisbon is lovely in spring."), { client: memoryd }),
      prompt: "I moved to Lisbon last spring.",
    });
    expect(result.text).toBe("Lisbon is lovely in spring.");
    expect(await eventuallyTaught(reader, "Lisbon")).toContain("moved to Lisbon");
  });

  test("the turn is taught when a streamText stream finishes, and the stream's text is whole", async () => {
    const { memoryd, reader } = await newClient();
    const result = streamText({ model: withMemory(replying("Porto is close by train."), { client: memoryd }), prompt: "I moved to Porto last spring." });
    expect(await result.text).toBe("Porto is close by train.");
    expect(await eventuallyTaught(reader, "Porto")).toContain("moved to Porto");
  });

  test("memoryd hanging: the call goes on without memory after timeoutMs, and onError hears why", async () => {
    // A fetch that never answers; it gives up only when its signal aborts.
    const hanging: Fetch = (_input, init) => new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const { memoryd } = await newClient(hanging, 0);
    const errors: Error[] = [];
    const model = replying("Fine without memory.");
    const result = await generateText({
      model: withMemory(model, { client: memoryd, timeoutMs: 200, teach: false, onError: (e) => errors.push(e) }),
      prompt: "What does the billing service run on?",
    });
    expect(result.text).toBe("Fine without memory.");
    expect(errors.map((e) => e.message)).toEqual(["memoryd gave no context within 200 ms"]);
    expect(model.doGenerateCalls[0]!.prompt.map((m) => m.role)).toEqual(["user"]);
  });

  test("memoryd down: the call and its stream go on without memory, and onError hears the failed read and the failed teach", async () => {
    const refused: Fetch = async () => {
      throw new TypeError("connection refused");
    };
    const { memoryd } = await newClient(refused, 0);
    const errors: Error[] = [];
    const options = { client: memoryd, timeoutMs: 200, onError: (e: Error) => errors.push(e) };
    expect((await generateText({ model: withMemory(replying("Still here."), options), prompt: "I live in Lisbon." })).text).toBe("Still here.");
    expect(await streamText({ model: withMemory(replying("Still streaming."), options), prompt: "I live in Lisbon." }).text).toBe("Still streaming.");
    for (let attempt = 0; attempt < 100 && errors.length < 4; attempt++) await Bun.sleep(20);
    expect(errors).toHaveLength(4);
    for (const error of errors) expect(error).toBeInstanceOf(MemorydError);
  });

  test("memoryTools: the MCP tools' names, descriptions and schemas; search_memory runs through generateText and finds the fact", async () => {
    const { memoryd } = await newClient();
    await memoryd.teach({ facts: [{ text: "The billing service runs on Postgres 16." }] });
    const model = new MockLanguageModelV4({
      doGenerate: [
        answer([{ type: "tool-call", toolCallId: "call-1", toolName: "search_memory", input: JSON.stringify({ query: "billing service" }) }], "tool-calls"),
        answer([{ type: "text", text: "Postgres 16." }]),
      ],
    });
    const result = await generateText({ model, tools: memoryTools(memoryd), stopWhen: stepCountIs(2), prompt: "What does billing run on?" });
    expect(result.text).toBe("Postgres 16.");
    const output = result.steps[0]!.toolResults[0]!.output as { facts: { fact_text: string }[] };
    expect(output.facts.map((f) => f.fact_text)).toContain("The billing service runs on Postgres 16.");

    const offered: unknown[] = (model.doGenerateCalls[0]!.tools ?? []).map((t) => (t.type === "function" ? [t.name, t.description, t.inputSchema] : [t.name]));
    const mcp = toolsFor([...ALL_SCOPES])
      .filter((t) => ["search_memory", "get_memory_context", "teach_memory"].includes(t.name))
      .map((t) => [t.name, t.description, t.inputSchema]);
    expect(offered).toEqual(mcp);
  });

  test("memoryTools with an end user: teach_memory and get_memory_context name them, whatever the model writes", async () => {
    const { memoryd } = await newClient();
    const ana = { id: "ana-1", name: "Ana" };
    const tools = memoryTools(memoryd, { endUser: ana });
    const options = { toolCallId: "c", messages: [], context: {} };
    await tools.teach_memory.execute!({ facts: [{ text: "Ana prefers window seats." }], end_user: { id: "someone-else" } }, options);
    // execute may return a stream of outputs in general; the memory tools return one.
    const packet = (await tools.get_memory_context.execute!({ query: "seat preference" }, options)) as ContextPacket;
    expect(packet.rendered).toContain("Ana prefers window seats.");
    expect((await memoryd.context({ query: "seat preference" })).rendered).not.toContain("Ana prefers window seats.");
  });
});
