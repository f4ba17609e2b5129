import type { DatabaseOutage } from "../db/outage";
import { Webhook } from "standardwebhooks";
import type { Db } from "../db/types";
import type { Logger } from "../log";
import { OutboundError, postOutbound } from "../net/outbound";
import { announceExpiredFacts } from "./outbox";
import { claimDueEndpoint, headEvent, recordAttempt, releaseEndpoint, type ClaimedEndpoint } from "./store";

export interface DeliveryOptions {
  /** Private and loopback receivers allowed (MEMORYD_OUTBOUND_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** How long a receiver has to answer. */
  timeoutMs: number;
  /** How long an instance holds an endpoint; an instance that dies mid-delivery holds it this long. */
  leaseMs: number;
  /** How often an idle instance looks for due events and expired facts. */
  pollMs: number;
  /** An event still failing this long after it was written is given up. */
  giveUpMs: number;
  /** The wait before retrying after the n-th failed attempt (1-based). */
  backoffMs: (failures: number) => number;
}

/** Retries after 5 s, 30 s, 2 min, 5 min, 15 min, 30 min, 1 h, 2 h, then every 4 h, for a day. */
const BACKOFF_MS = [5_000, 30_000, 120_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];

export const DELIVERY_DEFAULTS: DeliveryOptions = {
  allowPrivate: false,
  timeoutMs: 5_000,
  leaseMs: 15_000,
  pollMs: 1_000,
  giveUpMs: 24 * 3_600_000,
  backoffMs: (failures) => BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1]!,
};

/**
 * Delivers the webhook outbox: at least once, in order per endpoint, one delivery at a time per
 * endpoint across instances, signed the Standard Webhooks way (`webhook-id` is the event's id on
 * every retry, so duplicates after a crash are recognisable). A receiver that fails blocks its
 * endpoint's later events until it answers or the event is given up after a day: order is kept.
 * Also announces expired facts (`fact.expired`), which no write marks.
 */
export class WebhookDeliverer {
  private readonly options: DeliveryOptions;
  private readonly owner = `wh-${crypto.randomUUID()}`;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    options: Partial<DeliveryOptions> = {},
    /** A round that fails because the database is away is reported there once, not logged each poll. */
    private readonly outage?: DatabaseOutage,
  ) {
    this.options = { ...DELIVERY_DEFAULTS, ...options };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the delivery under way (bounded by the receiver timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One round: announce expiries, then deliver every due endpoint's waiting events. Returns the attempts made. */
  async deliverDue(): Promise<number> {
    await announceExpiredFacts(this.db);
    let attempts = 0;
    while (!this.stopped) {
      const endpoint = await claimDueEndpoint(this.db, this.owner, this.options.leaseMs);
      if (!endpoint) break;
      try {
        attempts += await this.deliverEndpoint(endpoint);
      } finally {
        await releaseEndpoint(this.db, endpoint.id, this.owner);
      }
    }
    return attempts;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.deliverDue()
        .then(
          () => undefined,
          (error: unknown) => {
            if (!this.outage?.failed(error)) this.log.warn("webhook delivery round failed", { error: String(error) });
          },
        )
        .finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  /** Sends the endpoint's events in order while they succeed and the lease lasts. */
  private async deliverEndpoint(endpoint: ClaimedEndpoint): Promise<number> {
    const { timeoutMs, leaseMs, giveUpMs, backoffMs, allowPrivate } = this.options;
    const signer = new Webhook(endpoint.secret);
    const leased = Date.now();
    let attempts = 0;
    while (!this.stopped && Date.now() - leased + timeoutMs < leaseMs) {
      const event = await headEvent(this.db, endpoint.id);
      if (!event) return attempts;
      const sentAt = new Date();
      const headers = {
        "content-type": "application/json",
        "user-agent": "memoryd-webhooks",
        "webhook-id": event.id,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signer.sign(event.id, sentAt, event.payload),
      };
      const started = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await postOutbound(endpoint.url, event.payload, headers, { allowPrivate, timeoutMs });
        if (status < 200 || status >= 300) error = `the receiver answered ${status}`;
      } catch (cause) {
        error = cause instanceof OutboundError ? cause.message : String(cause);
      }
      attempts += 1;
      const durationMs = performance.now() - started;
      if (error === null) {
        await recordAttempt(this.db, endpoint.id, event, { status, error, durationMs, result: "delivered", retryInMs: 0 });
        continue;
      }
      const expired = Date.now() - new Date(event.created_at).getTime() >= giveUpMs;
      await recordAttempt(this.db, endpoint.id, event, {
        status,
        error,
        durationMs,
        result: expired ? "give_up" : "retry",
        retryInMs: backoffMs(event.attempts + 1),
      });
      if (expired) {
        this.log.warn("webhook event given up after retrying for a day", { webhook_id: endpoint.id, event_id: event.id, error });
        continue;
      }
      return attempts;
    }
    return attempts;
  }
}
