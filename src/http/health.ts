import { Elysia } from "elysia";
import type { Db } from "../db/types";
import { ApiError } from "../errors";

/** Probes for load balancers and orchestrators; they need no key. */
export function healthRoutes(deps: { db: Db; isAccepting?: () => boolean }) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ data: { status: "ok" } }))
    .get("/readyz", async ({ set }) => {
      if (deps.isAccepting && !deps.isAccepting()) throw new ApiError("shutting_down", "instance is shutting down");
      try {
        await deps.db.sql`SELECT 1`;
      } catch {
        throw new ApiError("database_unavailable", "database is not reachable");
      }
      set.status = 200;
      return { data: { status: "ready", database: deps.db.kind } };
    });
}
