import { Elysia } from "elysia";
import { findWorkspace } from "../auth/workspaces";
import { listDecisions } from "../capture/model/decisions";
import { captureModelStatus, clearCaptureModel, setCaptureModel } from "../capture/model/settings";
import type { Db } from "../db/types";
import type { ModelProviders } from "../models/registry";
import { SlugParams } from "../schema/admin";
import {
  CaptureDecisionList,
  CaptureDecisionQuery,
  CaptureModelRequest,
  CaptureModelStatus,
  DecisionParams,
  UndoDecisionResult,
} from "../schema/capture-model";
import { undoDecision } from "../capture/model/undo";
import { input } from "../schema/validate";
import type { RequestPipeline } from "./pipeline";

/** A workspace's capture model in the admin API (docs/api.md, Capture model): thin adapters over capture/model/settings.ts. */
export function captureModelRoutes(deps: { db: Db; engine: { models: ModelProviders }; pipeline: RequestPipeline }) {
  const { db } = deps;
  const models = deps.engine.models;
  const workspace = input(SlugParams, "path");
  return new Elysia({ name: "capture-model" })
    .use(deps.pipeline)
    .get("/v1/admin/workspaces/:slug/capture-model", ({ params }) => captureModelStatus(db, params.slug, models), {
      admin: true,
      params: workspace,
      returns: { data: CaptureModelStatus },
      detail: { summary: "The workspace's capture model, today's tokens and its queue" },
    })
    .put("/v1/admin/workspaces/:slug/capture-model", ({ params, body }) => setCaptureModel(db, params.slug, body, models), {
      admin: true,
      json: true,
      params: workspace,
      body: input(CaptureModelRequest),
      returns: { data: CaptureModelStatus },
      detail: { summary: "Turn the capture model on, or change it" },
    })
    .delete("/v1/admin/workspaces/:slug/capture-model", ({ params }) => clearCaptureModel(db, params.slug, models), {
      admin: true,
      params: workspace,
      returns: { data: CaptureModelStatus },
      detail: { summary: "Turn the capture model off: capture is model-free only" },
    })
    .get(
      "/v1/admin/workspaces/:slug/capture-decisions",
      async ({ params, query }): Promise<CaptureDecisionList> => ({ decisions: await listDecisions(db, (await findWorkspace(db, params.slug)).id, query) }),
      {
        admin: true,
        params: workspace,
        query: input(CaptureDecisionQuery, "query"),
        returns: { data: CaptureDecisionList },
        detail: { summary: "The capture model's decisions, applied and vetoed, newest first" },
      },
    )
    .post("/v1/admin/capture-decisions/:decision_id/undo", ({ params }) => undoDecision(db, params.decision_id), {
      admin: true,
      params: input(DecisionParams, "path"),
      returns: { data: UndoDecisionResult },
      detail: { summary: "Undo one of the capture model's decisions: the fact it hid live again, or its updates link gone" },
    });
}
