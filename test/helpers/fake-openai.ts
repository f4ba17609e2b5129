/**
 * A scripted fake of the Chat Completions API (`POST /v1/chat/completions`, `stream: true`) on
 * loopback, for driving the real `openai` SDK without network access or a key: what OpenAI,
 * Ollama, vLLM and LM Studio serve.
 *
 * Each request takes the next scripted response from a queue (the default reply when it is empty)
 * and streams it as OpenAI does: `data: {chat.completion.chunk}` lines, a role chunk first, text
 * as `delta.content`, tool calls as `delta.tool_calls` fragments (id and name first, then the
 * arguments JSON in pieces) or, with `whole: true`, as Ollama sends them (each call complete in
 * one chunk, all at index 0), a last chunk with `finish_reason`, then, when the request asked
 * with `stream_options.include_usage`, a chunk with empty `choices` and `usage`, and `data: [DONE]`.
 *
 * - Every HTTP attempt takes one queued response, so an SDK retry meets the next one; error
 *   responses carry `retry-after-ms: 1` so retries don't sleep.
 * - `drop` ends the body without a `finish_reason` or `[DONE]`; `hang` never sends headers (until
 *   the client gives up or `stop()`); `streamError` puts `{error}` in the stream, as servers do
 *   when a failure comes after the headers; `malformed` sends a line that is not JSON.
 */

import { loopbackServer, sleep, split } from "./fake-server";

export interface FakeToolCall {
  name: string;
  /** Sent as the arguments string: JSON.stringify of it, or the string itself when it is one. */
  input: unknown;
  id?: string;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

interface Streamed {
  text?: string;
  /** Text deltas (default 3). */
  chunks?: number;
  /** Before each chunk after the role chunk. */
  delayMs?: number;
  /** `false`: report no usage even when asked (some servers don't). Default: an estimate. */
  usage?: FakeUsage | false;
}

export interface FakeTextResponse extends Streamed {
  text: string;
  finishReason?: "stop" | "length" | "content_filter";
}

export interface FakeToolCallsResponse extends Streamed {
  toolCalls: FakeToolCall | FakeToolCall[];
  /** Ollama's way: each call whole in one chunk, every one at index 0. */
  whole?: boolean;
  /** Default "tool_calls" (some servers say "stop"). */
  finishReason?: "tool_calls" | "stop";
}

/** An HTTP error with OpenAI's body `{error: {message, type, param, code}}`. */
export interface FakeErrorResponse {
  error: { status: number; message?: string; type?: string; code?: string };
}

export interface FakeStreamErrorResponse {
  streamError: { message: string; type?: string };
  text?: string;
}

export type FakeResponse =
  | FakeTextResponse
  | FakeToolCallsResponse
  | FakeErrorResponse
  | FakeStreamErrorResponse
  | { drop: true; text?: string }
  | { hang: true }
  | { malformed: true };

export interface RecordedMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The request body as the SDK sent it (the fields memoryd uses). */
export interface RecordedChatRequest {
  model: string;
  messages: RecordedMessage[];
  stream: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string; description: string; parameters: { required?: string[] } } }[];
  tool_choice?: unknown;
  max_tokens?: number;
  max_completion_tokens?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: RecordedChatRequest;
}

export interface FakeOpenAI {
  /** The SDK's `baseURL`, e.g. `http://127.0.0.1:54321/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  enqueue(...responses: FakeResponse[]): void;
  pending(): number;
  /** Empties the queue and forgets recorded requests. */
  reset(): void;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
let counter = 0;
const nextId = (prefix: string): string => {
  counter += 1;
  return `${prefix}_fake${counter}`;
};
const DEFAULT_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  429: "requests",
  500: "server_error",
  503: "server_error",
};

function errorResponse(error: FakeErrorResponse["error"]): Response {
  const body = {
    error: {
      message: error.message ?? `fake error ${error.status}`,
      type: error.type ?? DEFAULT_TYPES[error.status] ?? "server_error",
      param: null,
      code: error.code ?? null,
    },
  };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { "content-type": "application/json", "retry-after-ms": "1", "x-request-id": nextId("req") },
  });
}

function argumentsOf(call: FakeToolCall): string {
  return typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {});
}

/** Starts the fake on 127.0.0.1 with an OS-assigned port. */
export function createFakeOpenAI(defaultReply = "Hello from the fake model."): FakeOpenAI {
  let queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();

  /** A 200 SSE body written by `write`; `emit` stops once the client has gone. */
  function sse(req: Request, write: (emit: (data: unknown) => void, gone: () => boolean) => Promise<void>): Response {
    let gone = false;
    req.signal.addEventListener("abort", () => {
      gone = true;
    });
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const emit = (data: unknown): void => {
          if (!gone) controller.enqueue(encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`));
        };
        await write(emit, () => gone).catch(() => {});
        if (!gone) controller.close();
      },
      cancel() {
        gone = true;
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "x-request-id": nextId("req") } });
  }

  function respond(req: Request, body: RecordedChatRequest, response: FakeResponse): Response | Promise<Response> {
    const id = nextId("chatcmpl");
    const chunk = (delta: object, finish: string | null = null): object => ({
      id,
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    if ("hang" in response) {
      return new Promise<Response>((resolve) => {
        const release = (): void => {
          hanging.delete(release);
          resolve(errorResponse({ status: 504 }));
        };
        hanging.add(release);
        req.signal.addEventListener("abort", release);
      });
    }
    if ("error" in response) return errorResponse(response.error);
    if ("malformed" in response) return sse(req, async (emit) => emit("{not json"));
    if ("drop" in response || "streamError" in response) {
      return sse(req, async (emit) => {
        emit(chunk({ role: "assistant", content: "" }));
        for (const piece of split(response.text ?? "", 3)) emit(chunk({ content: piece }));
        if ("streamError" in response)
          emit({ error: { message: response.streamError.message, type: response.streamError.type ?? "server_error", param: null, code: null } });
        await sleep(5);
      });
    }

    const calls = "toolCalls" in response ? [response.toolCalls].flat() : [];
    return sse(req, async (emit, gone) => {
      emit(chunk({ role: "assistant", content: "" }));
      for (const piece of response.text ? split(response.text, response.chunks ?? 3) : []) {
        await sleep(response.delayMs ?? 0);
        if (gone()) return;
        emit(chunk({ content: piece }));
      }
      for (const [index, call] of calls.entries()) {
        await sleep(response.delayMs ?? 0);
        if (gone()) return;
        const callId = call.id ?? nextId("call");
        const args = argumentsOf(call);
        if ("whole" in response && response.whole) {
          emit(chunk({ tool_calls: [{ index: 0, id: callId, type: "function", function: { name: call.name, arguments: args } }] }));
          continue;
        }
        emit(chunk({ tool_calls: [{ index, id: callId, type: "function", function: { name: call.name, arguments: "" } }] }));
        for (const piece of split(args, 3)) emit(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
      emit(chunk({}, response.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")));
      if (body.stream_options?.include_usage && response.usage !== false) {
        const estimate = {
          prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4),
          completion_tokens: Math.max(1, Math.ceil((response.text ?? "").length / 4)),
        };
        const usage = response.usage ?? estimate;
        emit({
          id,
          object: "chat.completion.chunk",
          created: 0,
          model: body.model,
          choices: [],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      }
      emit("[DONE]");
    });
  }

  const server = loopbackServer(async (req, path, headers) => {
    const body = (await req.json().catch(() => ({}))) as RecordedChatRequest;
    requests.push({ method: req.method, path, headers, body });
    if (req.method !== "POST" || path !== "/v1/chat/completions") return errorResponse({ status: 404, message: `fake: no route ${path}` });
    if (body.stream !== true) return errorResponse({ status: 400, message: "fake: only stream: true is supported" });
    return respond(req, body, queue.shift() ?? { text: defaultReply });
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    enqueue(...responses) {
      queue.push(...responses);
    },
    pending() {
      return queue.length;
    },
    reset() {
      queue = [];
      requests.length = 0;
    },
    async stop() {
      for (const release of [...hanging]) release();
      await server.stop(true);
    },
  };
}
