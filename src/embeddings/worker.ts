/**
 * Embeds facts after they are stored, never inside a teach: each instance leases a batch of live
 * facts without a vector of the configured model (src/embeddings/store.ts), asks the endpoint for
 * their vectors in one request, stores them and ends the leases. A failed request ends the leases
 * at once and waits before the next (1 s, doubling, at most `maxBackoffMs`), so facts left waiting
 * while the endpoint was down are embedded within that cap of it answering again. A fact the
 * endpoint refuses alone (a 4xx for that text) a few times is stored with no vector and not asked again.
 */
import type { Db } from "../db/types";
import type { Logger } from "../log";
import { EmbeddingError, type EmbeddingClient } from "./client";
import { clearLeases, dropOtherModels, leaseFactsToEmbed, releaseLeases, storeVectors, type FactToEmbed } from "./store";

export interface EmbeddingWorkerOptions {
  /** Facts a request. */
  batch: number;
  /** How long a request may take. */
  timeoutMs: number;
  /** How long an instance holds the facts it is embedding; one that dies holds them this long. */
  leaseSeconds: number;
  /** How often an idle instance looks for new facts. */
  pollMs: number;
  maxBackoffMs: number;
  /** A fact refused this many times alone is given up (stored with no vector). */
  maxAttempts: number;
}

export const WORKER_DEFAULTS: Omit<EmbeddingWorkerOptions, "batch" | "timeoutMs"> = {
  leaseSeconds: 60,
  pollMs: 1_000,
  maxBackoffMs: 30_000,
  maxAttempts: 3,
};

/** How often the scan starts again from the oldest fact: leases that ran out on a dead instance, facts given back. */
const RESCAN_MS = 30_000;

export interface BatchOutcome {
  /** Facts leased in this round (0: nothing waits). */
  leased: number;
  embedded: number;
  refused: number;
  /** The request failed: the facts wait for the next attempt. */
  failed: EmbeddingError | null;
  /** The workspaces of the facts leased. */
  workspaces: string[];
}

export class EmbeddingWorker {
  private readonly options: EmbeddingWorkerOptions;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private failures = 0;
  /** Facts up to this id were looked at since the last rescan (ids sort by creation). */
  private watermark = "";
  private rescannedAt = 0;
  private lastWarnAt = 0;

  constructor(
    private readonly db: Db,
    private readonly client: EmbeddingClient,
    private readonly log: Logger,
    options: Pick<EmbeddingWorkerOptions, "batch" | "timeoutMs"> & Partial<EmbeddingWorkerOptions>,
    private readonly onBatch: (outcome: BatchOutcome) => void = () => {},
  ) {
    this.options = { ...WORKER_DEFAULTS, ...options };
  }

  start(): void {
    this.stopped = false;
    this.running = this.dropOldModels().catch((error: unknown) => this.log.warn("could not drop vectors of other embedding models", { error: String(error) }));
    this.schedule(0);
  }

  /**
   * The vectors of a model no longer configured go, a few thousand a statement. On the embedded
   * database this process is the only one, so the leases a killed predecessor held go too: its
   * facts are embedded now rather than once those leases run out.
   */
  private async dropOldModels(): Promise<void> {
    if (this.db.kind === "embedded") await clearLeases(this.db);
    while (!this.stopped && (await dropOtherModels(this.db, this.client.model)) > 0);
  }

  /** Stops polling and waits for the request under way (bounded by its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /**
   * One batch: lease, embed, store. `workspaceId` narrows it to one workspace (the backfill
   * command); `afterId` starts the scan past that fact.
   */
  async embedBatch(options: { workspaceId?: string; afterId?: string } = {}): Promise<BatchOutcome & { lastId: string | null }> {
    const outcome = await this.leaseAndEmbed(options);
    this.onBatch(outcome);
    return outcome;
  }

  private async leaseAndEmbed(options: { workspaceId?: string; afterId?: string }): Promise<BatchOutcome & { lastId: string | null }> {
    const { batch, timeoutMs, leaseSeconds, maxAttempts } = this.options;
    const facts = await leaseFactsToEmbed(this.db, this.client.model, {
      limit: batch,
      afterId: options.afterId ?? "",
      leaseSeconds,
      ...(options.workspaceId !== undefined && { workspaceId: options.workspaceId }),
    });
    const lastId = facts.at(-1)?.id ?? null;
    if (facts.length === 0) return { leased: 0, embedded: 0, refused: 0, failed: null, workspaces: [], lastId };
    const workspaces = [...new Set(facts.map((f) => f.workspace_id))];
    try {
      const vectors = await this.client.embedDocuments(
        facts.map((f) => f.text),
        timeoutMs,
      );
      await storeVectors(
        this.db,
        this.client.model,
        facts.map((f, i) => ({ factId: f.id, workspaceId: f.workspace_id, vector: vectors[i]! })),
      );
      return { leased: facts.length, embedded: facts.length, refused: 0, failed: null, workspaces, lastId };
    } catch (error) {
      if (!(error instanceof EmbeddingError)) {
        await releaseLeases(
          this.db,
          facts.map((f) => f.id),
          false,
        );
        throw error;
      }
      // A refusal of several texts says nothing of each: they are asked one at a time next.
      if (error.failure === "refused" && facts.length > 1) return { ...(await this.oneByOne(facts, maxAttempts)), workspaces, lastId };
      if (error.failure === "refused" && facts[0]!.attempts + 1 >= maxAttempts) {
        await storeVectors(this.db, this.client.model, [{ factId: facts[0]!.id, workspaceId: facts[0]!.workspace_id, vector: null }]);
        return { leased: 1, embedded: 0, refused: 1, failed: null, workspaces, lastId };
      }
      await releaseLeases(
        this.db,
        facts.map((f) => f.id),
        error.failure === "refused",
      );
      return { leased: facts.length, embedded: 0, refused: 0, failed: error, workspaces, lastId };
    }
  }

  private async oneByOne(facts: readonly FactToEmbed[], maxAttempts: number): Promise<Omit<BatchOutcome, "workspaces">> {
    let embedded = 0;
    let refused = 0;
    for (const fact of facts) {
      try {
        const [vector] = await this.client.embedDocuments([fact.text], this.options.timeoutMs);
        await storeVectors(this.db, this.client.model, [{ factId: fact.id, workspaceId: fact.workspace_id, vector: vector! }]);
        embedded += 1;
      } catch (error) {
        if (!(error instanceof EmbeddingError)) throw error;
        if (error.failure === "refused" && fact.attempts + 1 >= maxAttempts) {
          await storeVectors(this.db, this.client.model, [{ factId: fact.id, workspaceId: fact.workspace_id, vector: null }]);
          refused += 1;
          continue;
        }
        // Only this fact was asked alone: the ones after it were not asked, and no refusal is theirs.
        await releaseLeases(this.db, [fact.id], error.failure === "refused");
        await releaseLeases(
          this.db,
          facts.slice(facts.indexOf(fact) + 1).map((f) => f.id),
          false,
        );
        return { leased: facts.length, embedded, refused, failed: error };
      }
    }
    return { leased: facts.length, embedded, refused, failed: null };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round().then(
        (nextMs) => this.schedule(nextMs),
        (error: unknown) => {
          this.log.warn("embedding round failed", { error: String(error) });
          this.schedule(this.backoff());
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  /** Embeds batches while facts wait; returns how long to wait before the next round. */
  private async round(): Promise<number> {
    if (Date.now() - this.rescannedAt >= RESCAN_MS) {
      this.watermark = "";
      this.rescannedAt = Date.now();
    }
    while (!this.stopped) {
      const outcome = await this.embedBatch({ afterId: this.watermark });
      // A text refused on its own is no reason to wait: the endpoint answers, and that fact is
      // asked again at the next rescan until it is given up.
      if (outcome.failed !== null && outcome.failed.failure !== "refused") {
        this.warn(outcome.failed);
        this.watermark = "";
        return this.backoff();
      }
      this.failures = 0;
      if (outcome.lastId === null) return this.options.pollMs;
      this.watermark = outcome.lastId;
    }
    return this.options.pollMs;
  }

  private backoff(): number {
    this.failures += 1;
    return Math.min(this.options.maxBackoffMs, 1_000 * 2 ** (this.failures - 1));
  }

  /** One line a minute at most: an endpoint down for hours must not fill the log. */
  private warn(error: EmbeddingError): void {
    if (Date.now() - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = Date.now();
    this.log.warn("embedding facts failed; they wait for the endpoint", { failure: error.failure, error: error.message });
  }
}
