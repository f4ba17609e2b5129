import { Elysia } from "elysia";
import type { AnswerEngine } from "./answers/engine";
import type { Config } from "./config";
import type { Db } from "./db/types";
import { adminRoutes } from "./http/admin";
import { reviewRoutes } from "./http/review";
import { captureModelRoutes } from "./http/capture-model";
import { webhookRoutes } from "./http/webhooks";
import { answerRoutes } from "./http/answers";
import { healthRoutes } from "./http/health";
import { mcpRoutes } from "./http/mcp";
import { memoryRoutes } from "./http/memory";
import { requestPipeline } from "./http/pipeline";
import { webRoutes } from "./http/web";
import { whoamiRoutes } from "./http/whoami";
import type { Logger } from "./log";
import type { FactIndexes } from "./memory/index/registry";
import { createMetrics, type Metrics } from "./metrics";
import { metricsRoutes } from "./http/metrics";
import { oauthRoutes } from "./http/oauth";
import { openApiRoutes } from "./http/openapi";
import { DatabaseOutage } from "./db/outage";

export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  engine: AnswerEngine;
  /** The process's search indexes (shared with the engine's runs). */
  index: FactIndexes;
  /** False once shutdown began: /readyz turns 503 so load balancers drain this instance. */
  isAccepting?: () => boolean;
  /** Shared with the engine in a server; an app of its own otherwise. */
  metrics?: Metrics;
  /** Shared with the server's workers; an app of its own otherwise. */
  outage?: DatabaseOutage;
}

/** Wires every feature into one Elysia app behind the one request pipeline. */
export function createApp(deps: AppDeps) {
  const metrics = deps.metrics ?? createMetrics(deps);
  const outage = deps.outage ?? new DatabaseOutage(deps.log, () => metrics.databaseUnavailable());
  const pipeline = requestPipeline({ ...deps, metrics, outage });
  const features = { ...deps, metrics, pipeline, outage };
  const app = new Elysia()
    .use(pipeline)
    .use(healthRoutes(features))
    .use(whoamiRoutes(features))
    .use(memoryRoutes(features))
    .use(answerRoutes(features))
    .use(mcpRoutes(features))
    .use(adminRoutes(features))
    .use(webhookRoutes(features))
    .use(reviewRoutes(features))
    .use(captureModelRoutes(features))
    .use(webRoutes(features))
    .use(oauthRoutes(features))
    .use(metricsRoutes(features));
  // The document describes the routes above, read back from the app once it is complete.
  return app.use(openApiRoutes({ routes: () => app.routes }));
}

export type App = ReturnType<typeof createApp>;
