import { Webhook } from "standardwebhooks";

/** One request a receiver got: the Standard Webhooks headers and the body as sent. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A webhook receiver on loopback: records every request, answers what `answer` says (a status),
 * and counts requests in flight at once (one delivery at a time per endpoint must keep it at 1).
 */
export function receiver(answer: (request: Received, count: number) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const body = await request.text();
        const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
        const entry: Received = {
          id: request.headers.get("webhook-id") ?? "",
          timestamp: request.headers.get("webhook-timestamp") ?? "",
          signature: request.headers.get("webhook-signature") ?? "",
          body,
          type: parsed.type,
          data: parsed.data,
        };
        received.push(entry);
        return new Response(null, { status: await answer(entry, received.length) });
      } finally {
        inFlight -= 1;
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    maxInFlight: () => maxInFlight,
    /** Verifies a request with the Standard Webhooks library the way a receiver would; throws when it does not verify. */
    verify: (secret: string, r: Received) =>
      new Webhook(secret).verify(r.body, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature }),
    stop: () => server.stop(true),
  };
}
