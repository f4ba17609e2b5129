import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { ensureAdminToken } from "./admin/credential";
import { createApp, type App } from "./app";
import { createMetrics } from "./metrics";
import { AnswerEngine } from "./answers/engine";
import { pruneRateWindows } from "./auth/authenticate";
import { createKey } from "./auth/keys";
import { countWorkspaces, createWorkspace } from "./auth/workspaces";
import type { Config } from "./config";
import { refreshStatistics } from "./db/maintenance";
import { pruneOAuth } from "./oauth/store";
import { migrate } from "./db/migrate";
import type { Db } from "./db/types";
import { createEmbeddings } from "./embeddings/setup";
import { MAX_BODY_BYTES } from "./http/body";
import type { Logger } from "./log";
import { redactUrlCredentials } from "./redact";
import { pruneTombstones } from "./memory/changes";
import { FactIndexes } from "./memory/index/registry";
import { ALL_SCOPES } from "./schema/auth";
import { WebhookDeliverer } from "./webhooks/deliver";
import { CaptureWorker } from "./capture/model/worker";
import { DatabaseOutage } from "./db/outage";
import { captureMetrics } from "./capture/model/metrics";
import { pruneCaptureJobs } from "./capture/model/queue";
import { pruneWebhookEvents } from "./webhooks/store";

const SHUTDOWN_GRACE_MS = 10_000;
/** Planner statistics, tombstone and OAuth pruning (src/db/maintenance.ts, src/memory/changes.ts, src/oauth/store.ts). */
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;
const FIRST_MAINTENANCE_DELAY_MS = 30_000;
/** Deleted facts' tombstones are kept this long; an index further behind rebuilds. */
const TOMBSTONE_MAX_AGE_SECONDS = 24 * 3600;
/** Delivered and given-up webhook events, their delivery log, and finished capture jobs are kept a week for the settings app. */
const WEBHOOK_LOG_MAX_AGE_SECONDS = 7 * 24 * 3600;
const BOOTSTRAP_LOCK_ID = 7_302_911_005;

export interface RunningServer {
  app: App;
  url: string;
  stop(): Promise<void>;
}

export interface BootstrapResult {
  workspace: string;
  secret: string;
}

/**
 * First start on an empty database: workspace `default` with 1000 credits and one internal
 * all-scope key. Under an advisory lock so two instances starting together create one.
 */
export async function bootstrapIfEmpty(db: Db, config: Config): Promise<BootstrapResult | null> {
  return db.transaction(async (tx) => {
    await tx.sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`;
    if ((await countWorkspaces(tx)) > 0) return null;
    await createWorkspace(tx, "default", 1000);
    const key = await createKey(tx, config.deployment, {
      workspace: "default",
      name: "bootstrap",
      scopes: [...ALL_SCOPES],
      audience: "internal",
    });
    return { workspace: "default", secret: key.secret };
  });
}

/** The address could not be bound; the message says why in an operator's words. */
export class ListenError extends Error {
  override name = "ListenError";
}

/**
 * Why binding failed. Bun reports every failure as EADDRINUSE ("Is port N in use?"), so the
 * host is checked here: a name that does not resolve, or an address no interface of this
 * machine has, is not a port conflict.
 */
async function listenFailure(host: string, port: number): Promise<ListenError> {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  let address = host;
  if (isIP(host) === 0) {
    try {
      address = (await lookup(host)).address;
    } catch {
      return new ListenError(`cannot listen on ${where}: the host name "${host}" does not resolve`);
    }
  }
  const local = new Set(["0.0.0.0", "::", ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))]);
  if (!local.has(address)) return new ListenError(`cannot listen on ${where}: address not available (no network interface of this machine has ${address})`);
  return new ListenError(`cannot listen on ${where}: address already in use (another process is listening there)`);
}

/**
 * Migrates, listens, then bootstraps and starts the answer engine, and shuts down gracefully on
 * SIGTERM/SIGINT. Binding comes before the bootstrap key is created and printed, so a server that
 * cannot listen prints nothing that implies it is up; the caller closes the database (and so
 * releases the data directory) when this throws.
 */
export async function startServer(config: Config, db: Db, log: Logger, print: (line: string) => void): Promise<RunningServer> {
  await migrate(db);

  let accepting = true;
  const embeddings = createEmbeddings(config, db, log, {
    queryFailed: (failure) => metrics.embeddingFailure("query", failure),
    batchDone: (outcome) => {
      if (outcome.embedded > 0) metrics.factsEmbedded(outcome.embedded);
      if (outcome.failed !== null) metrics.embeddingFailure("facts", outcome.failed.failure);
    },
  });
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024, { log, semantic: embeddings?.semantic ?? null });
  const metrics = createMetrics({ db, index });
  const outage = new DatabaseOutage(log, () => metrics.databaseUnavailable());
  const engine = new AnswerEngine({ db, index, config, log, metrics, outage });
  const app = createApp({ config, db, log, engine, index, metrics, outage, isAccepting: () => accepting });
  try {
    // Elysia asks Bun for SO_REUSEPORT by default: a second memoryd on a taken port would then
    // start and split the traffic with the first. One port, one server.
    app.listen({ port: config.port, hostname: config.host, reusePort: false, maxRequestBodySize: MAX_BODY_BYTES * 2 });
  } catch {
    throw await listenFailure(config.host, config.port);
  }
  const server = app.server;
  if (!server) throw new ListenError(`cannot listen on ${config.host}:${config.port}`);
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;

  const created = await bootstrapIfEmpty(db, config);
  if (created) {
    print(`Created workspace "${created.workspace}" with 1000 credits and an internal key with every scope.`);
    print(`API key (shown once, store it now): ${created.secret}`);
  }
  const adminToken = await ensureAdminToken(db, config);
  if (adminToken) print(`Admin token for the settings app and /v1/admin (shown once, store it now): ${adminToken}`);
  print(engine.models.describe());
  await engine.start(true);
  const webhooks = new WebhookDeliverer(db, log, { allowPrivate: config.outboundAllowPrivate }, outage);
  webhooks.start();
  const capture = new CaptureWorker({ db, index, models: engine.models, log, outage }, {}, captureMetrics(metrics.registry, db));
  capture.start();
  embeddings?.worker.start();
  if (embeddings) print(`embeddings: ${embeddings.client.model} at ${redactUrlCredentials(config.embeddingsUrl ?? "")}; facts are embedded in the background`);
  log.info("listening", { url, database: db.kind });

  const janitor = setInterval(() => {
    pruneRateWindows(db).catch((error: unknown) => {
      if (!outage.failed(error)) log.warn("rate window prune failed", { error: String(error) });
    });
  }, 60_000);
  janitor.unref();
  const maintain = (): void => {
    pruneTombstones(db, TOMBSTONE_MAX_AGE_SECONDS)
      .then(() => pruneOAuth(db))
      .then(() => pruneWebhookEvents(db, WEBHOOK_LOG_MAX_AGE_SECONDS))
      .then(() => pruneCaptureJobs(db, WEBHOOK_LOG_MAX_AGE_SECONDS))
      .then(() => refreshStatistics(db))
      .catch((error: unknown) => {
        if (!outage.failed(error)) log.warn("database maintenance failed", { error: String(error) });
      });
  };
  // Once soon after start, then periodically. Not at once: ANALYZE and the prunes contend with a
  // restarted instance's first reads (a large workspace's index snapshot), and they can wait.
  const firstMaintenance = setTimeout(maintain, FIRST_MAINTENANCE_DELAY_MS);
  firstMaintenance.unref();
  const maintenance = setInterval(maintain, MAINTENANCE_INTERVAL_MS);
  maintenance.unref();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      accepting = false;
      clearInterval(janitor);
      clearTimeout(firstMaintenance);
      clearInterval(maintenance);
      // No new connections; in-flight requests (open answer streams too) may finish.
      const graceful = server.stop(false);
      // Running answers get the grace period, then hand their leases to another instance.
      await Promise.all([engine.stop(SHUTDOWN_GRACE_MS), webhooks.stop(), capture.stop(), embeddings?.worker.stop()]);
      const timedOut = await Promise.race([graceful.then(() => false), Bun.sleep(2_000).then(() => true)]);
      if (timedOut) await server.stop(true);
      // Request log lines are written after the response, on a later tick: let them out first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await index.settle();
      await db.close();
      log.info("stopped", {});
    })();
    return stopping;
  };
  return { app, url, stop };
}
