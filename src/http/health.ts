import { Elysia } from "elysia";
import type { Db } from "../db/types";

/** Probes for load balancers and orchestrators; they need no key. */
export function healthRoutes(deps: { db: Db; isAccepting?: () => boolean }) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ data: { status: "ok" } }))
    .get("/readyz", async ({ set }) => {
      if (deps.isAccepting && !deps.isAccepting()) {
        set.status = 503;
        return { error: { code: "shutting_down", message: "instance is shutting down" } };
      }
      try {
        await deps.db.sql`SELECT 1`;
        return { data: { status: "ready", database: deps.db.kind } };
      } catch {
        set.status = 503;
        return { error: { code: "database_unavailable", message: "database is not reachable" } };
      }
    });
}
