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
  /** The least cosine similarity at which a fact's vector rank counts (MEMORYD_EMBEDDINGS_MIN_SIMILARITY). */
  minSimilarity: number;
}

export interface SemanticOptions {
  timeoutMs: number;
  minSimilarity: number;
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
  /** When the last sync began (performance.now()). */
  syncedAt: number;
}

/**
 * A workspace's vectors are read again at most this often: a fact's vector arrives after the fact
 * anyway (it is found by its words until then), so a search need not ask the database each time.
 */
const SYNC_EVERY_MS = 1_000;
/** Vectors read per statement. */
const SYNC_PAGE = 1_000;
/**
 * Query vectors kept, by text (the model is the client's, one per process): an agent asks the
 * same question for search and for context, and again on the next turn. 3 KB each at 768
 * dimensions, so a few MB at most.
 */
const QUERY_CACHE_SIZE = 1_000;

export class SemanticSearch {
  /** Map order is the LRU order. */
  private readonly entries = new Map<string, Entry>();
  private readonly failures: Record<EmbeddingFailure, number> = { timeout: 0, unavailable: 0, refused: 0, misconfigured: 0, garbage: 0 };
  /** Query vectors by text, Map order the LRU order; a text asked for while its call is under way shares the call. */
  private readonly queryVectors = new Map<string, Float32Array>();
  private readonly pendingQueries = new Map<string, Promise<Float32Array | null>>();
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
    const started = performance.now();
    const loading = this.vectorsOf(workspaceId).catch((error: unknown) => {
      this.log.warn("could not read fact vectors", { error: String(error) });
      return null;
    });
    const query = await this.queryVector(text);
    if (query === null) return null;
    // Reading a workspace's vectors the first time may take longer than the timeout allows: the
    // search goes on without them, and they are there for the next one.
    const left = this.options.timeoutMs - (performance.now() - started);
    const vectors = await Promise.race([loading, Bun.sleep(Math.max(0, left)).then(() => null)]);
    return vectors === null || vectors.size === 0 ? null : { query, vectors, minSimilarity: this.options.minSimilarity };
  }

  /** The query's vector within the timeout, or null: from the cache when the text was asked for lately. */
  queryVector(text: string): Promise<Float32Array | null> {
    const cached = this.queryVectors.get(text);
    if (cached !== undefined) {
      this.queryVectors.delete(text);
      this.queryVectors.set(text, cached);
      return Promise.resolve(cached);
    }
    const pending = this.pendingQueries.get(text);
    if (pending !== undefined) return pending;
    const call = this.embedQuery(text).then((vector) => {
      this.pendingQueries.delete(text);
      if (vector !== null) {
        this.queryVectors.set(text, vector);
        if (this.queryVectors.size > QUERY_CACHE_SIZE) this.queryVectors.delete(this.queryVectors.keys().next().value!);
      }
      return vector;
    });
    this.pendingQueries.set(text, call);
    return call;
  }

  private async embedQuery(text: string): Promise<Float32Array | null> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The client's own timeout bounds the request; this bounds everything around it too.
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

  /**
   * The workspace's vectors, read from the database at most once a second (`SYNC_EVERY_MS`) and
   * at once after this process stored some (`stale`); while a read is under way, the vectors
   * already held.
   */
  async vectorsOf(workspaceId: string): Promise<VectorSet> {
    let entry = this.entries.get(workspaceId);
    if (entry === undefined) entry = { set: new VectorSet(), syncing: null, syncedAt: Number.NEGATIVE_INFINITY };
    this.entries.delete(workspaceId);
    this.entries.set(workspaceId, entry);
    const current = entry;
    if (current.syncing === null && performance.now() - current.syncedAt < SYNC_EVERY_MS) return current.set;
    if (current.syncing !== null && current.set.seq > 0) return current.set;
    // The workspace's first read: wait for the one under way, then read what it may have missed.
    while (current.syncing !== null) await current.syncing.catch(() => undefined);
    current.syncedAt = performance.now();
    current.syncing = this.sync(workspaceId, current.set).finally(() => {
      current.syncing = null;
    });
    const set = await current.syncing;
    this.evictPastBudget();
    return set;
  }

  /** Vectors of these workspaces were just stored by this process: the next read asks the database. */
  stale(workspaceIds: readonly string[]): void {
    for (const id of workspaceIds) {
      const entry = this.entries.get(id);
      if (entry !== undefined) entry.syncedAt = Number.NEGATIVE_INFINITY;
    }
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

  /**
   * Reads the rows past the set's last, a page at a time, yielding between pages: a workspace's
   * first read decodes tens of thousands of vectors, and the searches meanwhile (which go on
   * without them) must not wait behind it.
   */
  private async sync(workspaceId: string, set: VectorSet): Promise<VectorSet> {
    for (;;) {
      const rows = await vectorsSince(this.db, workspaceId, this.client.model, set.seq, SYNC_PAGE);
      for (const row of rows) {
        if (row.vector !== null) set.add(row.fact_id, decodeVector(row.vector));
        set.seq = Math.max(set.seq, row.seq);
      }
      if (rows.length < SYNC_PAGE) return set;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
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
