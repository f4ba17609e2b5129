/** GET /metrics: who may read it, what it counts, and that it names no tenant; parsed as Prometheus text. */
import { expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { AnswerEngine } from "../../src/answers/engine";
import { createApp } from "../../src/app";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { createMetrics } from "../../src/metrics";
import { untilFinal } from "../helpers/answers";
import { call, makeKey, testApp, testConfig } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("metrics", (get) => {
  test("requests, latency, auth failures, answers, tokens, credits, queue and index, by route pattern only", async () => {
    const db = get().db;
    const config = testConfig();
    const log = createLogger("silent");
    const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
    const metrics = createMetrics({ db, index });
    const engine = new AnswerEngine({ db, index, config, log, metrics, pollMs: 100 });
    await engine.start(true);
    try {
      const app = createApp({ config, db, log, engine, index, metrics });
      const key = await makeKey(db);
      await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "Orders ship within two days." }] } });
      await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "orders" } });
      await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "ship" } });
      await call(app, "GET", `/v1/answers/ans_does_not_exist`, { key: key.secret });
      await call(app, "GET", "/v1/whoami", { key: "ak_test_wrongwrongwrongwrongwrongwrong12" });
      const asked = await call(app, "POST", "/v1/answers", { key: key.secret, body: { input: "When do orders ship?", stream: false } });
      await untilFinal(app, db, key.secret, asked.json.data.answer_id);
      await Bun.sleep(50);

      const res = await call(app, "GET", "/metrics");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/plain");
      const families = new Map(parsePrometheusTextFormat(res.text).map((f) => [f.name, f]));
      const value = (name: string, labels: Record<string, string> = {}): number => {
        const sample = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
        return Number(sample?.value ?? sample?.count ?? Number.NaN);
      };
      expect(value("memoryd_http_requests_total", { route: "/v1/memory/search", method: "POST", status: "200" })).toBe(2);
      expect(value("memoryd_http_requests_total", { route: "/v1/answers/:answer_id", method: "GET", status: "404" })).toBe(1);
      // The parser folds a histogram's labelled series together; its count line is checked as text.
      expect(res.text).toContain('memoryd_http_request_duration_seconds_count{route="/v1/memory/search",method="POST"} 2');
      expect(families.get("memoryd_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
      expect(value("memoryd_auth_failures_total", { code: "api_key_invalid" })).toBe(1);
      expect(value("memoryd_answers_total", { status: "completed" })).toBe(1);
      expect(value("memoryd_model_tokens_total", { direction: "output" })).toBeGreaterThan(0);
      expect(value("memoryd_credits_spent_total")).toBeGreaterThanOrEqual(1);
      expect(value("memoryd_answer_queue_depth", { status: "queued" })).toBe(0);
      expect(value("memoryd_answer_oldest_queued_seconds")).toBe(0);
      expect(value("memoryd_index_workspaces")).toBeGreaterThanOrEqual(1);
      expect(value("memoryd_index_hit_ratio")).toBeGreaterThan(0);
      expect(value("memoryd_database_info", { kind: db.kind })).toBeGreaterThanOrEqual(1);
      // No tenant in the text: not the workspace, the key prefix, nor a fact.
      expect(res.text).not.toContain(key.workspace);
      expect(res.text).not.toContain(key.prefix);
      expect(res.text).not.toContain("Orders ship");
      expect(res.text).not.toContain("ans_does_not_exist");
    } finally {
      await engine.stop(2_000);
    }
  });

  test("with MEMORYD_METRICS_TOKEN, only a request bearing it may read the metrics", async () => {
    const app = testApp(get().db, { metricsToken: "metrics-token-0123456789" });
    expect((await call(app, "GET", "/metrics")).status).toBe(403);
    expect((await call(app, "GET", "/metrics", { key: "wrong-token-000000000000" })).status).toBe(403);
    expect((await call(app, "GET", "/metrics", { key: "metrics-token-0123456789" })).status).toBe(200);
  });
});
