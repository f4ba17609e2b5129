import { Elysia } from "elysia";
import type { Db } from "../db/types";
import type { DatabaseOutage } from "../db/outage";
import { ApiError } from "../errors";
import type { RequestPipeline } from "./pipeline";

/** Probes for load balancers and orchestrators; they need no key. */
export function healthRoutes(deps: { db: Db; isAccepting?: () => boolean; pipeline: RequestPipeline; outage: DatabaseOutage }) {
  return new Elysia({ name: "health" })
    .use(deps.pipeline)
    .get("/healthz", () => ({ status: "ok" }), { returns: {}, detail: { summary: "Liveness probe" } })
    .get(
      "/readyz",
      async () => {
        if (deps.isAccepting && !deps.isAccepting()) throw new ApiError("shutting_down", "instance is shutting down");
        try {
          await deps.db.sql`SELECT 1`;
        } catch (error) {
          throw deps.outage.refused(error);
        }
        deps.outage.reachable();
        return { status: "ready", database: deps.db.kind };
      },
      { returns: {}, detail: { summary: "Readiness probe (503 while shutting down or without the database)" } },
    );
}
