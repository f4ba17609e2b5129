/**
 * The operator's embeddings endpoint: any server that speaks OpenAI's `POST {base}/embeddings`
 * (Ollama, vLLM, LM Studio, llama.cpp's server, OpenAI). The endpoint is the operator's own, so
 * loopback and plain http are allowed for it.
 *
 * Called with `fetch` directly, not through an SDK: a search waits on this call, and a plain POST
 * on the runtime's kept-alive connections is all it needs (no retries: the caller has a deadline).
 * Every answer is checked before it is used: as many vectors as texts, each of finite numbers and
 * of one dimension (the first answer fixes it). A failure is an `EmbeddingError` whose message
 * names the endpoint and what went wrong, never the key.
 */
import { redactUrlCredentials } from "../redact";

export interface EmbeddingClientOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Put before a query ("search_query: ") and before a fact ("search_document: "). */
  queryPrefix: string;
  documentPrefix: string;
}

/**
 * Why a call failed: `refused` is the endpoint refusing these texts (400, 413, 422: too long, say),
 * `misconfigured` refusing memoryd itself (a wrong key, model or URL: any other 4xx), which no
 * text is to blame for.
 */
export type EmbeddingFailure = "timeout" | "unavailable" | "refused" | "misconfigured" | "garbage";

/** Statuses that refuse the input, not the caller. */
const INPUT_REFUSED: ReadonlySet<number> = new Set([400, 413, 422]);

export class EmbeddingError extends Error {
  override name = "EmbeddingError";
  constructor(
    readonly failure: EmbeddingFailure,
    message: string,
    /** The endpoint's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The longest text sent for one fact or query, in characters: past it a model truncates anyway. */
const MAX_INPUT_CHARS = 8_000;

export class EmbeddingClient {
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly where: string;
  /** The model's dimension, fixed by its first answer. */
  dimensions: number | null = null;

  constructor(readonly options: EmbeddingClientOptions) {
    this.url = `${options.baseURL.replace(/\/+$/, "")}/embeddings`;
    // Local servers need no key: then no Authorization header is sent at all.
    this.headers = { "content-type": "application/json", accept: "application/json", ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }) };
    this.where = redactUrlCredentials(options.baseURL);
  }

  get model(): string {
    return this.options.model;
  }

  /** The query's vector; rejects after `timeoutMs` or when `signal` aborts. */
  async embedQuery(text: string, timeoutMs: number, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embed([`${this.options.queryPrefix}${text}`], timeoutMs, signal);
    return vector!;
  }

  /** One vector per fact text, in order. */
  embedDocuments(texts: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embed(
      texts.map((t) => `${this.options.documentPrefix}${t}`),
      timeoutMs,
      signal,
    );
  }

  /** One POST, its answer read whole, within `timeoutMs` (the body's reading included). */
  private async embed(inputs: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: this.options.model, input: inputs.map((t) => t.slice(0, MAX_INPUT_CHARS)), encoding_format: "float" });
    const timeout = AbortSignal.timeout(timeoutMs);
    let answer: unknown;
    try {
      const response = await fetch(this.url, { method: "POST", headers: this.headers, body, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw this.statusFailure(response.status);
      }
      const text = await response.text();
      try {
        answer = JSON.parse(text);
      } catch {
        throw new EmbeddingError("garbage", `the embeddings API at ${this.where} answered something that is not JSON`);
      }
    } catch (error) {
      if (error instanceof EmbeddingError) throw error;
      if (timeout.aborted || signal?.aborted) throw new EmbeddingError("timeout", `the embeddings API at ${this.where} did not answer in time`);
      throw new EmbeddingError("unavailable", `could not reach the embeddings API at ${this.where}`);
    }
    return this.check(answer, inputs.length);
  }

  private check(response: unknown, count: number): Float32Array[] {
    const data = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new EmbeddingError(
        "garbage",
        `the embeddings API at ${this.where} answered ${Array.isArray(data) ? data.length : "no"} vectors for ${count} texts`,
      );
    }
    // Servers may answer out of order; each item names its input.
    const ordered = [...data].sort((a, b) => ((a as { index?: number }).index ?? 0) - ((b as { index?: number }).index ?? 0));
    return ordered.map((item) => {
      const values = (item as { embedding?: unknown }).embedding;
      if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === "number" && Number.isFinite(v))) {
        throw new EmbeddingError("garbage", `the embeddings API at ${this.where} answered a vector that is not a list of numbers`);
      }
      this.dimensions ??= values.length;
      if (values.length !== this.dimensions) {
        throw new EmbeddingError("garbage", `the embeddings API at ${this.where} answered ${values.length} dimensions, expected ${this.dimensions}`);
      }
      return Float32Array.from(values as number[]);
    });
  }

  private statusFailure(status: number): EmbeddingError {
    const failure: EmbeddingFailure = status >= 500 || status === 429 ? "unavailable" : INPUT_REFUSED.has(status) ? "refused" : "misconfigured";
    return new EmbeddingError(failure, `the embeddings API at ${this.where} answered HTTP ${status}`, status);
  }
}
