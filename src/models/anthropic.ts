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
import Anthropic, { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { ContentBlock, ContentBlockParam, Message, MessageParam, Tool, ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { apiFailure, brokenStream, codeForStatus, modelError, stalledStream, type ApiCode } from "./failures";
import { abortReason, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, offeredTools, runToolLoop, stallGuard, type ClientOptions, type ToolOutcome } from "./tool-loop";
import type { GenerateRequest, GenerateResult, ModelProvider } from "./types";

export interface AnthropicProviderOptions extends ClientOptions {
  apiKey: string;
  /** Defaults to the SDK's (`ANTHROPIC_BASE_URL`, else https://api.anthropic.com). */
  baseURL?: string;
}

const API = "Anthropic API";

/** Anthropic's error types, which say more than a status (a stream's error event has none). */
const TYPE_CODES: Record<string, ApiCode> = {
  rate_limit_error: "model_rate_limited",
  overloaded_error: "model_overloaded",
  authentication_error: "model_auth_failed",
  permission_error: "model_auth_failed",
  timeout_error: "model_timeout",
};

/** The stable code and a short description for a failure, without any secret. */
function classify(error: unknown): { code: ApiCode; text: string } {
  if (error instanceof APIConnectionTimeoutError) return { code: "model_timeout", text: `The request to the ${API} timed out.` };
  if (error instanceof APIConnectionError) return { code: "model_unavailable", text: `Could not connect to the ${API}.` };
  if (error instanceof APIError) {
    const byType = error.type ? TYPE_CODES[error.type] : undefined;
    const code = byType ?? (error.status === undefined ? "model_error" : codeForStatus(error.status));
    return apiFailure(API, code, error.status, error.apiMessage ?? undefined);
  }
  // Not an API response: the stream broke (connection reset, body ended before message_stop) or
  // could not be parsed.
  if (error instanceof AnthropicError) return brokenStream(API, (error as { cause?: unknown }).cause);
  const message = error instanceof Error ? error.message : String(error);
  return { code: "model_error", text: `The model call failed: ${message}` };
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

function toolResult(outcome: ToolOutcome): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: outcome.call.id,
    content: outcome.content,
    ...(outcome.isError ? { is_error: true } : {}),
  };
}

export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    timeout: timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });

  /** One streamed model call; text deltas go to `emitText` as they arrive. */
  async function streamTurn(request: GenerateRequest, messages: MessageParam[], lastCall: boolean, emitText: (text: string) => void): Promise<Message> {
    const tools = offeredTools(request.tools).map((t): Tool => ({ name: t.name, description: t.description, input_schema: t.schema as Tool["input_schema"] }));
    const stream = client.messages.stream(
      {
        model: request.model,
        max_tokens: request.maxOutputTokens,
        system: request.system,
        messages: [...messages],
        ...(tools.length > 0 && { tools }),
        ...(lastCall && tools.length > 0 ? { tool_choice: { type: "none" as const } } : {}),
      },
      { signal: request.signal },
    );

    const guard = stallGuard(timeoutMs, () => stream.abort());
    stream.on("connect", guard.arm);
    stream.on("streamEvent", guard.arm);
    stream.on("text", (delta) => {
      if (delta !== "") emitText(delta);
    });

    try {
      return await stream.finalMessage();
    } catch (error) {
      if (guard.stalled && !request.signal.aborted) throw stalledStream(API, timeoutMs);
      if (request.signal.aborted || error instanceof APIUserAbortError) throw abortReason(request.signal);
      throw modelError(classify(error), options.apiKey);
    } finally {
      guard.clear();
    }
  }

  return {
    name: "anthropic",

    generate(request: GenerateRequest, onDelta: (text: string) => void): Promise<GenerateResult> {
      const messages: MessageParam[] = request.messages.map((m) => ({ role: m.role, content: m.content }));
      let last: Message | undefined;
      return runToolLoop(request, onDelta, {
        async turn(lastCall, emit) {
          last = await streamTurn(request, messages, lastCall, emit);
          const calls = last.stop_reason === "tool_use" ? last.content.filter((b): b is ToolUseBlock => b.type === "tool_use") : [];
          return {
            usage: { input_tokens: last.usage.input_tokens ?? 0, output_tokens: last.usage.output_tokens ?? 0 },
            calls: calls.map((c) => ({ id: c.id, name: c.name, input: c.input })),
          };
        },
        answered(outcomes) {
          messages.push({ role: "assistant", content: toParams(last?.content ?? []) });
          messages.push({ role: "user", content: outcomes.map(toolResult) });
        },
      });
    },
  };
}
