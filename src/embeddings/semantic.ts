/**
 * The query side of the embeddings endpoint: a search's query vector, bounded by the timeout, and
 * the workspace's fact vectors, brought up to date from the database on each read (only the rows
 * written since the last). Any failure gives the model-free ranking: never an error, never a wait
 * past the timeout.
 */
import type { Db } from "../db/types";
import type { Logger } from "../log";
import type { EmbeddingClient, EmbeddingFailure } from "./client";
import { EmbeddingError } from "./client";
import { decodeVector, vectorsSince } from "./store";
import { VectorSet } from "./vectors";

/** What a search ranks by meaning with: the query's vector and the workspace's vectors. */
export interface SemanticQuery {
  query: Float32Array;
  vectors: VectorSet;
}

export interface SemanticOptions {
  timeoutMs: number;
  /** Bytes of vectors held in memory; least recently used workspaces go past it. */
  budgetBytes: number;
}

export interface SemanticStats {
  workspaces: number;
  vectors: number;
  bytes: number;
  dimensions: number | null;
  /** Query embeddings that failed since start, by failure. */
  failures: Record<EmbeddingFailure, number>;
}

interface Entry {
  set: VectorSet;
  syncing: Promise<VectorSet> | null;
}

export class SemanticSearch {
  /** Map order is the LRU order. */
  private readonly entries = new Map<string, Entry>();
  private readonly failures: Record<EmbeddingFailure, number> = { timeout: 0, unavailable: 0, refused: 0, misconfigured: 0, garbage: 0 };
  private lastWarnAt = 0;

  constructor(
    private readonly db: Db,
    readonly client: EmbeddingClient,
    private readonly log: Logger,
    private readonly options: SemanticOptions,
    private readonly onFailure: (failure: EmbeddingFailure) => void = () => {},
  ) {}

  get model(): string {
    return this.client.model;
  }

  /**
   * The query's vector and the workspace's vectors, fetched together; null when the endpoint
   * fails or is slower than the timeout, or the workspace has no vectors yet.
   */
  async forQuery(workspaceId: string, text: string): Promise<SemanticQuery | null> {
    const [query, vectors] = await Promise.all([
      this.queryVector(text),
      this.vectorsOf(workspaceId).catch((error: unknown) => {
        this.log.warn("could not read fact vectors", { error: String(error) });
        return null;
      }),
    ]);
    return query === null || vectors === null || vectors.size === 0 ? null : { query, vectors };
  }

  /** The query's vector within the timeout, or null. */
  async queryVector(text: string): Promise<Float32Array | null> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The SDK's own timeout bounds the request; this bounds everything around it too.
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve(null);
      }, this.options.timeoutMs);
    });
    const call = this.client.embedQuery(text, this.options.timeoutMs, controller.signal).catch((error: unknown) => {
      // Past the deadline the abort is ours, counted below.
      if (!controller.signal.aborted) this.failed(error instanceof EmbeddingError ? error : new EmbeddingError("unavailable", String(error)));
      return null;
    });
    const vector = await Promise.race([call, deadline]);
    clearTimeout(timer);
    if (vector === null && controller.signal.aborted) this.failed(new EmbeddingError("timeout", "the embeddings API did not answer in time"));
    return vector;
  }

  /** The workspace's vectors, with every row written before this call. */
  async vectorsOf(workspaceId: string): Promise<VectorSet> {
    let entry = this.entries.get(workspaceId);
    if (entry === undefined) {
      entry = { set: new VectorSet(), syncing: null };
    }
    this.entries.delete(workspaceId);
    this.entries.set(workspaceId, entry);
    // A sync under way may have read before this caller's rows were written: wait, then read again.
    while (entry.syncing !== null) await entry.syncing.catch(() => undefined);
    const current = entry;
    current.syncing = this.sync(workspaceId, current.set).finally(() => {
      current.syncing = null;
    });
    const set = await current.syncing;
    this.evictPastBudget();
    return set;
  }

  stats(): SemanticStats {
    let vectors = 0;
    let bytes = 0;
    let dimensions: number | null = null;
    for (const { set } of this.entries.values()) {
      vectors += set.size;
      bytes += set.bytes();
      if (set.dimensions > 0) dimensions = set.dimensions;
    }
    return { workspaces: this.entries.size, vectors, bytes, dimensions: dimensions ?? this.client.dimensions, failures: { ...this.failures } };
  }

  private async sync(workspaceId: string, set: VectorSet): Promise<VectorSet> {
    const rows = await vectorsSince(this.db, workspaceId, this.client.model, set.seq);
    for (const row of rows) {
      if (row.vector !== null) set.add(row.fact_id, decodeVector(row.vector));
      set.seq = Math.max(set.seq, row.seq);
    }
    return set;
  }

  private evictPastBudget(): void {
    let bytes = 0;
    for (const { set } of this.entries.values()) bytes += set.bytes();
    for (const [workspaceId, entry] of this.entries) {
      if (bytes <= this.options.budgetBytes || this.entries.size <= 1) return;
      if (entry.syncing !== null) continue;
      bytes -= entry.set.bytes();
      this.entries.delete(workspaceId);
    }
  }

  /** Counted always; logged once a minute at most. */
  private failed(error: EmbeddingError): void {
    this.failures[error.failure] += 1;
    this.onFailure(error.failure);
    if (Date.now() - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = Date.now();
    this.log.warn("query embedding failed; searching without it", { failure: error.failure, error: error.message });
  }
}
