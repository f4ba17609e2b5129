/** The client's options, its one error type, and the timing of its retries. */

export interface ClientOptions {
  /** Where memoryd listens ("https://memory.example.com"). */
  baseUrl: string;
  /** A key of the workspace (`memoryd keys create`). */
  apiKey: string;
  /** A fetch of your own (a proxy, a test); the global one by default. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** How long one attempt may take until its response starts, ms. */
  timeoutMs?: number;
  /** Attempts after the first, for calls safe to repeat. */
  maxRetries?: number;
}

export type ResolvedOptions = Required<ClientOptions>;

/** The defaults, as a table. */
const DEFAULTS = { timeoutMs: 30_000, maxRetries: 2 } as const;

export function resolveOptions(options: ClientOptions): ResolvedOptions {
  if (typeof options.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (typeof options.apiKey !== "string" || options.apiKey === "") throw new TypeError("apiKey is required");
  return {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
  };
}

/**
 * What a call failed with: the error envelope's code, message and details (docs/api.md, Errors),
 * the HTTP status (0 when no response came), and for a 429 the seconds the server asked to wait.
 */
export class MemorydError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined = undefined,
    readonly retryAfter: number | undefined = undefined,
  ) {
    super(message);
    this.name = "MemorydError";
  }

  /** The error a non-2xx response carries; a body that is not the envelope still gives a clear error. */
  static async from(response: Response): Promise<MemorydError> {
    const retryAfter = secondsOf(response.headers.get("retry-after"));
    const text = await response.text().catch(() => "");
    try {
      const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: Record<string, unknown> } };
      if (error !== undefined && typeof error.code === "string" && typeof error.message === "string") {
        return new MemorydError(response.status, error.code, error.message, error.details, retryAfter);
      }
    } catch {
      // not JSON: described below
    }
    return new MemorydError(response.status, "http_error", `HTTP ${response.status} without an error envelope`, undefined, retryAfter);
  }

  /** No response: the connection failed or the attempt timed out. */
  static lost(error: unknown): MemorydError {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return new MemorydError(0, timedOut ? "timeout" : "connection_failed", timedOut ? "no response within timeoutMs" : `no response: ${String(error)}`);
  }
}

function secondsOf(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** Exponential backoff with jitter (0.25 s, 0.5 s, 1 s, ... at most 8 s), or what Retry-After asked. */
export function backoffMs(attempt: number, retryAfterSeconds: number | undefined): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  const base = Math.min(8000, 250 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

/**
 * A signal that aborts after `ms` or when `outer` aborts; `done` stops the timer once the
 * response has started (a streamed answer may then take as long as it takes).
 */
export function withTimeout(ms: number, outer?: AbortSignal): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")), ms);
  const onAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
    },
  };
}
