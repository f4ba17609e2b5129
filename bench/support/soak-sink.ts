/**
 * The soak test's webhook receiver: a Bun.serve on loopback that answers 200 to every delivery
 * and counts them by event type, by `webhook-id` (a redelivery after a crash repeats the id: at
 * least once), and keeps the text of every `fact.created` so the run can check that each taught
 * fact was announced.
 */
export interface WebhookSink {
  url: string;
  /** Requests received, redeliveries included. */
  deliveries(): number;
  /** Distinct `webhook-id`s received. */
  distinct(): number;
  /** Deliveries whose `webhook-id` was seen before. */
  duplicates(): number;
  byType(): Record<string, number>;
  /** The `fact_text` of every `fact.created` received. */
  createdTexts: Set<string>;
  /** Requests that were not a well-formed event (no webhook-id, or a body that is not JSON). */
  malformed(): number;
  stop(): void;
}

export function startWebhookSink(): WebhookSink {
  const ids = new Set<string>();
  const types: Record<string, number> = {};
  const createdTexts = new Set<string>();
  let deliveries = 0;
  let duplicates = 0;
  let malformed = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      deliveries += 1;
      const id = request.headers.get("webhook-id");
      let event: { type?: string; data?: { fact_text?: string } } | undefined;
      try {
        event = JSON.parse(await request.text());
      } catch {
        event = undefined;
      }
      if (id === null || event?.type === undefined) {
        malformed += 1;
        return new Response(null, { status: 200 });
      }
      if (ids.has(id)) duplicates += 1;
      else {
        ids.add(id);
        types[event.type] = (types[event.type] ?? 0) + 1;
        if (event.type === "fact.created" && typeof event.data?.fact_text === "string") createdTexts.add(event.data.fact_text);
      }
      return new Response(null, { status: 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/soak-hook`,
    deliveries: () => deliveries,
    distinct: () => ids.size,
    duplicates: () => duplicates,
    byType: () => ({ ...types }),
    createdTexts,
    malformed: () => malformed,
    stop: () => void server.stop(true),
  };
}
