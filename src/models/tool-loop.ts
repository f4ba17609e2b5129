/**
 * What the language-model providers share: the worker's two memory tools (names, descriptions,
 * input schemas), running one tool call into the text the model reads back, and the bounded loop
 * of streamed model calls around them. Each provider supplies only its wire format: one streamed
 * turn, and how a round of tool results goes back into its conversation.
 */
import { RememberToolInput, SearchMemoryToolInput } from "../schema/answers";
import { truncate } from "./failures";
import type { GenerateRequest, GenerateResult, RunTools, Usage } from "./types";

/** Model calls in one run, tool rounds included. */
export const MAX_MODEL_CALLS = 4;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 1;

/** How a provider's SDK client talks to its API. */
export interface ClientOptions {
  baseURL?: string;
  /**
   * Milliseconds to wait for a response to start, and the longest silence allowed between two
   * events of a streaming response. Default 120 000.
   */
  timeoutMs?: number;
  /** SDK retries of one model call (429, 5xx, connection failures, timeouts). Default 1. */
  maxRetries?: number;
}
/** Longest tool-input string accepted, and longest error text shown to the model. */
const MAX_TOOL_TEXT = 4_000;

export const SEARCH_MEMORY_TOOL = "search_memory";
export const REMEMBER_TOOL = "remember";

/** A tool as every API describes one: name, description, JSON Schema of its input. */
export interface ToolSpec {
  name: string;
  description: string;
  schema: typeof SearchMemoryToolInput | typeof RememberToolInput;
}

const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: SEARCH_MEMORY_TOOL,
    description:
      "Search this workspace's long-term memory for stored facts. The system prompt already holds the " +
      "facts retrieved for the user's latest message, so use this only when you need something that " +
      "isn't there: another topic, a person or project named in passing, a detail to confirm. " +
      "Returns the matching facts, most relevant first, or says that nothing matched. " +
      "Search again with different words before concluding memory has nothing; never invent facts.",
    schema: SearchMemoryToolInput,
  },
  {
    name: REMEMBER_TOOL,
    description:
      "Save one durable fact to this workspace's long-term memory so it is available in later conversations. " +
      "Use it when the user states a lasting preference, decision, or fact about themselves, their team, or " +
      "their work, or asks you to remember something; don't use it for small talk, guesses, secrets or " +
      "credentials, or things true only for this conversation. Write one self-contained sentence that makes " +
      "sense without this conversation: name the subject instead of 'he' or 'it', and use absolute dates " +
      "instead of 'yesterday'. Call it once per fact. Returns a short confirmation.",
    schema: RememberToolInput,
  },
];

/** The tools a run offers: `remember` only to an agent that may write memory. */
export function offeredTools(tools: RunTools | null): readonly ToolSpec[] {
  if (tools === null) return [];
  return tools.remember ? TOOL_SPECS : TOOL_SPECS.filter((t) => t.name !== REMEMBER_TOOL);
}

/** One tool call the model made; `input` is its parsed arguments (anything: the model wrote it). */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** What goes back to the model for one call. */
export interface ToolOutcome {
  call: ToolCall;
  content: string;
  isError: boolean;
}

/** The reason to reject with once `signal` is aborted. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function stringInput(input: unknown, field: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" || trimmed.length > MAX_TOOL_TEXT ? undefined : trimmed;
}

/**
 * Runs one call. A bad input, an unknown tool or a failing tool becomes an error result the model
 * reads (so it can correct itself); only an aborted run rejects.
 */
export async function runTool(call: ToolCall, tools: RunTools | null, signal: AbortSignal): Promise<ToolOutcome> {
  const result = (content: string, isError = false): ToolOutcome => ({ call, content, isError });
  if (tools === null) return result(`Unknown tool "${call.name}". No tools are available.`, true);
  try {
    if (call.name === SEARCH_MEMORY_TOOL) {
      const query = stringInput(call.input, "query");
      if (query === undefined) return result(`"query" must be a non-empty string of at most ${MAX_TOOL_TEXT} characters.`, true);
      const found = await tools.searchMemory(query);
      return result(found.text.trim() === "" ? "No facts in memory match this query." : found.text);
    }
    if (call.name === REMEMBER_TOOL && tools.remember) {
      const fact = stringInput(call.input, "fact");
      if (fact === undefined) return result(`"fact" must be a non-empty string of at most ${MAX_TOOL_TEXT} characters.`, true);
      return result(await tools.remember(fact));
    }
    const available = tools.remember ? `${SEARCH_MEMORY_TOOL}, ${REMEMBER_TOOL}` : SEARCH_MEMORY_TOOL;
    return result(`Unknown tool "${call.name}". Available tools: ${available}.`, true);
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    const message = error instanceof Error ? error.message : String(error);
    return result(truncate(`${call.name} failed: ${message}`, MAX_TOOL_TEXT), true);
  }
}

/** One streamed model call, as the loop sees it. */
export interface Turn {
  usage: Usage;
  /** The tools the model asked for, in order; empty when it answered. */
  calls: ToolCall[];
}

export interface ToolLoopProvider {
  /** Streams one model call; text goes to `emit` as it arrives. `lastCall`: tools may not be used. */
  turn(lastCall: boolean, emit: (text: string) => void): Promise<Turn>;
  /** Adds the turn that asked for tools and its results to the conversation for the next call. */
  answered(outcomes: ToolOutcome[]): void;
}

/**
 * At most MAX_MODEL_CALLS streamed calls: while the model asks for tools, every call of the turn
 * runs in order and the model is called again; the last allowed call may not use tools, so it
 * has to answer. Text of every turn reaches `onDelta` as it arrives, and the returned text is
 * exactly what was streamed (turns that both have text are separated by a blank line, streamed
 * like any other delta). Usage is summed over the calls.
 */
export async function runToolLoop(request: GenerateRequest, onDelta: (text: string) => void, provider: ToolLoopProvider): Promise<GenerateResult> {
  const usage = { input_tokens: 0, output_tokens: 0 };
  let text = "";
  for (let call = 1; call <= MAX_MODEL_CALLS; call += 1) {
    if (request.signal.aborted) throw abortReason(request.signal);
    let turnStarted = false;
    const lastCall = call === MAX_MODEL_CALLS;
    const turn = await provider.turn(lastCall, (delta) => {
      if (!turnStarted && text !== "" && !text.endsWith("\n")) {
        text += "\n\n";
        onDelta("\n\n");
      }
      turnStarted = true;
      text += delta;
      onDelta(delta);
    });
    usage.input_tokens += turn.usage.input_tokens;
    usage.output_tokens += turn.usage.output_tokens;
    if (turn.calls.length === 0 || lastCall) break;

    const outcomes: ToolOutcome[] = [];
    for (const toolCall of turn.calls) {
      outcomes.push(await runTool(toolCall, request.tools, request.signal));
      if (request.signal.aborted) throw abortReason(request.signal);
    }
    provider.answered(outcomes);
  }
  return { text, usage };
}

/**
 * The SDKs' timeouts cover the wait for response headers only; this covers a stream that goes
 * quiet for longer than `timeoutMs` between two events. `stalled` tells, afterwards, whether it fired.
 */
export function stallGuard(timeoutMs: number, onStall: () => void): { arm(): void; clear(): void; readonly stalled: boolean } {
  let idle: ReturnType<typeof setTimeout> | undefined;
  let stalled = false;
  return {
    arm() {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        onStall();
      }, timeoutMs);
    },
    clear() {
      clearTimeout(idle);
    },
    get stalled() {
      return stalled;
    },
  };
}
