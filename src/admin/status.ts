/**
 * What an operator looks at first when something is wrong (`memoryd doctor`, `GET
 * /v1/admin/status`): the database and its schema, the answer queue, how much there is, the
 * embeddings endpoint and how far its vectors have come, and, in the serving process, the search
 * indexes' memory against their budget.
 */
import type { Config } from "../config";
import type { Db } from "../db/types";
import { MIGRATIONS } from "../db/migrations/index";
import { storedDimensions, vectorCounts } from "../embeddings/store";
import type { IndexStats } from "../memory/index/registry";
import { redactUrlCredentials } from "../redact";

/** The embeddings endpoint as configured, and how many live facts have a vector of its model. */
export interface EmbeddingsStatus {
  /** Credentials in the URL are redacted; the API key is never shown. */
  url: string;
  model: string;
  /** The model's dimension: the running server's, else the stored vectors'; null before any. */
  dimensions: number | null;
  live_facts: number;
  with_vectors: number;
  /** Facts whose text the endpoint refused: found by their words only. */
  refused: number;
  /** Live facts still without a vector of the model. */
  waiting: number;
  /** Vectors of models no longer configured (the server drops them). */
  other_models: number;
}

export interface ServiceStatus {
  database: { kind: Db["kind"]; version: string };
  migrations: { applied: number; latest: number; pending: number[] };
  answers: { queued: number; in_progress: number; oldest_queued_seconds: number | null };
  workspaces: number;
  live_facts: number;
  /** Null when no embeddings endpoint is configured (MEMORYD_EMBEDDINGS_URL unset). */
  embeddings: EmbeddingsStatus | null;
  /** Only the serving process has indexes: null from the CLI. */
  index: { workspaces: number; facts: number; bytes: number; budget_bytes: number } | null;
  /** Workspaces with a capture model and its queue; null before its migration. */
  capture_model: CaptureModelSummary | null;
}

export interface CaptureModelSummary {
  workspaces: number;
  queued: number;
  running: number;
  /** Jobs that gave up in the last 24 hours (the provider kept failing, or the model was turned off). */
  failed_last_day: number;
  /** Jobs the token budget refused in the last 24 hours. */
  refused_last_day: number;
}

/**
 * The embeddings endpoint status reports on: the configured one, with the dimension the running
 * server's client has seen (null from the CLI, which has asked the endpoint nothing).
 */
export interface EmbeddingsSetting {
  url: string;
  model: string;
  dimensions: number | null;
}

export function embeddingsSetting(config: Pick<Config, "embeddingsUrl" | "embeddingsModel">, dimensions: number | null = null): EmbeddingsSetting | null {
  if (config.embeddingsUrl === undefined || config.embeddingsModel === undefined) return null;
  return { url: config.embeddingsUrl, model: config.embeddingsModel, dimensions };
}

export async function serviceStatus(db: Db, index: IndexStats | null, embeddings: EmbeddingsSetting | null): Promise<ServiceStatus> {
  const [version] = await db.sql<{ version: string }>`SELECT version()`;
  const applied = await db.sql<{ version: number }>`SELECT version FROM schema_migrations ORDER BY version`.catch(() => []);
  const done = new Set(applied.map((r) => r.version));
  const database = { kind: db.kind, version: version?.version ?? "unknown" };
  const migrations = {
    applied: done.size,
    latest: MIGRATIONS.at(-1)?.version ?? 0,
    pending: MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.version),
  };
  const indexStatus = index === null ? null : { workspaces: index.workspaces, facts: index.facts, bytes: index.bytes, budget_bytes: index.budgetBytes };
  // A database memoryd never migrated has none of its tables yet.
  if (done.size === 0) {
    return {
      database,
      migrations,
      answers: { queued: 0, in_progress: 0, oldest_queued_seconds: null },
      workspaces: 0,
      live_facts: 0,
      embeddings: embeddings === null ? null : embeddingsStatus(embeddings, { live_facts: 0, with_vectors: 0, refused: 0, other_models: 0 }),
      index: indexStatus,
      capture_model: null,
    };
  }
  // One pass over the answers that are not final: the queue is small, history is not read.
  const [queue] = await db.sql<{ queued: number; in_progress: number; oldest: number | null }>`
    SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
           count(*) FILTER (WHERE status = 'in_progress')::int AS in_progress,
           extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'queued'))::float8 AS oldest
      FROM answers WHERE status IN ('queued', 'in_progress')`;
  const [counts] = await db.sql<{ workspaces: number; live_facts: number; vectors: boolean }>`
    SELECT (SELECT count(*) FROM workspaces)::int AS workspaces,
           (SELECT count(*) FROM facts WHERE superseded_by IS NULL)::int AS live_facts,
           to_regclass('fact_vectors') IS NOT NULL AS vectors`;
  const liveFacts = counts?.live_facts ?? 0;
  let embeddingsPart: EmbeddingsStatus | null = null;
  if (embeddings !== null) {
    // Before the vectors' migration (doctor reads a database as it finds it) every live fact waits.
    embeddingsPart = counts?.vectors
      ? embeddingsStatus(
          { ...embeddings, dimensions: embeddings.dimensions ?? (await storedDimensions(db, embeddings.model)) },
          await vectorCounts(db, embeddings.model),
        )
      : embeddingsStatus(embeddings, { live_facts: liveFacts, with_vectors: 0, refused: 0, other_models: 0 });
  }
  return {
    database,
    migrations,
    answers: {
      queued: queue?.queued ?? 0,
      in_progress: queue?.in_progress ?? 0,
      oldest_queued_seconds: queue?.oldest === null || queue?.oldest === undefined ? null : Math.round(queue.oldest),
    },
    workspaces: counts?.workspaces ?? 0,
    live_facts: liveFacts,
    embeddings: embeddingsPart,
    index: indexStatus,
    capture_model: done.has(CAPTURE_MODEL_MIGRATION) ? await captureModelSummary(db) : null,
  };
}

const CAPTURE_MODEL_MIGRATION = 24;

async function captureModelSummary(db: Db): Promise<CaptureModelSummary> {
  const [row] = await db.sql<CaptureModelSummary>`
    SELECT (SELECT count(*) FROM workspaces WHERE capture_provider IS NOT NULL)::int AS workspaces,
           count(*) FILTER (WHERE state = 'queued')::int AS queued,
           count(*) FILTER (WHERE state = 'running')::int AS running,
           count(*) FILTER (WHERE state = 'failed' AND finished_at > now() - interval '1 day')::int AS failed_last_day,
           count(*) FILTER (WHERE state = 'refused' AND finished_at > now() - interval '1 day')::int AS refused_last_day
      FROM capture_jobs WHERE state IN ('queued', 'running', 'failed', 'refused')`;
  return row ?? { workspaces: 0, queued: 0, running: 0, failed_last_day: 0, refused_last_day: 0 };
}

function embeddingsStatus(
  setting: EmbeddingsSetting,
  counts: { live_facts: number; with_vectors: number; refused: number; other_models: number },
): EmbeddingsStatus {
  return {
    url: redactUrlCredentials(setting.url),
    model: setting.model,
    dimensions: setting.dimensions,
    live_facts: counts.live_facts,
    with_vectors: counts.with_vectors,
    refused: counts.refused,
    waiting: waitingFacts(counts),
    other_models: counts.other_models,
  };
}

/** Live facts without a vector of the model and not refused (never below zero). */
export function waitingFacts(counts: { live_facts: number; with_vectors: number; refused: number }): number {
  return Math.max(0, counts.live_facts - counts.with_vectors - counts.refused);
}
