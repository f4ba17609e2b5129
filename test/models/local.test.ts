import { describe, expect, test } from "bun:test";
import { countTokens } from "../../src/memory/tokens";
import { createLocalProvider, LISTING_PREAMBLE, MAX_LISTED_FACTS, NOTHING_IN_MEMORY } from "../../src/models/local";
import { ModelError, type GenerateRequest } from "../../src/models/types";

type Fact = GenerateRequest["facts"][number];

function request(facts: Fact[], signal: AbortSignal = new AbortController().signal): GenerateRequest {
  return {
    model: "local",
    system: "You answer from memory.\n<context>...</context>",
    messages: [
      { role: "user", content: "What do we know about deploys?" },
      { role: "assistant", content: "Let me look." },
      { role: "user", content: "Go on." },
    ],
    maxOutputTokens: 500,
    facts,
    signal,
    tools: {
      searchMemory: async () => {
        throw new Error("the local provider must not call tools");
      },
      remember: async () => {
        throw new Error("the local provider must not call tools");
      },
    },
  };
}

const facts: Fact[] = [
  { fact_id: "fact_01", fact_text: "We deploy to eu-west-1.", kind: "decision", recorded_time: "2025-03-04T10:20:30.000Z" },
  { fact_id: "fact_02", fact_text: "Dana owns\nthe billing   service.", kind: "fact", recorded_time: "2024-12-31T23:59:59.999Z" },
  { fact_id: "fact_03", fact_text: "Prefer small PRs.", kind: "preference", recorded_time: "2025-01-15T00:00:00Z" },
];

async function generate(req: GenerateRequest) {
  const deltas: string[] = [];
  const result = await createLocalProvider().generate(req, (d) => deltas.push(d));
  return { result, deltas };
}

describe("local provider", () => {
  test("is named local", () => {
    expect(createLocalProvider().name).toBe("local");
  });

  test("with no facts, says plainly that memory has nothing on this yet", async () => {
    const { result, deltas } = await generate(request([]));
    expect(result.text.startsWith(NOTHING_IN_MEMORY)).toBe(true);
    expect(result.text).toMatch(/nothing in memory about this yet/);
    expect(result.text).not.toContain("\n- ");
    expect(deltas.join("")).toBe(result.text);
    expect(deltas.length).toBeGreaterThan(1);
  });

  test("lists one bullet per fact: text, kind, UTC date and id, in the given order", async () => {
    const { result } = await generate(request(facts));
    expect(result.text).toBe(
      [
        LISTING_PREAMBLE,
        "- We deploy to eu-west-1. (decision, 2025-03-04) [fact_01]",
        "- Dana owns the billing service. (fact, 2024-12-31) [fact_02]",
        "- Prefer small PRs. (preference, 2025-01-15) [fact_03]",
      ].join("\n"),
    );
    expect(LISTING_PREAMBLE).toContain("no language model is configured");
  });

  test(`lists at most ${MAX_LISTED_FACTS} facts, the first ones, and counts the rest`, async () => {
    const many: Fact[] = Array.from({ length: 14 }, (_, i) => ({
      fact_id: `fact_${String(i).padStart(2, "0")}`,
      fact_text: `Fact number ${i}.`,
      kind: "fact",
      recorded_time: "2025-06-01T12:00:00Z",
    }));
    const { result } = await generate(request(many));
    const bullets = result.text.split("\n").filter((line) => line.startsWith("- "));
    expect(bullets.length).toBe(MAX_LISTED_FACTS);
    expect(bullets[0]).toContain("[fact_00]");
    expect(bullets.at(-1)).toContain("[fact_09]");
    expect(result.text).not.toContain("[fact_10]");
    expect(result.text.split("\n").at(-1)).toBe("(4 more related facts not listed.)");
  });

  test("streams in several deltas, one per line, yielding to the event loop between them", async () => {
    const deltas: string[] = [];
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    const result = await createLocalProvider().generate(request(facts), (d) => deltas.push(d));
    clearInterval(timer);
    expect(deltas.length).toBe(4);
    expect(deltas.join("")).toBe(result.text);
    expect(deltas.slice(0, 3).every((d) => d.endsWith("\n"))).toBe(true);
    // Timers ran while it streamed: the pieces were not produced in one synchronous burst.
    expect(ticks).toBeGreaterThan(0);
  });

  test("counts usage with the packet tokenizer: input = system + messages, output = text", async () => {
    const req = request(facts);
    const { result } = await generate(req);
    const input = countTokens(req.system) + req.messages.reduce((n, m) => n + countTokens(m.content), 0);
    expect(result.usage.input_tokens).toBe(input);
    expect(result.usage.output_tokens).toBe(countTokens(result.text));
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
  });

  test("is deterministic", async () => {
    const a = await generate(request(facts));
    const b = await generate(request(facts));
    expect(b.result).toEqual(a.result);
    expect(b.deltas).toEqual(a.deltas);
  });

  test("an unparseable recorded_time is shown as given", async () => {
    const { result } = await generate(request([{ fact_id: "f", fact_text: "X.", kind: "fact", recorded_time: "someday" }]));
    expect(result.text).toContain("- X. (fact, someday) [f]");
  });

  test("stops with the abort reason when the signal is aborted", async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const promise = createLocalProvider().generate(request(facts, controller.signal), (d) => {
      deltas.push(d);
      controller.abort(new Error("stop"));
    });
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe("stop");
    expect(deltas.length).toBe(1);
  });
});
