import { Elysia } from "elysia";
import type { Config } from "../config";
import { ApiError } from "../errors";
import type { Metrics } from "../metrics";
import { hashSecret, sameHash } from "../auth/secrets";
import { secretFromHeaders } from "../auth/authenticate";
import { clientAddress, type RequestPipeline } from "./pipeline";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1", "local"]);

/**
 * GET /metrics in Prometheus text format. Who may read it: with MEMORYD_METRICS_TOKEN set, a
 * request bearing that token; without it, only clients on this machine (loopback). The text holds
 * no workspace names, key prefixes or ids either way.
 */
export function metricsRoutes(deps: { config: Config; metrics: Metrics; pipeline: RequestPipeline }) {
  return new Elysia({ name: "metrics" }).use(deps.pipeline).get(
    "/metrics",
    async ({ request, server, set }) => {
      const token = deps.config.metricsToken;
      const given = secretFromHeaders(request.headers);
      const allowed =
        token !== undefined ? given !== undefined && sameHash(hashSecret(given), hashSecret(token)) : LOOPBACK.has(clientAddress(request, server));
      if (!allowed) {
        throw new ApiError(
          "forbidden_origin",
          token !== undefined
            ? "send MEMORYD_METRICS_TOKEN as Authorization: Bearer <token>"
            : "metrics are served to loopback clients only; set MEMORYD_METRICS_TOKEN to allow others",
        );
      }
      set.headers["content-type"] = deps.metrics.registry.contentType;
      return deps.metrics.registry.metrics();
    },
    { returns: { media: "text/plain" }, detail: { summary: "Prometheus metrics (loopback, or MEMORYD_METRICS_TOKEN)" } },
  );
}
