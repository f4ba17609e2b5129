import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Db } from "../db/types";
import { SlugParams } from "../schema/admin";
import { input } from "../schema/validate";
import { CreatedWebhook, CreateWebhookRequest, UpdateWebhookRequest, Webhook, WebhookDeliveryList, WebhookList, WebhookParams } from "../schema/webhooks";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook, webhookDeliveries } from "../webhooks/service";
import type { RequestPipeline } from "./pipeline";

/** Webhook endpoints in the admin API: thin adapters over webhooks/service.ts. */
export function webhookRoutes(deps: { db: Db; config: Config; pipeline: RequestPipeline }) {
  const { db } = deps;
  const outbound = { allowPrivate: deps.config.outboundAllowPrivate };
  const workspace = input(SlugParams, "path");
  const webhook = input(WebhookParams, "path");

  return new Elysia({ name: "webhooks" })
    .use(deps.pipeline)
    .get("/v1/admin/workspaces/:slug/webhooks", async ({ params }): Promise<WebhookList> => ({ webhooks: await listWebhooks(db, params.slug) }), {
      admin: true,
      params: workspace,
      returns: { data: WebhookList },
      detail: { summary: "Webhook endpoints" },
    })
    .post("/v1/admin/workspaces/:slug/webhooks", ({ params, body }) => createWebhook(db, outbound, params.slug, body), {
      admin: true,
      json: true,
      params: workspace,
      body: input(CreateWebhookRequest),
      returns: { status: 201, data: CreatedWebhook },
      detail: { summary: "Add a webhook endpoint (its signing secret is shown once)" },
    })
    .get("/v1/admin/webhooks/:webhook_id", ({ params }) => getWebhook(db, params.webhook_id), {
      admin: true,
      params: webhook,
      returns: { data: Webhook },
      detail: { summary: "A webhook endpoint" },
    })
    .patch("/v1/admin/webhooks/:webhook_id", ({ params, body }) => updateWebhook(db, outbound, params.webhook_id, body), {
      admin: true,
      json: true,
      params: webhook,
      body: input(UpdateWebhookRequest),
      returns: { data: Webhook },
      detail: { summary: "Change a webhook endpoint" },
    })
    .delete("/v1/admin/webhooks/:webhook_id", ({ params }) => deleteWebhook(db, params.webhook_id), {
      admin: true,
      params: webhook,
      returns: {},
      detail: { summary: "Delete a webhook endpoint" },
    })
    .get(
      "/v1/admin/webhooks/:webhook_id/deliveries",
      async ({ params }): Promise<WebhookDeliveryList> => ({ deliveries: await webhookDeliveries(db, params.webhook_id) }),
      {
        admin: true,
        params: webhook,
        returns: { data: WebhookDeliveryList },
        detail: { summary: "A webhook endpoint's delivery log" },
      },
    );
}
