/**
 * memoryd from TypeScript: a typed client over the REST API (docs/clients.md). Its methods take the
 * request bodies and return the `data` of the envelope, typed from the server's own schemas (types
 * only: nothing of the server runs here). fetch only, so it runs on Bun, Node 20+, Deno, browsers
 * and edge runtimes; the one dependency is the SSE parser for streamed answers.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { Answer, AnswerRequest, QueuedAnswer } from "../schema/answers";
import type { WhoamiResult } from "../schema/auth";
import type {
  ContextPacket,
  FactList,
  FactListQuery,
  FactQuery,
  FactWithHistory,
  RestContextRequest,
  RestSearchRequest,
  SearchResult,
  TeachMessagesRequest,
  TeachMessagesResult,
  TeachRequest,
  TeachResult,
} from "../schema/memory";
import { backoffMs, type ClientOptions, MemorydError, resolveOptions, type ResolvedOptions, withTimeout } from "./transport";

export { MemorydError } from "./transport";
export type { ClientOptions } from "./transport";
/** The wire types the methods take and return, for an app that names them. */
export type { Answer, AnswerRequest, QueuedAnswer, WhoamiResult };
export type {
  ContextPacket,
  FactList,
  FactListQuery,
  FactQuery,
  FactWithHistory,
  RestContextRequest,
  RestSearchRequest,
  SearchResult,
  TeachMessagesRequest,
  TeachMessagesResult,
  TeachRequest,
  TeachResult,
};

/** A request body whose defaulted fields may be left out (the server fills them in). */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type SearchBody = WithDefaults<RestSearchRequest, "limit">;
export type ContextBody = WithDefaults<RestContextRequest, "token_budget">;
export type AnswerBody = WithDefaults<Omit<AnswerRequest, "stream">, "agent_slug">;
export type FactListParams = Partial<FactListQuery>;

/** Per-call options: every method takes them last. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** One server-sent event of a streamed answer (docs/api.md, Answers). */
export type AnswerEvent =
  | { event: "answer.created"; data: { answer_id: string; conversation_id: string } }
  | { event: "answer.delta"; data: { text: string } }
  | { event: "answer.completed"; data: Answer }
  | { event: "answer.failed"; data: { error: { code: string; message: string } } }
  | { event: "done"; data: { ok: boolean } };

/**
 * The REST routes the client calls, by method (docs/api.md, Routes): the methods below read their
 * paths from here, and a test checks that every route docs/api.md lists for key holders is in it.
 */
export const CLIENT_ROUTES = {
  whoami: "GET /v1/whoami",
  teach: "POST /v1/memory/facts",
  teachMessages: "POST /v1/memory/messages",
  search: "POST /v1/memory/search",
  context: "POST /v1/memory/context",
  "facts.list": "GET /v1/memory/facts",
  "facts.get": "GET /v1/memory/facts/:fact_id",
  "facts.delete": "DELETE /v1/memory/facts/:fact_id",
  "answers.create": "POST /v1/answers",
  "answers.get": "GET /v1/answers/:answer_id",
} as const;

type Route = (typeof CLIENT_ROUTES)[keyof typeof CLIENT_ROUTES];

/** A route's method and its path with the parameter filled in. */
function route(name: keyof typeof CLIENT_ROUTES, param?: string): { method: Request["method"]; path: string } {
  const [method, pattern] = (CLIENT_ROUTES[name] as Route).split(" ") as [Request["method"], string];
  return { method, path: param === undefined ? pattern : pattern.replace(/:[a-z_]+$/, encodeURIComponent(param)) };
}

interface Request {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** Safe to send again after a 429, a 5xx or a lost connection. */
  retry: boolean;
  signal?: AbortSignal;
}

export class Memoryd {
  private readonly options: ResolvedOptions;

  constructor(options: ClientOptions) {
    this.options = resolveOptions(options);
  }

  /** GET /v1/whoami: the key's name, scopes and workspace. */
  whoami(options: CallOptions = {}): Promise<WhoamiResult> {
    return this.call({ ...route("whoami"), retry: true, ...options });
  }

  /** POST /v1/memory/facts: teach 1-20 facts. Not retried: a retry after a lost connection could teach twice (duplicates are skipped, but counts differ). */
  teach(body: TeachRequest, options: CallOptions = {}): Promise<TeachResult> {
    return this.call({ ...route("teach"), body, retry: false, ...options });
  }

  /** POST /v1/memory/messages: teach what the user said in a conversation. */
  teachMessages(body: TeachMessagesRequest, options: CallOptions = {}): Promise<TeachMessagesResult> {
    return this.call({ ...route("teachMessages"), body, retry: false, ...options });
  }

  /** POST /v1/memory/search: the facts most relevant to a query. */
  search(body: SearchBody, options: CallOptions = {}): Promise<SearchResult> {
    return this.call({ ...route("search"), body, retry: true, ...options });
  }

  /** POST /v1/memory/context: the memory block for a prompt. */
  context(body: ContextBody, options: CallOptions = {}): Promise<ContextPacket> {
    return this.call({ ...route("context"), body, retry: true, ...options });
  }

  /** The facts API: list, read and delete the facts the key may see (a delete is not retried: a second one after a lost response would be a 404). */
  readonly facts = {
    list: (params: FactListParams = {}, options: CallOptions = {}): Promise<FactList> =>
      this.call({ ...route("facts.list"), query: { ...params }, retry: true, ...options }),
    get: (factId: string, params: FactQuery = {}, options: CallOptions = {}): Promise<FactWithHistory> =>
      this.call({ ...route("facts.get", factId), query: params, retry: true, ...options }),
    delete: (factId: string, params: FactQuery = {}, options: CallOptions = {}): Promise<{ fact_id: string; restored: string[] }> =>
      this.call({ ...route("facts.delete", factId), query: params, retry: false, ...options }),
  };

  /** The worker's answers: queued and polled, or streamed. */
  readonly answers = {
    /**
     * POST /v1/answers, queued. Sent with an Idempotency-Key (one is made when none is given), so a
     * retry after a lost connection returns the same answer_id instead of running a second answer.
     */
    create: (body: AnswerBody, options: CallOptions & { idempotencyKey?: string } = {}): Promise<QueuedAnswer> => {
      const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
      return this.call({
        ...route("answers.create"),
        body: { ...body, stream: false },
        headers: { "idempotency-key": idempotencyKey },
        retry: true,
        ...(options.signal && { signal: options.signal }),
      });
    },
    get: (answerId: string, options: CallOptions & { includeSources?: boolean } = {}): Promise<Answer> =>
      this.call({
        ...route("answers.get", answerId),
        query: options.includeSources === true ? { include: "sources" } : {},
        retry: true,
        ...(options.signal && { signal: options.signal }),
      }),
    /** Polls until the answer is completed or failed (or the signal aborts). */
    wait: async (answerId: string, options: CallOptions & { includeSources?: boolean; pollMs?: number } = {}): Promise<Answer> => {
      for (let attempt = 0; ; attempt++) {
        const answer = await this.answers.get(answerId, options);
        if (answer.status === "completed" || answer.status === "failed") return answer;
        await sleep(Math.min(options.pollMs ?? 250 * 2 ** Math.min(attempt, 3), 2000), options.signal);
      }
    },
    /**
     * POST /v1/answers, streamed: the events as they arrive. Not retried: the run starts with the
     * request, so a second request would be a second answer.
     */
    stream: (body: AnswerBody, options: CallOptions = {}): AsyncIterable<AnswerEvent> => this.events(body, options),
  };

  private async *events(body: AnswerBody, options: CallOptions): AsyncGenerator<AnswerEvent> {
    const response = await this.send({ ...route("answers.create"), body: { ...body, stream: true }, retry: false, ...options }, false);
    if (response.body === null) throw new MemorydError(response.status, "internal_error", "the stream has no body");
    const stream = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const message of stream) {
      const event = { event: message.event ?? "message", data: JSON.parse(message.data) as unknown } as AnswerEvent;
      yield event;
      if (event.event === "done") return;
    }
    throw new MemorydError(0, "stream_cut", "the answer stream ended before its done event");
  }

  /** The envelope's data; a MemorydError for an error envelope or a transport failure. */
  private async call<T>(request: Request): Promise<T> {
    const response = await this.send(request, request.retry);
    const text = await response.text();
    const json = text === "" ? {} : (JSON.parse(text) as { data?: T });
    return json.data as T;
  }

  /** Sends with the timeout, the signal and, where safe, retries with backoff; throws MemorydError on a non-2xx. */
  private async send(request: Request, retry: boolean): Promise<Response> {
    const { baseUrl, apiKey, fetch, timeoutMs, maxRetries } = this.options;
    const url = new URL(request.path, baseUrl);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, ...request.headers };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    for (let attempt = 0; ; attempt++) {
      request.signal?.throwIfAborted();
      const { signal, done } = withTimeout(timeoutMs, request.signal);
      let failure: MemorydError;
      try {
        const response = await fetch(url.toString(), {
          method: request.method,
          headers,
          ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
          signal,
        });
        if (response.ok) {
          done();
          return response;
        }
        done();
        failure = await MemorydError.from(response);
      } catch (error) {
        done();
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        failure = MemorydError.lost(error);
      }
      const retriable = failure.status === 429 || failure.status >= 500 || failure.status === 0;
      if (!retry || !retriable || attempt >= maxRetries) throw failure;
      await sleep(backoffMs(attempt, failure.retryAfter), request.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
