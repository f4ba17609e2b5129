import { findWorkspace } from "../auth/workspaces";
import type { Db } from "../db/types";
import { ApiError, notFound } from "../errors";
import { sortableId } from "../ids";
import { checkDestination, OutboundError } from "../net/outbound";
import type { CreatedWebhook, CreateWebhookRequest, UpdateWebhookRequest, Webhook, WebhookDelivery, WebhookEventType } from "../schema/webhooks";
import { deleteEndpoint, insertEndpoint, selectDeliveries, selectEndpoints, updateEndpoint, type EndpointRow } from "./store";

/** The operator's webhook endpoints: the service behind the admin API and the settings app. */

const toWebhook = (row: EndpointRow): Webhook => ({
  webhook_id: row.id,
  url: row.url,
  events: row.events as WebhookEventType[],
  internal: row.internal,
  enabled: row.enabled,
  created_at: new Date(row.created_at).toISOString(),
  pending: row.pending,
});

/** A Standard Webhooks secret: "whsec_" and 24 random bytes in base64. */
const newSecret = (): string => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;

/** Refuses a URL memoryd would never deliver to, with the reason, as a validation error on `url`. */
async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidUrl("not an absolute URL");
  }
  try {
    await checkDestination(parsed, allowPrivate);
  } catch (error) {
    if (error instanceof OutboundError) throw invalidUrl(error.message);
    throw error;
  }
}

const invalidUrl = (reason: string): ApiError => new ApiError("validation_error", `invalid url: ${reason}`, { fields: [{ path: "url", reason }] });

/** Creates an endpoint; the response carries its signing secret, this once. */
export async function createWebhook(db: Db, options: { allowPrivate: boolean }, slug: string, input: CreateWebhookRequest): Promise<CreatedWebhook> {
  const workspace = await findWorkspace(db, slug);
  await checkUrl(input.url, options.allowPrivate);
  const id = sortableId("wh");
  const secret = newSecret();
  await insertEndpoint(db, { id, workspaceId: workspace.id, url: input.url, events: input.events, secret, internal: input.internal });
  return { ...(await getWebhook(db, id)), secret };
}

export async function listWebhooks(db: Db, slug: string): Promise<Webhook[]> {
  const workspace = await findWorkspace(db, slug);
  return (await selectEndpoints(db, { workspaceId: workspace.id })).map(toWebhook);
}

export async function getWebhook(db: Db, id: string): Promise<Webhook> {
  const [row] = await selectEndpoints(db, { id });
  if (!row) throw notFound(`webhook "${id}"`);
  return toWebhook(row);
}

export async function updateWebhook(db: Db, options: { allowPrivate: boolean }, id: string, input: UpdateWebhookRequest): Promise<Webhook> {
  if (input.url !== undefined) await checkUrl(input.url, options.allowPrivate);
  if (!(await updateEndpoint(db, id, input))) throw notFound(`webhook "${id}"`);
  return getWebhook(db, id);
}

/** Deletes an endpoint with its waiting events and delivery log. */
export async function deleteWebhook(db: Db, id: string): Promise<{ webhook_id: string; deleted: true }> {
  if (!(await deleteEndpoint(db, id))) throw notFound(`webhook "${id}"`);
  return { webhook_id: id, deleted: true };
}

/** The endpoint's latest delivery attempts, newest first. */
export async function webhookDeliveries(db: Db, id: string, limit = 100): Promise<WebhookDelivery[]> {
  await getWebhook(db, id);
  const rows = await selectDeliveries(db, id, limit);
  return rows.map((r) => ({ ...r, type: r.type as WebhookEventType, attempted_at: new Date(r.attempted_at).toISOString() }));
}
