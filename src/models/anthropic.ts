/**
 * The `anthropic` provider: Claude through the Messages API, streamed with the official SDK.
 *
 * One `generate` is a bounded tool loop: at most MAX_MODEL_CALLS streamed requests. When the model
 * stops with `tool_use`, every tool call in that turn runs (in order), the assistant turn and a user
 * turn of `tool_result` blocks are appended, and the model is called again; the last allowed call
 * sets `tool_choice: none` so the model has to answer in text. Text deltas from every turn go out
 * through `onDelta` as they arrive, and the returned text is exactly what was streamed (turns that
 * both have text are separated by a blank line, streamed like any other delta).
 *
 * Failures end as a `ModelError` with a stable code; the message never carries the API key. An
 * aborted `request.signal` ends the run with the signal's reason instead (not a ModelError), so the
 * caller can tell "stopped" from "failed".
 */
import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages";
import { RememberToolInput, SearchMemoryToolInput } from "../schema/answers";
import { ModelError, type GenerateRequest, type GenerateResult, type ModelProvider, type RunTools } from "./types";

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Defaults to the SDK's (`ANTHROPIC_BASE_URL`, else https://api.anthropic.com). */
  baseURL?: string;
  /**
   * Milliseconds to wait for a response to start, and the longest silence allowed between two
   * events of a streaming response. Default 120 000.
   */
  timeoutMs?: number;
  /** SDK retries of one model call (429, 5xx, 529, connection failures, timeouts). Default 1. */
  maxRetries?: number;
}

/** Model calls in one run, tool rounds included. */
export const MAX_MODEL_CALLS = 4;

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 1;
/** Longest tool-input string accepted, and longest error text shown to the model. */
const MAX_TOOL_TEXT = 4_000;

export const SEARCH_MEMORY_TOOL = "search_memory";
export const REMEMBER_TOOL = "remember";

const TOOLS: Tool[] = [
  {
    name: SEARCH_MEMORY_TOOL,
    description:
      "Search this workspace's long-term memory for stored facts. The system prompt already holds the " +
      "facts retrieved for the user's latest message, so use this only when you need something that " +
      "isn't there: another topic, a person or project named in passing, a detail to confirm. " +
      "Returns the matching facts, most relevant first, or says that nothing matched. " +
      "Search again with different words before concluding memory has nothing; never invent facts.",
    input_schema: SearchMemoryToolInput as Tool["input_schema"],
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
    input_schema: RememberToolInput as Tool["input_schema"],
  },
];

/** The stable code and a short description for a failure, without any secret. */
function classify(error: unknown): { code: ModelError["code"]; text: string } {
  if (error instanceof APIConnectionTimeoutError) return { code: "model_timeout", text: "The request to the Anthropic API timed out." };
  if (error instanceof APIConnectionError) return { code: "model_unavailable", text: "Could not connect to the Anthropic API." };
  if (error instanceof APIError) {
    const status = error.status;
    const type = error.type ?? undefined;
    const detail = error.apiMessage ? `: ${error.apiMessage}` : "";
    const where = status === undefined ? "during the response stream" : `(HTTP ${status})`;
    if (status === 429 || type === "rate_limit_error") {
      return { code: "model_rate_limited", text: `The Anthropic API rate limit was reached ${where}${detail}` };
    }
    if (status === 529 || type === "overloaded_error") {
      return { code: "model_overloaded", text: `The Anthropic API is overloaded ${where}${detail}` };
    }
    if (status === 401 || status === 403 || type === "authentication_error" || type === "permission_error") {
      return { code: "model_auth_failed", text: `The Anthropic API rejected the API key ${where}${detail}` };
    }
    if (status === 504 || type === "timeout_error") {
      return { code: "model_timeout", text: `The Anthropic API timed out ${where}${detail}` };
    }
    if (status === 502 || status === 503) {
      return { code: "model_unavailable", text: `The Anthropic API is unavailable ${where}${detail}` };
    }
    return { code: "model_error", text: `The Anthropic API returned an error ${where}${detail}` };
  }
  if (error instanceof AnthropicError) {
    // Not an API response: the stream broke (connection reset, body ended before message_stop) or
    // could not be parsed.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof SyntaxError) return { code: "model_error", text: "The Anthropic API sent a malformed response stream." };
    return { code: "model_unavailable", text: "The response stream from the Anthropic API broke off before the answer was complete." };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "model_error", text: `The model call failed: ${message}` };
}

function redact(text: string, secret: string): string {
  return secret.length === 0 ? text : text.split(secret).join("[redacted]");
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The reason to reject with once `signal` is aborted. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** The response blocks as request blocks, for sending the assistant turn back with its tool calls. */
function toParams(content: ContentBlock[]): ContentBlockParam[] {
  return content.map((block): ContentBlockParam => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "tool_use":
        return { type: "tool_use", id: block.id, name: block.name, input: block.input };
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: block.signature };
      case "redacted_thinking":
        return { type: "redacted_thinking", data: block.data };
      default:
        // Server-tool blocks: this provider offers none, but send anything else back unchanged.
        return block as unknown as ContentBlockParam;
    }
  });
}

function stringInput(input: unknown, field: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" || trimmed.length > MAX_TOOL_TEXT ? undefined : trimmed;
}

async function runTool(call: ToolUseBlock, tools: RunTools, signal: AbortSignal): Promise<ToolResultBlockParam> {
  const result = (content: string, isError = false): ToolResultBlockParam => ({
    type: "tool_result",
    tool_use_id: call.id,
    content,
    ...(isError ? { is_error: true } : {}),
  });
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

export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    timeout: timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });

  const fail = (error: unknown): ModelError => {
    const { code, text } = classify(error);
    return new ModelError(code, truncate(redact(text, options.apiKey), 1_000));
  };

  /** One streamed model call; text deltas go to `emitText` as they arrive. */
  async function streamTurn(
    request: GenerateRequest,
    messages: MessageParam[],
    lastCall: boolean,
    emitText: (text: string) => void,
  ): Promise<Message> {
    const stream = client.messages.stream(
      {
        model: request.model,
        max_tokens: request.maxOutputTokens,
        system: request.system,
        messages: [...messages],
        tools: request.tools.remember ? TOOLS : TOOLS.filter((t) => t.name !== REMEMBER_TOOL),
        ...(lastCall ? { tool_choice: { type: "none" as const } } : {}),
      },
      { signal: request.signal },
    );

    // The SDK's timeout covers the wait for response headers only; this covers a stream that stalls.
    let stalled = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        stream.abort();
      }, timeoutMs);
    };
    stream.on("connect", arm);
    stream.on("streamEvent", arm);
    stream.on("text", (delta) => {
      if (delta !== "") emitText(delta);
    });

    try {
      return await stream.finalMessage();
    } catch (error) {
      if (stalled && !request.signal.aborted) {
        throw new ModelError("model_timeout", `The Anthropic API response stalled for more than ${timeoutMs} ms.`);
      }
      if (request.signal.aborted || error instanceof APIUserAbortError) throw abortReason(request.signal);
      throw fail(error);
    } finally {
      clearTimeout(idle);
    }
  }

  return {
    name: "anthropic",

    async generate(request: GenerateRequest, onDelta: (text: string) => void): Promise<GenerateResult> {
      const messages: MessageParam[] = request.messages.map((m) => ({ role: m.role, content: m.content }));
      const usage = { input_tokens: 0, output_tokens: 0 };
      let text = "";

      for (let call = 1; call <= MAX_MODEL_CALLS; call += 1) {
        if (request.signal.aborted) throw abortReason(request.signal);
        let turnStarted = false;
        const message = await streamTurn(request, messages, call === MAX_MODEL_CALLS, (delta) => {
          if (!turnStarted && text !== "" && !text.endsWith("\n")) {
            text += "\n\n";
            onDelta("\n\n");
          }
          turnStarted = true;
          text += delta;
          onDelta(delta);
        });
        usage.input_tokens += message.usage.input_tokens ?? 0;
        usage.output_tokens += message.usage.output_tokens ?? 0;

        const calls = message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
        if (message.stop_reason !== "tool_use" || calls.length === 0 || call === MAX_MODEL_CALLS) break;

        messages.push({ role: "assistant", content: toParams(message.content) });
        const results: ToolResultBlockParam[] = [];
        for (const toolCall of calls) {
          results.push(await runTool(toolCall, request.tools, request.signal));
          if (request.signal.aborted) throw abortReason(request.signal);
        }
        messages.push({ role: "user", content: results });
      }

      return { text, usage };
    },
  };
}
