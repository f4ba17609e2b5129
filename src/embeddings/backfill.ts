/**
 * `memoryd embeddings backfill`: embeds, now and in the foreground, every live fact that has no
 * vector of the configured model yet. It is the background worker's own batch (lease, embed,
 * store) run in a loop until nothing waits, so it shares the queue with servers on the same
 * PostgreSQL instead of racing them.
 *
 * An endpoint that fails (no answer, 5xx, garbage) is asked again after 1 s, 2 s and 4 s, then the
 * backfill stops with the failure, the facts still waiting for the next run or the server. One
 * that refuses every call (401, 403, 404: a wrong key, URL or model) stops it at once: retrying
 * would not help. A text the endpoint refuses on its own (400, 413, 422) is the worker's business:
 * it asks again at once, and after a few refusals stores that fact without a vector.
 */
import { waitingFacts } from "../admin/status";
import type { Db } from "../db/types";
import type { Logger } from "../log";
import type { EmbeddingClient, EmbeddingError } from "./client";
import { clearLeases, storedDimensions, vectorCounts, type VectorCounts } from "./store";
import { EmbeddingWorker, WORKER_DEFAULTS } from "./worker";

export interface BackfillOptions {
  /** One workspace's facts only. */
  workspaceId?: string;
  /** Facts a request (MEMORYD_EMBEDDINGS_BATCH). */
  batch: number;
  /** How long one request may take. */
  timeoutMs: number;
  /** Waits before each retry of a failing endpoint; their count is the number of retries. */
  retryDelaysMs?: readonly number[];
  /** Before the first batch, with how many facts wait. */
  onStart?: (waiting: number) => void;
  /** After each batch, with the facts done so far (embedded and refused). */
  onProgress?: (done: number) => void;
}

export interface BackfillReport {
  model: string;
  /** The model's dimension, from this run's answers or the stored vectors; null if none yet. */
  dimensions: number | null;
  embedded: number;
  refused: number;
  waiting_before: number;
  waiting_after: number;
}

/** The endpoint kept failing: `report` says how far the backfill came. */
export class BackfillError extends Error {
  override name = "BackfillError";
  constructor(
    message: string,
    readonly failure: EmbeddingError,
    readonly report: BackfillReport,
  ) {
    super(message);
  }
}

export const RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000];

export async function backfillEmbeddings(db: Db, client: EmbeddingClient, log: Logger, options: BackfillOptions): Promise<BackfillReport> {
  const worker = new EmbeddingWorker(db, client, log, { batch: options.batch, timeoutMs: options.timeoutMs });
  const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  // On the embedded database this process is the only one: leases a killed run left are nobody's.
  if (db.kind === "embedded") await clearLeases(db);
  const counts = (): Promise<VectorCounts> => vectorCounts(db, client.model, options.workspaceId);
  const waitingBefore = waitingFacts(await counts());
  options.onStart?.(waitingBefore);

  let embedded = 0;
  let refused = 0;
  let afterId = "";
  let failures = 0;
  // Refusals of single texts in a row with nothing done: each raises a fact's attempts, so they
  // end within the worker's limit; past twice that something else is wrong and they count as failures.
  let refusals = 0;
  const report = async (): Promise<BackfillReport> => ({
    model: client.model,
    dimensions: client.dimensions ?? (await storedDimensions(db, client.model)),
    embedded,
    refused,
    waiting_before: waitingBefore,
    waiting_after: waitingFacts(await counts()),
  });

  for (;;) {
    const outcome = await worker.embedBatch({ afterId, ...(options.workspaceId !== undefined && { workspaceId: options.workspaceId }) });
    embedded += outcome.embedded;
    refused += outcome.refused;
    if (outcome.embedded + outcome.refused > 0) {
      refusals = 0;
      options.onProgress?.(embedded + refused);
    }
    const failed = outcome.failed;
    if (failed === null) {
      failures = 0;
      if (outcome.leased === 0 || outcome.lastId === null) break;
      afterId = outcome.lastId;
      continue;
    }
    // The failed facts were given back: the next batch starts from the same place.
    if (failed.failure === "refused" && refusals < 2 * WORKER_DEFAULTS.maxAttempts) {
      refusals += 1;
      continue;
    }
    if (failed.failure === "misconfigured") throw new BackfillError(stopMessage(failed), failed, await report());
    if (failures >= retryDelays.length) throw new BackfillError(stopMessage(failed, failures + 1), failed, await report());
    await Bun.sleep(retryDelays[failures]!);
    failures += 1;
  }
  return report();
}

function stopMessage(error: EmbeddingError, attempts?: number): string {
  const hint =
    error.status === 401 || error.status === 403
      ? " (check MEMORYD_EMBEDDINGS_API_KEY)"
      : error.status === 404
        ? " (check MEMORYD_EMBEDDINGS_URL, which ends before /embeddings, and MEMORYD_EMBEDDINGS_MODEL)"
        : "";
  return `${error.message}${hint}${attempts === undefined ? "" : ` (${attempts} attempts)`}`;
}
