/**
 * The operator's embeddings endpoint: any server that speaks OpenAI's `POST {base}/embeddings`
 * (Ollama, vLLM, LM Studio, llama.cpp's server, OpenAI), called through the official `openai` SDK.
 * The endpoint is the operator's own, so loopback and plain http are allowed for it.
 *
 * Every answer is checked before it is used: as many vectors as texts, each of finite numbers and
 * of one dimension (the first answer fixes it). A failure is an `EmbeddingError` whose message
 * names the endpoint and what went wrong, never the key.
 */
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
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
  private readonly client: OpenAI;
  private readonly where: string;
  /** The model's dimension, fixed by its first answer. */
  dimensions: number | null = null;

  constructor(readonly options: EmbeddingClientOptions) {
    // Local servers need no key; the SDK insists on one, and it is only sent as a bearer header.
    this.client = new OpenAI({ apiKey: options.apiKey ?? "none", baseURL: options.baseURL, maxRetries: 0 });
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

  private async embed(inputs: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create(
        { model: this.options.model, input: inputs.map((t) => t.slice(0, MAX_INPUT_CHARS)), encoding_format: "float" },
        { timeout: timeoutMs, ...(signal && { signal }) },
      );
    } catch (error) {
      throw this.failure(error);
    }
    return this.check(response, inputs.length);
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

  private failure(error: unknown): EmbeddingError {
    if (error instanceof EmbeddingError) return error;
    if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) {
      return new EmbeddingError("timeout", `the embeddings API at ${this.where} did not answer in time`);
    }
    if (error instanceof APIError && error.status !== undefined) {
      const failure: EmbeddingFailure =
        error.status >= 500 || error.status === 429 ? "unavailable" : INPUT_REFUSED.has(error.status) ? "refused" : "misconfigured";
      return new EmbeddingError(failure, `the embeddings API at ${this.where} answered HTTP ${error.status}`, error.status);
    }
    return new EmbeddingError("unavailable", `could not reach the embeddings API at ${this.where}`);
  }
}
