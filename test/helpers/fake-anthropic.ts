/**
 * A scripted fake of Anthropic's Messages API on loopback, for driving the real `@anthropic-ai/sdk`
 * (and anything built on it) without network access or an API key.
 *
 * It serves `POST /v1/messages` as a streaming endpoint in Anthropic's SSE wire format
 * (`message_start`, `content_block_start`, `content_block_delta` with `text_delta` /
 * `input_json_delta`, `content_block_stop`, `message_delta` with `stop_reason` and `usage`,
 * `message_stop`), and HTTP errors in Anthropic's error body format. Each request takes the next
 * scripted response from a queue; when the queue is empty it answers with `defaultReply`.
 *
 * ```ts
 * const fake = createFakeAnthropic();
 * fake.enqueue({ toolUse: { name: "search_memory", input: { query: "deploy" } } }, { text: "Done." });
 * const provider = createAnthropicProvider({ apiKey: "sk-test", baseURL: fake.url });
 * // ... run, then inspect fake.requests[1].body.messages
 * await fake.stop();
 * ```
 *
 * Things to know:
 * - Every HTTP attempt consumes one queued response. The SDK retries 408/409/429/5xx/529 and
 *   connection failures (`maxRetries`, default 2; memoryd's provider defaults to 1), so a queued
 *   error followed by an SDK retry meets the *next* queued response (or the default reply). Use
 *   `maxRetries: 0` to see an error as-is, or queue it once per attempt. Error responses carry
 *   `retry-after-ms: 1` so retries don't sleep.
 * - `drop`: `Bun.serve` gives no handle on the socket, so a drop ends the response body right after
 *   `message_start` (and any `text`) with no `message_stop`, as a proxy cutting the stream would.
 * - `hang` never sends headers; the request stays open until the client gives up (its timeout or
 *   abort) or `stop()` is called.
 * - Streaming requests only: the body's `stream` must be `true` (as `client.messages.stream()`
 *   sends); anything else gets a 400.
 */

import { loopbackServer, sleep, split } from "./fake-server";

/** One scripted tool call the fake model makes. */
export interface FakeToolCall {
  name: string;
  input: unknown;
  /** Defaults to a generated `toolu_...` id. */
  id?: string;
}

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
}

/** A text answer, streamed as `chunks` text deltas (default 3), `delayMs` before each delta. */
export interface FakeTextResponse {
  text: string;
  chunks?: number;
  delayMs?: number;
  usage?: FakeUsage;
  /** Default `"end_turn"`. */
  stopReason?: "end_turn" | "max_tokens" | "stop_sequence" | "refusal";
}

/** Optional text, then one or more `tool_use` blocks; ends with `stop_reason: "tool_use"`. */
export interface FakeToolUseResponse {
  toolUse: FakeToolCall | FakeToolCall[];
  text?: string;
  chunks?: number;
  delayMs?: number;
  usage?: FakeUsage;
}

/** An HTTP error with Anthropic's body `{ type: "error", error: { type, message }, request_id }`. */
export interface FakeErrorResponse {
  error: {
    status: number;
    /** e.g. `rate_limit_error`, `overloaded_error`, `authentication_error`, `api_error`. Defaults by status. */
    type?: string;
    message?: string;
  };
  headers?: Record<string, string>;
}

/** A 200 stream that sends an SSE `error` event after `message_start` (how the API reports mid-stream overload). */
export interface FakeStreamErrorResponse {
  streamError: { type: string; message?: string };
  text?: string;
}

/** `message_start` (and `text`, if given), then the body ends without `message_stop`. */
export interface FakeDropResponse {
  drop: true;
  text?: string;
}

/** Never answers: no status line, no headers. */
export interface FakeHangResponse {
  hang: true;
}

export type FakeResponse = FakeTextResponse | FakeToolUseResponse | FakeErrorResponse | FakeStreamErrorResponse | FakeDropResponse | FakeHangResponse;

/** What the fake received, in arrival order (retries included). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (`model`, `system`, `messages`, `tools`, `max_tokens`, ...). */
  body: any;
}

export interface FakeAnthropicOptions {
  /** Reply when the queue is empty. Default `"Hello from the fake model."` */
  defaultReply?: string;
  /**
   * Computes the response to a request when the queue is empty (an oracle or a hostile model that
   * reads the prompt); undefined falls back to `defaultReply`.
   */
  responder?: (body: any) => FakeResponse | undefined;
  /** Delay before each delta of the default reply. Default 0. */
  defaultDelayMs?: number;
}

export interface FakeAnthropic {
  /** Base URL for the SDK's `baseURL` option, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /** Every request received, parsed. */
  readonly requests: RecordedRequest[];
  /** Reply used when the queue is empty; may be changed at any time. */
  defaultReply: string;
  defaultDelayMs: number;
  /** Appends responses to the queue. */
  enqueue(...responses: FakeResponse[]): void;
  /** Replaces the queue with `responses`. */
  script(responses: FakeResponse[]): void;
  /** Responses still queued. */
  pending(): number;
  /** Empties the queue and forgets recorded requests. */
  reset(): void;
  /** Releases hanging requests and shuts the server down (closing open connections). */
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const MODEL_ECHO_FALLBACK = "claude-fake";

const DEFAULT_ERROR_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

let idCounter = 0;
function nextId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_fake${idCounter.toString().padStart(6, "0")}`;
}

function sse(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function estimateInputTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? "").length / 4));
}

function jsonError(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  const requestId = nextId("req");
  return new Response(JSON.stringify({ type: "error", error: { type, message }, request_id: requestId }), {
    status,
    headers: { "content-type": "application/json", "request-id": requestId, "retry-after-ms": "1", ...headers },
  });
}

/** Starts a fake Messages API on 127.0.0.1 with an OS-assigned port. */
export function createFakeAnthropic(options: FakeAnthropicOptions = {}): FakeAnthropic {
  let queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();

  const state = {
    defaultReply: options.defaultReply ?? "Hello from the fake model.",
    defaultDelayMs: options.defaultDelayMs ?? 0,
  };

  /** A 200 SSE response whose body `write` produces; the body ends when `write` resolves. */
  function streamResponse(req: Request, write: (emit: (chunk: Uint8Array) => void, cancelled: () => boolean) => Promise<void>): Response {
    let cancelled = false;
    req.signal.addEventListener("abort", () => {
      cancelled = true;
    });
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        const emit = (chunk: Uint8Array) => {
          if (!cancelled) controller.enqueue(chunk);
        };
        try {
          await write(emit, () => cancelled);
        } catch {
          // the client went away mid-write
        }
        if (!cancelled) {
          try {
            controller.close();
          } catch {
            // already closed by a cancel
          }
        }
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "request-id": nextId("req"),
      },
    });
  }

  function messageStart(model: string, inputTokens: number) {
    return sse("message_start", {
      type: "message_start",
      message: {
        id: nextId("msg"),
        type: "message",
        role: "assistant",
        model,
        content: [],
        container: null,
        diagnostics: null,
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: null,
          inference_geo: null,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: "standard",
          speed: null,
        },
      },
    });
  }

  /** Streams one text block at `index`; returns false if the client went away. */
  async function textBlock(
    emit: (chunk: Uint8Array) => void,
    cancelled: () => boolean,
    index: number,
    text: string,
    chunks: number,
    delayMs: number,
  ): Promise<boolean> {
    emit(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "", citations: null } }));
    for (const piece of split(text, chunks)) {
      await sleep(delayMs);
      if (cancelled()) return false;
      emit(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
    }
    emit(sse("content_block_stop", { type: "content_block_stop", index }));
    return !cancelled();
  }

  function messageEnd(emit: (chunk: Uint8Array) => void, stopReason: string, usage: { input_tokens: number; output_tokens: number }) {
    emit(
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null, container: null },
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens_details: null,
          server_tool_use: null,
        },
      }),
    );
    emit(sse("message_stop", { type: "message_stop" }));
  }

  function respond(req: Request, body: { model?: unknown }, response: FakeResponse): Response | Promise<Response> {
    const model = typeof body.model === "string" ? body.model : MODEL_ECHO_FALLBACK;
    const inputTokens = estimateInputTokens(body);

    if ("hang" in response) {
      return new Promise<Response>((resolve) => {
        const release = () => {
          hanging.delete(release);
          resolve(jsonError(504, "timeout_error", "fake: hanging request released"));
        };
        hanging.add(release);
        req.signal.addEventListener("abort", release);
      });
    }

    if ("error" in response) {
      const { status } = response.error;
      const type = response.error.type ?? DEFAULT_ERROR_TYPE[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
      return jsonError(status, type, response.error.message ?? `fake ${type}`, response.headers);
    }

    if ("drop" in response) {
      return streamResponse(req, async (emit, cancelled) => {
        emit(messageStart(model, inputTokens));
        if (response.text !== undefined) {
          emit(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: null } }));
          for (const piece of split(response.text, 3)) {
            if (cancelled()) break;
            emit(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }));
          }
        }
        await sleep(5);
      });
    }

    if ("streamError" in response) {
      return streamResponse(req, async (emit, cancelled) => {
        emit(messageStart(model, inputTokens));
        if (response.text !== undefined && !(await textBlock(emit, cancelled, 0, response.text, 3, 0))) return;
        const { type, message } = response.streamError;
        emit(sse("error", { type: "error", error: { type, message: message ?? `fake ${type}` } }));
      });
    }

    if ("toolUse" in response) {
      const calls = Array.isArray(response.toolUse) ? response.toolUse : [response.toolUse];
      return streamResponse(req, async (emit, cancelled) => {
        emit(messageStart(model, response.usage?.input_tokens ?? inputTokens));
        let index = 0;
        let outputChars = 0;
        if (response.text !== undefined && response.text !== "") {
          if (!(await textBlock(emit, cancelled, index, response.text, response.chunks ?? 3, response.delayMs ?? 0))) return;
          outputChars += response.text.length;
          index += 1;
        }
        for (const call of calls) {
          const json = JSON.stringify(call.input ?? {});
          outputChars += json.length;
          emit(
            sse("content_block_start", {
              type: "content_block_start",
              index,
              content_block: { type: "tool_use", id: call.id ?? nextId("toolu"), name: call.name, input: {}, caller: { type: "direct" } },
            }),
          );
          // Like the API: an empty first delta, then the JSON in pieces.
          for (const piece of ["", ...split(json, 2)]) {
            await sleep(response.delayMs ?? 0);
            if (cancelled()) return;
            emit(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
          }
          emit(sse("content_block_stop", { type: "content_block_stop", index }));
          index += 1;
        }
        messageEnd(emit, "tool_use", {
          input_tokens: response.usage?.input_tokens ?? inputTokens,
          output_tokens: response.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
        });
      });
    }

    const chunks = response.chunks ?? 3;
    const delayMs = response.delayMs ?? 0;
    return streamResponse(req, async (emit, cancelled) => {
      emit(messageStart(model, response.usage?.input_tokens ?? inputTokens));
      if (response.text !== "" && !(await textBlock(emit, cancelled, 0, response.text, chunks, delayMs))) return;
      messageEnd(emit, response.stopReason ?? "end_turn", {
        input_tokens: response.usage?.input_tokens ?? inputTokens,
        output_tokens: response.usage?.output_tokens ?? Math.max(1, Math.ceil(response.text.length / 4)),
      });
    });
  }

  const server = loopbackServer(async (req, path, headers) => {
    const text = await req.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({ method: req.method, path, headers, body });

    if (req.method !== "POST" || path !== "/v1/messages") {
      return jsonError(404, "not_found_error", `fake: no route for ${req.method} ${path}`);
    }
    if (typeof body !== "object" || body === null || (body as { stream?: unknown }).stream !== true) {
      return jsonError(400, "invalid_request_error", "fake: only streaming requests (stream: true) are supported");
    }
    const next = queue.shift() ?? options.responder?.(body) ?? { text: state.defaultReply, delayMs: state.defaultDelayMs };
    return respond(req, body as { model?: unknown }, next);
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    get defaultReply() {
      return state.defaultReply;
    },
    set defaultReply(value: string) {
      state.defaultReply = value;
    },
    get defaultDelayMs() {
      return state.defaultDelayMs;
    },
    set defaultDelayMs(value: number) {
      state.defaultDelayMs = value;
    },
    enqueue(...responses) {
      queue.push(...responses);
    },
    script(responses) {
      queue = [...responses];
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
