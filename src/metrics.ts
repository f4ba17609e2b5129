import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { POSTGRES_POOL_SIZE } from "./db/open";
import type { Db } from "./db/types";
import { isDatabaseUnavailable } from "./db/unavailable";
import type { FactIndexes } from "./memory/index/registry";

/**
 * The process's Prometheus metrics (prom-client), one registry per app. Labels are route
 * patterns, statuses and codes only: never a workspace, key prefix, fact or end user, so the text
 * leaks nothing about tenants.
 */
export interface Metrics {
  readonly registry: Registry;
  request(route: string, method: string, status: number, seconds: number): void;
  authFailure(code: string): void;
  answerFinished(status: string, seconds: number, usage?: { input_tokens: number; output_tokens: number }, credits?: number): void;
  /** A call to the embeddings endpoint failed: for a query (the search went on without it) or for facts (they wait). */
  embeddingFailure(where: "query" | "facts", failure: string): void;
  factsEmbedded(count: number): void;
  /** A request answered 503 database_unavailable. */
  databaseUnavailable(): void;
}

/** A scrape-time read of the database, or null when the database is away (the gauge is then left out). */
export async function fromDatabase<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isDatabaseUnavailable(error)) return null;
    throw error;
  }
}

export function createMetrics(deps: { db: Db; index: FactIndexes }): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: "memoryd_http_requests_total",
    help: "HTTP requests by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "memoryd_http_request_duration_seconds",
    help: "HTTP request latency by route pattern and method",
    labelNames: ["route", "method"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const authFailures = new Counter({
    name: "memoryd_auth_failures_total",
    help: "Refused authentications by error code (401s, and 429s of the rate limits)",
    labelNames: ["code"],
    registers: [registry],
  });
  const answers = new Counter({
    name: "memoryd_answers_total",
    help: "Answer runs finished on this instance, by status",
    labelNames: ["status"],
    registers: [registry],
  });
  const answerSeconds = new Histogram({
    name: "memoryd_answer_duration_seconds",
    help: "Answer run duration on this instance, by status",
    labelNames: ["status"],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "memoryd_model_tokens_total",
    help: "Model tokens used by answer runs",
    labelNames: ["direction"],
    registers: [registry],
  });
  const credits = new Counter({ name: "memoryd_credits_spent_total", help: "Credits debited by answer runs", registers: [registry] });
  const embeddingFailures = new Counter({
    name: "memoryd_embedding_failures_total",
    help: "Failed calls to the embeddings endpoint: for a query (searched without it) or for facts (they wait), by failure",
    labelNames: ["where", "failure"],
    registers: [registry],
  });
  const embedded = new Counter({ name: "memoryd_facts_embedded_total", help: "Facts given a vector by this instance", registers: [registry] });
  const unavailable = new Counter({
    name: "memoryd_database_unavailable_total",
    help: "Requests answered 503 database_unavailable because the database could not be reached",
    registers: [registry],
  });

  // Read at scrape time: the queue (from the database, shared by every instance) and this process's indexes.
  // A scrape while the database is away still answers: its gauges are left out, memoryd_database_up says why.
  new Gauge({
    name: "memoryd_database_up",
    help: "1 when this instance reached the database during the scrape, 0 when it could not",
    registers: [registry],
    async collect() {
      this.set(
        await deps.db.sql`SELECT 1`.then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
  new Gauge({
    name: "memoryd_answer_queue_depth",
    help: "Answers queued or running, across every instance",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await fromDatabase(
        () =>
          deps.db.sql<{ status: string; n: number }>`
          SELECT status, count(*)::int AS n FROM answers WHERE status IN ('queued', 'in_progress') GROUP BY status`,
      );
      if (rows === null) return;
      this.set({ status: "queued" }, 0);
      this.set({ status: "in_progress" }, 0);
      for (const row of rows) this.set({ status: row.status }, row.n);
    },
  });
  new Gauge({
    name: "memoryd_answer_oldest_queued_seconds",
    help: "Age of the oldest queued answer (0 when none is queued)",
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await fromDatabase(
        () =>
          deps.db.sql<{ age: number | null }>`
          SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM answers WHERE status = 'queued'`,
      );
      if (rows !== null) this.set(rows[0]?.age ?? 0);
    },
  });
  const indexGauge = (name: string, help: string, read: (s: ReturnType<FactIndexes["stats"]>) => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(deps.index.stats()));
      },
    });
  };
  indexGauge("memoryd_index_workspaces", "Workspace search indexes held in memory", (s) => s.workspaces);
  indexGauge("memoryd_index_bytes", "Estimated bytes the search indexes hold", (s) => s.bytes);
  indexGauge("memoryd_index_budget_bytes", "The search indexes' memory budget (MEMORYD_INDEX_MEMORY_MB)", (s) => s.budgetBytes);
  indexGauge("memoryd_index_builds_total", "Search index builds since start", (s) => s.builds);
  indexGauge("memoryd_index_snapshot_builds_total", "Search index builds that started from a stored snapshot", (s) => s.snapshotBuilds);
  indexGauge("memoryd_index_snapshot_writes_total", "Search index snapshots written since start", (s) => s.snapshotWrites);
  indexGauge("memoryd_index_evictions_total", "Search indexes evicted under the budget since start", (s) => s.evictions);
  indexGauge("memoryd_index_reads_total", "Reads of the search indexes since start", (s) => s.reads);
  indexGauge(
    "memoryd_vectors_in_memory",
    "Fact vectors held in memory for search (0 without an embeddings endpoint)",
    () => deps.index.semantic?.stats().vectors ?? 0,
  );
  indexGauge("memoryd_index_hit_ratio", "Share of reads answered by an index already current (no database round trip)", (s) =>
    s.reads === 0 ? 0 : s.hits / s.reads,
  );
  new Gauge({
    name: "memoryd_database_info",
    help: "The database memoryd uses (kind) and its pool size (1 for the embedded database)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      this.reset();
      this.set({ kind: deps.db.kind }, deps.db.kind === "embedded" ? 1 : POSTGRES_POOL_SIZE);
    },
  });

  return {
    registry,
    request(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
    },
    authFailure(code) {
      authFailures.inc({ code });
    },
    answerFinished(status, seconds, usage, spent) {
      answers.inc({ status });
      answerSeconds.observe({ status }, seconds);
      if (usage) {
        tokens.inc({ direction: "input" }, usage.input_tokens);
        tokens.inc({ direction: "output" }, usage.output_tokens);
      }
      if (spent !== undefined) credits.inc(spent);
    },
    embeddingFailure(where, failure) {
      embeddingFailures.inc({ where, failure });
    },
    factsEmbedded(count) {
      embedded.inc(count);
    },
    databaseUnavailable() {
      unavailable.inc();
    },
  };
}
