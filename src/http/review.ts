import { Elysia } from "elysia";
import { findWorkspace } from "../auth/workspaces";
import type { Db } from "../db/types";
import type { VectorSet } from "../embeddings/vectors";
import type { FactIndexes } from "../memory/index/registry";
import { findDuplicates, mergeFacts } from "../memory/duplicates";
import { forgetByFilter, listForgetRuns, previewForget } from "../memory/forget";
import { listSupersessions, restoreFact } from "../memory/review";
import { SlugParams } from "../schema/admin";
import {
  DuplicateList,
  DuplicateQuery,
  FactParams,
  ForgetFilter,
  ForgetPreview,
  ForgetRequest,
  ForgetRun,
  ForgetRunList,
  MergeRequest,
  MergeResult,
  RestoreRequest,
  RestoreResult,
  SupersessionPage,
  SupersessionQuery,
} from "../schema/browse";
import { input } from "../schema/validate";
import type { RequestPipeline } from "./pipeline";

/** The operator's review of memory in the admin API (docs/api.md, Review): thin adapters over memory/review.ts. */
export function reviewRoutes(deps: { db: Db; index: FactIndexes; pipeline: RequestPipeline }) {
  const { db, index } = deps;
  /** The workspace's vectors when an embeddings endpoint is configured: duplicates by meaning too. */
  const vectorsOf = async (workspaceId: string): Promise<VectorSet | null> => (index.semantic ? index.semantic.vectorsOf(workspaceId) : null);
  const workspace = input(SlugParams, "path");
  const workspaceId = async (slug: string): Promise<string> => (await findWorkspace(db, slug)).id;
  return new Elysia({ name: "review" })
    .use(deps.pipeline)
    .get("/v1/admin/workspaces/:slug/supersessions", async ({ params, query }) => listSupersessions(db, await workspaceId(params.slug), query), {
      admin: true,
      params: workspace,
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
    })
    .post("/v1/admin/workspaces/:slug/forget/preview", async ({ params, body }) => previewForget(db, await workspaceId(params.slug), body), {
      admin: true,
      json: true,
      params: workspace,
      body: input(ForgetFilter),
      returns: { data: ForgetPreview },
      detail: { summary: "How many facts a bulk forget's filter matches now" },
    })
    .post("/v1/admin/workspaces/:slug/forget", async ({ params, body }) => forgetByFilter(db, await workspaceId(params.slug), body), {
      admin: true,
      json: true,
      params: workspace,
      body: input(ForgetRequest),
      returns: { data: ForgetRun },
      detail: { summary: "Forget every fact a filter matches, in batches, recorded in the audit log" },
    })
    .get(
      "/v1/admin/workspaces/:slug/forget-runs",
      async ({ params }): Promise<ForgetRunList> => ({ runs: await listForgetRuns(db, await workspaceId(params.slug)) }),
      {
        admin: true,
        params: workspace,
        returns: { data: ForgetRunList },
        detail: { summary: "The audit log of bulk forgets, newest first" },
      },
    )
    .get(
      "/v1/admin/workspaces/:slug/duplicates",
      async ({ params, query }) => {
        const id = await workspaceId(params.slug);
        return findDuplicates(db, id, query, await vectorsOf(id));
      },
      {
        admin: true,
        params: workspace,
        query: input(DuplicateQuery, "query"),
        returns: { data: DuplicateList },
        detail: { summary: "Possible duplicates: facts of one subject that say nearly the same thing" },
      },
    )
    .post("/v1/admin/facts/merge", ({ body }) => mergeFacts(db, body), {
      admin: true,
      json: true,
      body: input(MergeRequest),
      returns: { data: MergeResult },
      detail: { summary: "Merge possible duplicates: one fact kept, the others its history" },
    });
}
