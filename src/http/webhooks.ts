import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Db } from "../db/types";
import { SlugParams } from "../schema/admin";
import { parseInput } from "../schema/validate";
import { CreateWebhookRequest, UpdateWebhookRequest, WebhookParams } from "../schema/webhooks";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook, webhookDeliveries } from "../webhooks/service";
import { readJsonBody } from "./body";
import { ok, type RequestPipeline } from "./pipeline";

/** Webhook endpoints in the admin API: thin adapters over webhooks/service.ts. */
export function webhookRoutes(deps: { db: Db; config: Config; pipeline: RequestPipeline }) {
  const { db } = deps;
  const outbound = { allowPrivate: deps.config.outboundAllowPrivate };
  const idOf = (params: unknown): string => parseInput(WebhookParams, params, "path").webhook_id;
  const admin = { admin: true } as const;
  const adminWithBody = { admin: true, parse: "none" } as const;

  return new Elysia({ name: "webhooks" })
    .use(deps.pipeline)
    .get(
      "/v1/admin/workspaces/:slug/webhooks",
      async ({ params, set }) => ok(set, { webhooks: await listWebhooks(db, parseInput(SlugParams, params, "path").slug) }),
      admin,
    )
    .post(
      "/v1/admin/workspaces/:slug/webhooks",
      async ({ params, request, set }) => {
        const { slug } = parseInput(SlugParams, params, "path");
        const input = parseInput(CreateWebhookRequest, await readJsonBody(request));
        return ok(set, await createWebhook(db, outbound, slug, input), 201);
      },
      adminWithBody,
    )
    .get("/v1/admin/webhooks/:webhook_id", async ({ params, set }) => ok(set, await getWebhook(db, idOf(params))), admin)
    .patch(
      "/v1/admin/webhooks/:webhook_id",
      async ({ params, request, set }) =>
        ok(set, await updateWebhook(db, outbound, idOf(params), parseInput(UpdateWebhookRequest, await readJsonBody(request)))),
      adminWithBody,
    )
    .delete("/v1/admin/webhooks/:webhook_id", async ({ params, set }) => ok(set, await deleteWebhook(db, idOf(params))), admin)
    .get("/v1/admin/webhooks/:webhook_id/deliveries", async ({ params, set }) => ok(set, { deliveries: await webhookDeliveries(db, idOf(params)) }), admin);
}
