import type { Queryable } from "../db/types";

/**
 * Webhook endpoints and their delivery state: SQL per statement, one named function each. The
 * outbox itself is written by outbox.ts, in the transactions of the changes it announces.
 */

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  internal: boolean;
  enabled: boolean;
  created_at: Date;
  pending: number;
}

export async function insertEndpoint(
  db: Queryable,
  row: { id: string; workspaceId: string; url: string; events: readonly string[]; secret: string; internal: boolean },
): Promise<void> {
  await db.sql`
    INSERT INTO webhook_endpoints (id, workspace_id, url, events, secret, internal)
    VALUES (${row.id}, ${row.workspaceId}, ${row.url}, ${[...row.events]}::text[], ${row.secret}, ${row.internal})`;
}

/** The workspace's endpoints (or one, by id), with how many events each has waiting. */
export async function selectEndpoints(db: Queryable, filter: { workspaceId: string } | { id: string }): Promise<EndpointRow[]> {
  const workspaceId = "workspaceId" in filter ? filter.workspaceId : null;
  const id = "id" in filter ? filter.id : null;
  return db.sql<EndpointRow>`
    SELECT ep.id, ep.workspace_id, ep.url, ep.events, ep.internal, ep.enabled, ep.created_at,
           (SELECT count(*)::int FROM webhook_events e WHERE e.endpoint_id = ep.id AND e.delivered_at IS NULL AND e.failed_at IS NULL) AS pending
      FROM webhook_endpoints ep
     WHERE (${workspaceId}::text IS NULL OR ep.workspace_id = ${workspaceId}::text) AND (${id}::text IS NULL OR ep.id = ${id}::text)
     ORDER BY ep.created_at, ep.id`;
}

export async function updateEndpoint(
  db: Queryable,
  id: string,
  change: { url?: string; events?: readonly string[]; internal?: boolean; enabled?: boolean },
): Promise<boolean> {
  const rows = await db.sql<{ id: string }>`
    UPDATE webhook_endpoints
       SET url = coalesce(${change.url ?? null}::text, url),
           events = coalesce(${change.events ? [...change.events] : null}::text[], events),
           internal = coalesce(${change.internal ?? null}::boolean, internal),
           enabled = coalesce(${change.enabled ?? null}::boolean, enabled),
           -- Re-enabled or pointed elsewhere: try at once, not after the old backoff.
           next_attempt_at = CASE WHEN ${change.url !== undefined || change.enabled === true} THEN now() ELSE next_attempt_at END
     WHERE id = ${id}
    RETURNING id`;
  return rows.length > 0;
}

export async function deleteEndpoint(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.sql<{ id: string }>`DELETE FROM webhook_endpoints WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}

export interface DeliveryRow {
  event_id: string;
  type: string;
  attempt: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

/** The endpoint's delivery log, newest first. */
export async function selectDeliveries(db: Queryable, endpointId: string, limit: number): Promise<DeliveryRow[]> {
  return db.sql<DeliveryRow>`
    SELECT d.event_id, e.type, d.attempt, d.status, d.error, d.duration_ms, d.attempted_at
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.endpoint_id = ${endpointId}
     ORDER BY d.attempted_at DESC, d.event_id DESC, d.attempt DESC
     LIMIT ${limit}`;
}

export interface ClaimedEndpoint {
  id: string;
  url: string;
  secret: string;
}

/**
 * Leases one endpoint that has an event waiting and is due: one delivery at a time per endpoint
 * across instances. Trade-off: a lease (a deadline in the row), not a row lock held over the
 * HTTP call: no transaction stays open while a receiver thinks, and an instance killed mid
 * delivery only holds the endpoint until its lease runs out.
 */
export async function claimDueEndpoint(db: Queryable, owner: string, leaseMs: number): Promise<ClaimedEndpoint | undefined> {
  const rows = await db.sql<ClaimedEndpoint>`
    UPDATE webhook_endpoints ep SET lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseMs / 1000})
     WHERE ep.id = (
       SELECT c.id FROM webhook_endpoints c
        WHERE c.enabled AND c.next_attempt_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now())
          AND EXISTS (SELECT 1 FROM webhook_events e WHERE e.endpoint_id = c.id AND e.delivered_at IS NULL AND e.failed_at IS NULL)
        ORDER BY c.next_attempt_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
    RETURNING ep.id, ep.url, ep.secret`;
  return rows[0];
}

export interface OutboxRow {
  id: string;
  type: string;
  payload: string;
  attempts: number;
  created_at: Date;
}

/** The endpoint's oldest undelivered event: events go out in the order they were written. */
export async function headEvent(db: Queryable, endpointId: string): Promise<OutboxRow | undefined> {
  const rows = await db.sql<OutboxRow>`
    SELECT id, type, payload, attempts, created_at FROM webhook_events
     WHERE endpoint_id = ${endpointId} AND delivered_at IS NULL AND failed_at IS NULL
     ORDER BY position
     LIMIT 1`;
  return rows[0];
}

/** One attempt's outcome: logged, and the event delivered, retried later, or given up. */
export async function recordAttempt(
  db: Queryable,
  endpointId: string,
  event: OutboxRow,
  outcome: { status: number | null; error: string | null; durationMs: number; result: "delivered" | "retry" | "give_up"; retryInMs: number },
): Promise<void> {
  const attempt = event.attempts + 1;
  await db.sql`
    WITH logged AS (
      INSERT INTO webhook_deliveries (event_id, attempt, endpoint_id, status, error, duration_ms)
      VALUES (${event.id}, ${attempt}, ${endpointId}, ${outcome.status}, ${outcome.error}, ${Math.round(outcome.durationMs)})
    ),
    endpoint AS (
      UPDATE webhook_endpoints SET next_attempt_at = now() + make_interval(secs => ${outcome.retryInMs / 1000})
       WHERE id = ${endpointId} AND ${outcome.result === "retry"}
    )
    UPDATE webhook_events
       SET attempts = ${attempt},
           delivered_at = CASE WHEN ${outcome.result === "delivered"} THEN now() END,
           failed_at = CASE WHEN ${outcome.result === "give_up"} THEN now() END
     WHERE id = ${event.id}`;
}

export async function releaseEndpoint(db: Queryable, endpointId: string, owner: string): Promise<void> {
  await db.sql`UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = ${endpointId} AND lease_owner = ${owner}`;
}

/** Drops delivered and given-up events (and their log) after `maxAgeSeconds`. */
export async function pruneWebhookEvents(db: Queryable, maxAgeSeconds: number): Promise<void> {
  await db.sql`
    DELETE FROM webhook_events
     WHERE (delivered_at IS NOT NULL OR failed_at IS NOT NULL) AND created_at < now() - make_interval(secs => ${maxAgeSeconds})`;
}
