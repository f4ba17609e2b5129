/**
 * The capture model in Prometheus: calls by kind and outcome, tokens in and out, latency, decisions
 * by label and by what the gates did, jobs the budget refused, and the queue. Labels name kinds,
 * outcomes and codes only, never a workspace or a fact.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Db } from "../../db/types";
import { fromDatabase } from "../../metrics";
import { captureQueueDepth } from "./queue";
import type { CaptureEvents } from "./worker";

export function captureMetrics(registry: Registry, db: Db): CaptureEvents {
  const calls = new Counter({
    name: "memoryd_capture_model_calls_total",
    help: "Capture model calls by kind (judge, extract) and outcome (ok, unparsed, or the failure's code)",
    labelNames: ["kind", "outcome"],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "memoryd_capture_model_tokens_total",
    help: "Tokens used by the capture model, by direction",
    labelNames: ["direction"],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: "memoryd_capture_model_call_seconds",
    help: "Capture model call latency by kind",
    labelNames: ["kind"],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const decisions = new Counter({
    name: "memoryd_capture_model_decisions_total",
    help: "The capture model's decisions by label and outcome (applied, vetoed, or dropped: naming what it was not shown)",
    labelNames: ["label", "outcome"],
    registers: [registry],
  });
  const refused = new Counter({
    name: "memoryd_capture_model_refused_jobs_total",
    help: "Capture jobs refused because a workspace's daily token budget was spent",
    registers: [registry],
  });
  new Gauge({
    name: "memoryd_capture_queue_depth",
    help: "Capture model jobs queued or running, across every instance",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const depth = await fromDatabase(() => captureQueueDepth(db));
      if (depth === null) return;
      this.set({ state: "queued" }, depth.queued);
      this.set({ state: "running" }, depth.running);
    },
  });
  return {
    call(kind, outcome, reply) {
      calls.inc({ kind, outcome });
      if (reply === null) return;
      tokens.inc({ direction: "input" }, reply.usage.input_tokens);
      tokens.inc({ direction: "output" }, reply.usage.output_tokens);
      seconds.observe({ kind }, reply.seconds);
    },
    decisions(applied, vetoed, dropped) {
      for (const d of applied) decisions.inc({ label: d.label, outcome: "applied" });
      for (const d of vetoed) decisions.inc({ label: d.label, outcome: "vetoed" });
      if (dropped > 0) decisions.inc({ label: "unknown", outcome: "dropped" }, dropped);
    },
    refused(jobs) {
      refused.inc(jobs);
    },
  };
}
