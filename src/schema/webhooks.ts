import { Type, type Static } from "@sinclair/typebox";
import { Text } from "./memory";

/** What an endpoint can subscribe to. */
export const WebhookEventType = Type.Union([
  Type.Literal("fact.created"),
  Type.Literal("fact.superseded"),
  Type.Literal("fact.deleted"),
  Type.Literal("fact.restored"),
  Type.Literal("fact.expired"),
  Type.Literal("end_user.forgotten"),
  Type.Literal("answer.completed"),
  Type.Literal("answer.failed"),
]);
export type WebhookEventType = Static<typeof WebhookEventType>;

const Url = Text({ minLength: 1, maxLength: 2000, description: "where events are POSTed: https (http only when the operator allows private addresses)" });
const Events = Type.Array(WebhookEventType, { minItems: 1, uniqueItems: true, description: "the event types to send" });
const Internal = Type.Boolean({ description: "internal endpoints receive every fact; others only what an external key may see" });

/** POST /v1/admin/workspaces/:slug/webhooks */
export const CreateWebhookRequest = Type.Object({
  url: Url,
  events: Events,
  internal: Type.Boolean({ ...Internal, default: false }),
});
export type CreateWebhookRequest = Static<typeof CreateWebhookRequest>;

/** PATCH /v1/admin/webhooks/:webhook_id */
export const UpdateWebhookRequest = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  internal: Type.Optional(Internal),
  enabled: Type.Optional(Type.Boolean({ description: "a disabled endpoint gets no new events and no deliveries" })),
});
export type UpdateWebhookRequest = Static<typeof UpdateWebhookRequest>;

export const Webhook = Type.Object({
  webhook_id: Type.String(),
  url: Type.String(),
  events: Type.Array(WebhookEventType),
  internal: Type.Boolean(),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: "date-time" }),
  /** Events waiting to be delivered. */
  pending: Type.Integer(),
});
export type Webhook = Static<typeof Webhook>;

/** The response that creates an endpoint: its signing secret, shown this once. */
export const CreatedWebhook = Type.Composite([Webhook, Type.Object({ secret: Type.String() })]);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const WebhookDelivery = Type.Object({
  event_id: Type.String(),
  type: WebhookEventType,
  attempt: Type.Integer(),
  /** The receiver's HTTP status, or null when there was no answer. */
  status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Integer(),
  attempted_at: Type.String({ format: "date-time" }),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookParams = Type.Object({ webhook_id: Text({ minLength: 1, maxLength: 200, description: "a webhook id" }) });

/** GET /v1/admin/workspaces/:slug/webhooks */
export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });
export type WebhookList = Static<typeof WebhookList>;

/** GET /v1/admin/webhooks/:webhook_id/deliveries */
export const WebhookDeliveryList = Type.Object({ deliveries: Type.Array(WebhookDelivery) });
export type WebhookDeliveryList = Static<typeof WebhookDeliveryList>;
