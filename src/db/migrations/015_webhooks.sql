-- Webhooks (src/webhooks/): endpoints per workspace, a durable outbox written in the same
-- transaction as the change it announces, and a log of every delivery attempt.

CREATE TABLE webhook_endpoints (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url             text NOT NULL,
  events          text[] NOT NULL,
  -- The Standard Webhooks signing secret ("whsec_" + base64). Stored as is: signing needs it.
  secret          text NOT NULL,
  -- Internal endpoints receive every fact; the others only what an external key may see.
  internal        boolean NOT NULL DEFAULT false,
  enabled         boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- Delivery state: one delivery at a time per endpoint (the lease), retries after a backoff.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_owner     text,
  lease_until     timestamptz
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id);

-- The outbox: one row per endpoint and event, delivered in `position` order. `id` is the
-- Standard Webhooks message id, the same on every retry, so a receiver can drop duplicates.
-- `payload` is text: the exact bytes signed and sent.
CREATE TABLE webhook_events (
  position     bigserial PRIMARY KEY,
  id           text NOT NULL UNIQUE,
  endpoint_id  text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  type         text NOT NULL,
  payload      text NOT NULL,
  -- The end user the event is about: forgetting them deletes their events, delivered or not.
  end_user_id  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  delivered_at timestamptz,
  -- Given up after retrying for a day.
  failed_at    timestamptz
);
CREATE INDEX webhook_events_pending ON webhook_events (endpoint_id, position) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_events_done ON webhook_events (created_at) WHERE delivered_at IS NOT NULL OR failed_at IS NOT NULL;
CREATE INDEX webhook_events_end_user ON webhook_events (endpoint_id, end_user_id) WHERE end_user_id IS NOT NULL;

CREATE TABLE webhook_deliveries (
  event_id     text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  attempt      integer NOT NULL,
  endpoint_id  text NOT NULL,
  status       integer,
  error        text,
  duration_ms  integer NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_id, attempt)
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, attempted_at DESC);

-- Expiry happens by the clock, not by a write: the sweeper announces each expired fact once.
ALTER TABLE facts ADD COLUMN expiry_announced boolean NOT NULL DEFAULT false;
