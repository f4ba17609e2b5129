/**
 * The embeddings endpoint as configured (MEMORYD_EMBEDDINGS_*): one client, the query side for
 * search and the worker that embeds stored facts. Null when no endpoint is configured: then
 * nothing here runs and no model is on the query path.
 */
import type { Config } from "../config";
import type { Db } from "../db/types";
import type { Logger } from "../log";
import { EmbeddingClient, type EmbeddingFailure } from "./client";
import { SemanticSearch } from "./semantic";
import { EmbeddingWorker, type BatchOutcome } from "./worker";

export interface Embeddings {
  client: EmbeddingClient;
  semantic: SemanticSearch;
  worker: EmbeddingWorker;
}

export interface EmbeddingEvents {
  queryFailed(failure: EmbeddingFailure): void;
  batchDone(outcome: BatchOutcome): void;
}

/** Vectors held in memory share the index budget: this part of it. */
const VECTOR_SHARE_OF_INDEX_BUDGET = 0.5;

export function clientFromConfig(config: Config): EmbeddingClient | null {
  if (config.embeddingsUrl === undefined || config.embeddingsModel === undefined) return null;
  return new EmbeddingClient({
    baseURL: config.embeddingsUrl,
    model: config.embeddingsModel,
    ...(config.embeddingsApiKey !== undefined && { apiKey: config.embeddingsApiKey }),
    queryPrefix: config.embeddingsQueryPrefix,
    documentPrefix: config.embeddingsDocumentPrefix,
  });
}

export function createEmbeddings(config: Config, db: Db, log: Logger, events: EmbeddingEvents): Embeddings | null {
  const client = clientFromConfig(config);
  if (client === null) return null;
  const semantic = new SemanticSearch(
    db,
    client,
    log,
    {
      timeoutMs: config.embeddingsTimeoutMs,
      minSimilarity: config.embeddingsMinSimilarity,
      budgetBytes: config.indexMemoryMb * 1024 * 1024 * VECTOR_SHARE_OF_INDEX_BUDGET,
    },
    (failure) => events.queryFailed(failure),
  );
  // Facts are embedded in the background: a request may take longer than a search may wait.
  const worker = new EmbeddingWorker(db, client, log, { batch: config.embeddingsBatch, timeoutMs: Math.max(config.embeddingsTimeoutMs, 30_000) }, (outcome) => {
    if (outcome.embedded > 0) semantic.stale(outcome.workspaces);
    events.batchDone(outcome);
  });
  return { client, semantic, worker };
}
