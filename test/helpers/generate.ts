import { expect } from "bun:test";
import { ModelError, type GenerateRequest, type RunTools } from "../../src/models/types";

/**
 * A provider's request as the runner builds it (a system prompt with memory, a short conversation,
 * both memory tools recording their calls), for the provider tests.
 */
export interface Harness {
  request: GenerateRequest & { tools: RunTools };
  deltas: string[];
  searches: string[];
  remembered: string[];
  controller: AbortController;
}

export function harness(overrides: Partial<Omit<GenerateRequest, "tools">> = {}, tools: Partial<RunTools> = {}): Harness {
  const searches: string[] = [];
  const remembered: string[] = [];
  const controller = new AbortController();
  const request: GenerateRequest & { tools: RunTools } = {
    model: "test-model",
    system: "You are memoryd's assistant.\n<context>\n- The deploy region is eu-west-1.\n</context>",
    messages: [
      { role: "user", content: "Where do we deploy?" },
      { role: "assistant", content: "In eu-west-1." },
      { role: "user", content: "And who owns billing?" },
    ],
    maxOutputTokens: 321,
    facts: [],
    signal: controller.signal,
    tools: {
      searchMemory:
        tools.searchMemory ??
        (async (query) => {
          searches.push(query);
          return { text: `- Billing is owned by Dana. [fact_billing]`, factIds: ["fact_billing"] };
        }),
      remember:
        tools.remember ??
        (async (fact) => {
          remembered.push(fact);
          return "Remembered as fact_new1.";
        }),
    },
    ...overrides,
  };
  return { request, deltas: [], searches, remembered, controller };
}

export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

export async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}
