import { Elysia } from "elysia";
import { findWorkspace } from "../auth/workspaces";
import type { Db } from "../db/types";
import { listSupersessions, restoreFact } from "../memory/review";
import { SlugParams } from "../schema/admin";
import { FactParams, RestoreRequest, RestoreResult, SupersessionPage, SupersessionQuery } from "../schema/browse";
import { input } from "../schema/validate";
import type { RequestPipeline } from "./pipeline";

/** The operator's review of memory in the admin API (docs/api.md, Review): thin adapters over memory/review.ts. */
export function reviewRoutes(deps: { db: Db; pipeline: RequestPipeline }) {
  const { db } = deps;
  return new Elysia({ name: "review" })
    .use(deps.pipeline)
    .get("/v1/admin/workspaces/:slug/supersessions", async ({ params, query }) => listSupersessions(db, (await findWorkspace(db, params.slug)).id, query), {
      admin: true,
      params: input(SlugParams, "path"),
      query: input(SupersessionQuery, "query"),
      returns: { data: SupersessionPage },
      detail: { summary: "Recent supersessions, most recent first" },
    })
    .post("/v1/admin/facts/:fact_id/restore", ({ params, body }) => restoreFact(db, params.fact_id, body), {
      admin: true,
      json: true,
      params: input(FactParams, "path"),
      body: input(RestoreRequest),
      returns: { data: RestoreResult },
      detail: { summary: "Undo a supersession: the replaced fact live again" },
    });
}
