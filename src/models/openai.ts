/**
 * The `openai` provider: any server that speaks OpenAI's Chat Completions API (OpenAI itself,
 * Ollama, vLLM, LM Studio, llama.cpp's server, ...), streamed with the official `openai` SDK.
 *
 * Same contract as the anthropic provider, through the shared tool loop (`tool-loop.ts`): the
 * system prompt (with the context packet) as the first message, text deltas out as they arrive,
 * the two memory tools as functions, at most MAX_MODEL_CALLS calls with the last one at
 * `tool_choice: "none"`, usage summed for credits, failures as `ModelError` codes without the key,
 * and an aborted signal rejecting with its reason rather than a ModelError.
 *
 * Servers differ in small ways this tolerates: a server that reports no usage is charged by an
 * o200k count of what was sent and received; tool calls may arrive in fragments (OpenAI) or whole,
 * several at one index (Ollama); a missing call id gets one.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { countTokens } from "../memory/tokens";
import { apiFailure, brokenStream, codeForStatus, modelError, stalledStream, type ApiCode } from "./failures";
import { abortReason, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, offeredTools, runToolLoop, stallGuard, type ClientOptions, type ToolCall } from "./tool-loop";
import type { GenerateRequest, GenerateResult, ModelProvider, Usage } from "./types";

export interface OpenAIProviderOptions extends ClientOptions {
  /** Optional: local servers (Ollama, vLLM without --api-key, LM Studio) need none. */
  apiKey?: string;
  /** The server's API root, e.g. http://127.0.0.1:11434/v1; default https://api.openai.com/v1. */
  baseURL?: string;
}

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
const API = "OpenAI-compatible API";

/** A tool call as it is assembled from the stream. */
interface PendingCall {
  id: string;
  name: string;
  args: string;
}

interface StreamedTurn {
  text: string;
  calls: PendingCall[];
  /** What the server reported, if it did (`stream_options.include_usage`). */
  usage: Usage | undefined;
}

function classify(error: unknown, streaming: boolean): { code: ApiCode; text: string } {
  if (error instanceof APIConnectionTimeoutError) return { code: "model_timeout", text: `The request to the ${API} timed out.` };
  if (error instanceof APIConnectionError) return { code: "model_unavailable", text: `Could not connect to the ${API}.` };
  if (error instanceof APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const detail = typeof body?.message === "string" ? body.message : undefined;
    // No status: the server put an error object in a stream that had already started.
    return apiFailure(API, error.status === undefined ? "model_error" : codeForStatus(error.status), error.status, detail);
  }
  if (streaming) return brokenStream(API, error);
  const message = error instanceof Error ? error.message : String(error);
  return { code: "model_error", text: `The model call failed: ${message}` };
}

/**
 * OpenAI's own API refuses `max_tokens` for its reasoning models and takes `max_completion_tokens`
 * for every model; Ollama reads only `max_tokens`, and other servers take it too.
 */
export function tokenLimit(baseURL: string, max: number): { max_tokens: number } | { max_completion_tokens: number } {
  return new URL(baseURL).hostname === "api.openai.com" ? { max_completion_tokens: max } : { max_tokens: max };
}

/** Adds one streamed tool-call fragment to the calls of this turn. */
function collect(calls: PendingCall[], byIndex: Map<number, PendingCall>, fragment: ChatCompletionChunk.Choice.Delta.ToolCall): void {
  const index = fragment.index ?? 0;
  let call = byIndex.get(index);
  // A fragment with another id starts a new call even at a known index: Ollama sends each call
  // whole, and older versions number them all 0.
  if (!call || (fragment.id && call.id && fragment.id !== call.id)) {
    call = { id: "", name: "", args: "" };
    calls.push(call);
    byIndex.set(index, call);
  }
  if (fragment.id) call.id = fragment.id;
  if (fragment.function?.name && call.name === "") call.name = fragment.function.name;
  if (fragment.function?.arguments) call.args += fragment.function.arguments;
}

function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args === "" ? "{}" : args);
  } catch {
    // Not JSON: the tool then answers that its field is missing, and the model can try again.
    return args;
  }
}

/** The text a message carries, for estimating tokens when the server reports no usage. */
function messageText(message: ChatCompletionMessageParam): string {
  const content = typeof message.content === "string" ? message.content : "";
  const calls = "tool_calls" in message ? (message.tool_calls ?? []) : [];
  return [content, ...calls.map((c) => (c.type === "function" ? `${c.function.name} ${c.function.arguments}` : ""))].join("\n");
}

export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseURL = options.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const client = new OpenAI({
    // The SDK insists on a key; without one, the Authorization header is removed below instead
    // of sending a made-up key to a server that may log it.
    apiKey: options.apiKey ?? "unused",
    ...(options.apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
    baseURL,
    // memoryd's configuration is the only source: the SDK would otherwise read these from the environment.
    organization: null,
    project: null,
    adminAPIKey: null,
    timeout: timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    // Failures reach memoryd's log as the run's ModelError; the SDK would also print its own to stderr.
    logLevel: "off",
  });

  /** One streamed call: text deltas go to `emitText` as they arrive. */
  async function streamTurn(
    request: GenerateRequest,
    messages: ChatCompletionMessageParam[],
    lastCall: boolean,
    emitText: (text: string) => void,
  ): Promise<StreamedTurn> {
    const tools = offeredTools(request.tools).map((t) => ({
      type: "function" as const,
      function: { name: t.name, description: t.description, parameters: t.schema },
    }));
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: [...messages],
      stream: true,
      stream_options: { include_usage: true },
      ...tokenLimit(baseURL, request.maxOutputTokens),
      // Chat Completions refuses an empty tool list: none is sent when no tool is offered.
      ...(tools.length > 0 && { tools }),
      ...(lastCall && tools.length > 0 ? { tool_choice: "none" as const } : {}),
    };
    let streaming = false;
    const turn: StreamedTurn = { text: "", calls: [], usage: undefined };
    let finished = false;
    let guard: ReturnType<typeof stallGuard> | undefined;
    try {
      const stream = await client.chat.completions.create(body, { signal: request.signal });
      streaming = true;
      guard = stallGuard(timeoutMs, () => stream.controller.abort());
      guard.arm();
      const byIndex = new Map<number, PendingCall>();
      for await (const chunk of stream) {
        guard.arm();
        if (chunk.usage) turn.usage = { input_tokens: chunk.usage.prompt_tokens ?? 0, output_tokens: chunk.usage.completion_tokens ?? 0 };
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const content = choice.delta?.content;
        if (content) {
          turn.text += content;
          emitText(content);
        }
        for (const fragment of choice.delta?.tool_calls ?? []) collect(turn.calls, byIndex, fragment);
        if (choice.finish_reason) finished = true;
      }
    } catch (error) {
      if (request.signal.aborted || error instanceof APIUserAbortError) throw abortReason(request.signal);
      throw guard?.stalled ? stalledStream(API, timeoutMs) : modelError(classify(error, streaming), options.apiKey);
    } finally {
      guard?.clear();
    }
    // The SDK usually ends the iteration quietly when the request is aborted: by the run, or by the guard.
    if (request.signal.aborted) throw abortReason(request.signal);
    if (guard?.stalled) throw stalledStream(API, timeoutMs);
    if (!finished) throw modelError(brokenStream(API, undefined), options.apiKey);
    return turn;
  }

  return {
    name: "openai",

    generate(request: GenerateRequest, onDelta: (text: string) => void): Promise<GenerateResult> {
      const messages: ChatCompletionMessageParam[] = [
        { role: "system", content: request.system },
        ...request.messages.map((m) => ({ role: m.role, content: m.content })),
      ];
      let last: StreamedTurn | undefined;
      return runToolLoop(request, onDelta, {
        async turn(lastCall, emit) {
          const sent = messages.map(messageText).join("\n");
          last = await streamTurn(request, messages, lastCall, emit);
          last.calls.forEach((call, i) => {
            call.id ||= `call_${messages.length}_${i}`;
          });
          const usage = last.usage ?? {
            input_tokens: countTokens(sent),
            output_tokens: countTokens([last.text, ...last.calls.map((c) => `${c.name} ${c.args}`)].join("\n")),
          };
          const calls: ToolCall[] = last.calls.map((c) => ({ id: c.id, name: c.name, input: parseArguments(c.args) }));
          return { usage, calls };
        },
        answered(outcomes) {
          messages.push({
            role: "assistant",
            content: last?.text || null,
            tool_calls: (last?.calls ?? []).map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.args || "{}" } })),
          });
          for (const { call, content, isError } of outcomes) {
            // Chat Completions has no error flag on a tool result: the text says it.
            messages.push({ role: "tool", tool_call_id: call.id, content: isError ? `Error: ${content}` : content });
          }
        },
      });
    },
  };
}
