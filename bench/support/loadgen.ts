/**
 * The load generator: a separate Bun process that keeps `connections` requests in flight (closed
 * loop, HTTP/1.1 keep-alive) against one scenario for a warm-up and then a measured window, and
 * prints one JSON result line on stdout. bench/http.ts spawns it with the spec on stdin:
 *
 *   echo '{"url":"http://127.0.0.1:PORT","scenario":"search",...}' | bun bench/support/loadgen.ts
 *
 * Only requests that complete inside the measured window count (throughput = those / window).
 * Requests rotate over the given API keys (a global counter, offset by `keyOffset`) so that no key
 * reaches the 120/min limit; 429s are still counted and reported.
 */
import { factStream, makeCast, makeQueries, makeQuestions, type Cast, type SynthFact } from "./synth";

export type ScenarioName = "healthz" | "baseline" | "whoami" | "search" | "context" | "teach" | "mcp_search" | "answer_stream" | "mcp_ask";

export interface LoadSpec {
  url: string;
  scenario: ScenarioName;
  connections: number;
  warmupMs: number;
  durationMs: number;
  keys: string[];
  keyOffset: number;
  /** Seed of the workspace content (queries use the same vocabulary). */
  seed: string;
  /** Unique per run: keeps taught facts and conversation ids fresh. */
  runId: string;
  /** Share of search/context calls that name an end user. */
  endUserShare?: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export interface LoadResult {
  scenario: ScenarioName;
  connections: number;
  durationS: number;
  requests: number;
  /** Every request sent, warm-up and in-flight ones included (for key rotation accounting). */
  sent: number;
  rps: number;
  latencyMs: Percentiles;
  status: Record<string, number>;
  non2xx: number;
  rateLimited: number;
  networkErrors: number;
  /** 2xx responses that still carried an error: MCP isError / JSON-RPC error, answer.failed. */
  appErrors: number;
  errorSamples: string[];
  extra: Record<string, number | Percentiles>;
}

export function percentiles(samples: number[]): Percentiles {
  if (samples.length === 0) return { p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, mean: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: sum / sorted.length, max: sorted[sorted.length - 1] as number };
}

interface Built {
  path: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

interface Checked {
  ok: boolean;
  error?: string;
  /** Scenario-specific numbers to aggregate (sums), e.g. facts created. */
  counts?: Record<string, number>;
  /** Scenario-specific timings (ms since request start) to take percentiles of. */
  timings?: Record<string, number>;
}

interface Scenario {
  build(i: number, key: string): Built;
  check(res: Response, t0: number): Promise<Checked>;
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function checkMcp(res: Response): Promise<Checked> {
  const text = await res.text();
  if (res.status !== 200) return { ok: false, error: `${res.status} ${text.slice(0, 200)}` };
  let json: { error?: { message?: string }; result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text?: string }[] } };
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: `not JSON: ${text.slice(0, 200)}` };
  }
  if (json.error) return { ok: false, error: `json-rpc error: ${json.error.message}` };
  if (json.result?.isError) return { ok: false, error: `tool error: ${json.result.content?.[0]?.text?.slice(0, 200)}` };
  return {
    ok: true,
    counts: { results: Array.isArray(json.result?.structuredContent?.facts) ? (json.result.structuredContent.facts as unknown[]).length : 0 },
  };
}

function makeScenario(spec: LoadSpec, cast: Cast): Scenario {
  const queries = makeQueries(spec.seed, cast);
  const questions = makeQuestions(spec.seed, cast);
  const endUserShare = spec.endUserShare ?? 0.1;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const json = { "content-type": "application/json" };
  const query = (i: number) => queries[i % queries.length] as string;
  // Every 1/share-th request names an end user (deterministic, spread evenly).
  const endUser = (i: number) => {
    if (endUserShare <= 0 || i % Math.round(1 / endUserShare) !== 0) return undefined;
    const user = cast.endUsers[(i * 7919) % cast.endUsers.length]!;
    return { id: user.id, name: user.name };
  };
  const searchBody = (i: number) => JSON.stringify({ query: query(i), limit: 20, end_user: endUser(i) });
  const checkSearch = async (res: Response): Promise<Checked> => {
    const text = await res.text();
    if (res.status !== 200) return { ok: false, error: `${res.status} ${text.slice(0, 200)}` };
    const facts = (JSON.parse(text) as { data?: { facts?: unknown[] } }).data?.facts;
    return { ok: Array.isArray(facts), counts: { results: facts?.length ?? 0 } };
  };

  switch (spec.scenario) {
    case "healthz":
      return {
        build: () => ({ path: "/healthz", method: "GET", headers: {} }),
        check: async (res) => {
          await res.arrayBuffer();
          return { ok: res.status === 200 };
        },
      };
    case "baseline":
      return { build: (i) => ({ path: "/search", headers: json, body: searchBody(i) }), check: checkSearch };
    case "whoami":
      return {
        build: (_i, key) => ({ path: "/v1/whoami", method: "GET", headers: auth(key) }),
        check: async (res) => {
          const text = await res.text();
          return res.status === 200 ? { ok: true } : { ok: false, error: `${res.status} ${text.slice(0, 200)}` };
        },
      };
    case "search":
      return { build: (i, key) => ({ path: "/v1/memory/search", headers: { ...json, ...auth(key) }, body: searchBody(i) }), check: checkSearch };
    case "context":
      return {
        build: (i, key) => ({
          path: "/v1/memory/context",
          headers: { ...json, ...auth(key) },
          body: JSON.stringify({ query: query(i), token_budget: 1500, end_user: endUser(i) }),
        }),
        check: async (res) => {
          const text = await res.text();
          if (res.status !== 200) return { ok: false, error: `${res.status} ${text.slice(0, 200)}` };
          const data = (JSON.parse(text) as { data?: { facts?: unknown[]; rendered?: string } }).data;
          return { ok: typeof data?.rendered === "string", counts: { results: data?.facts?.length ?? 0 } };
        },
      };
    case "mcp_search":
      return {
        build: (i, key) => ({
          path: "/v1/mcp",
          headers: { ...MCP_HEADERS, ...auth(key) },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: i,
            method: "tools/call",
            params: { name: "search_memory", arguments: { query: query(i), limit: 20, end_user: endUser(i) } },
          }),
        }),
        check: checkMcp,
      };
    case "teach": {
      // Fresh facts from the same vocabulary, from a stream seeded per run.
      const stream = factStream(`${spec.seed}:teach:${spec.runId}`, cast);
      return {
        build: (_i, key) => {
          const facts = Array.from({ length: 20 }, () => ({ text: (stream.next().value as SynthFact).text }));
          return { path: "/v1/memory/facts", headers: { ...json, ...auth(key) }, body: JSON.stringify({ facts }) };
        },
        check: async (res) => {
          const text = await res.text();
          if (res.status !== 202) return { ok: false, error: `${res.status} ${text.slice(0, 200)}` };
          const data = (JSON.parse(text) as { data: { accepted_fact_count: number; created: number; superseded: number; skipped: number } }).data;
          return {
            ok: true,
            counts: { accepted: data.accepted_fact_count, created: data.created, superseded: data.superseded, skipped: data.skipped },
          };
        },
      };
    }
    case "answer_stream":
      return {
        build: (i, key) => ({
          path: "/v1/answers",
          headers: { ...json, ...auth(key) },
          body: JSON.stringify({ input: questions[i % questions.length], conversation_id: `bench-${spec.runId}-${i}` }),
        }),
        check: async (res, t0) => {
          if (res.status !== 200 || !res.body) return { ok: false, error: `${res.status} ${(await res.text()).slice(0, 200)}` };
          const headersMs = performance.now() - t0;
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          let firstDelta = Number.NaN;
          let created = Number.NaN;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            if (Number.isNaN(created) && buffer.includes("event: answer.created")) created = performance.now() - t0;
            if (Number.isNaN(firstDelta) && buffer.includes("event: answer.delta")) firstDelta = performance.now() - t0;
          }
          if (buffer.includes("event: answer.failed"))
            return { ok: false, error: `answer.failed ${buffer.slice(buffer.indexOf("event: answer.failed"), buffer.indexOf("event: answer.failed") + 200)}` };
          if (!buffer.includes("event: answer.completed")) return { ok: false, error: `no answer.completed: ${buffer.slice(-200)}` };
          return { ok: true, timings: { headers: headersMs, created, firstDelta } };
        },
      };
    case "mcp_ask":
      return {
        build: (i, key) => ({
          path: "/v1/mcp",
          headers: { ...MCP_HEADERS, ...auth(key) },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: i,
            method: "tools/call",
            params: {
              name: "ask_worker",
              arguments: { input: questions[i % questions.length], conversation_id: `bench-${spec.runId}-${i}`, timeout_seconds: 30 },
            },
          }),
        }),
        check: async (res) => {
          const text = await res.clone().text();
          const checked = await checkMcp(res);
          if (!checked.ok) return checked;
          const answer = (JSON.parse(text) as { result?: { structuredContent?: { status?: string; wait_timed_out?: boolean } } }).result?.structuredContent;
          if (answer?.status !== "completed") return { ok: false, error: `ask_worker did not complete: ${text.slice(0, 200)}` };
          return { ok: true };
        },
      };
  }
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const cast = makeCast(spec.seed);
  const scenario = makeScenario(spec, cast);
  const latencies: number[] = [];
  const timings = new Map<string, number[]>();
  const counts = new Map<string, number>();
  const status: Record<string, number> = {};
  const errorSamples = new Set<string>();
  let networkErrors = 0;
  let appErrors = 0;
  let counter = 0;

  const start = performance.now();
  const measureStart = start + spec.warmupMs;
  const measureEnd = measureStart + spec.durationMs;
  let measured = 0;

  const worker = async () => {
    while (performance.now() < measureEnd) {
      const i = counter++;
      const key = spec.keys.length > 0 ? (spec.keys[(spec.keyOffset + i) % spec.keys.length] as string) : "";
      const req = scenario.build(i, key);
      const t0 = performance.now();
      let checked: Checked;
      let code = "network";
      try {
        const res = await fetch(spec.url + req.path, { method: req.method ?? "POST", headers: req.headers, body: req.body });
        code = String(res.status);
        checked = await scenario.check(res, t0);
      } catch (error) {
        checked = { ok: false, error: `network: ${error instanceof Error ? error.message : String(error)}` };
      }
      const t1 = performance.now();
      if (t1 < measureStart || t1 > measureEnd) continue;
      measured += 1;
      latencies.push(t1 - t0);
      status[code] = (status[code] ?? 0) + 1;
      if (code === "network") networkErrors += 1;
      else if (code.startsWith("2") && !checked.ok) appErrors += 1;
      if (!checked.ok && errorSamples.size < 5) errorSamples.add(checked.error ?? `status ${code}`);
      for (const [k, v] of Object.entries(checked.counts ?? {})) counts.set(k, (counts.get(k) ?? 0) + v);
      for (const [k, v] of Object.entries(checked.timings ?? {})) {
        if (Number.isNaN(v)) continue;
        const list = timings.get(k) ?? [];
        timings.set(k, list);
        list.push(v);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));

  const durationS = spec.durationMs / 1000;
  const non2xx = Object.entries(status)
    .filter(([code]) => code !== "network" && !code.startsWith("2"))
    .reduce((sum, [, n]) => sum + n, 0);
  const extra: Record<string, number | Percentiles> = {};
  for (const [k, v] of counts) extra[k] = v;
  if (counts.has("results")) extra.avgResults = (counts.get("results") ?? 0) / Math.max(1, measured);
  if (counts.has("accepted")) {
    extra.acceptedPerSecond = (counts.get("accepted") ?? 0) / durationS;
    extra.storedPerSecond = ((counts.get("created") ?? 0) + (counts.get("superseded") ?? 0)) / durationS;
  }
  for (const [k, v] of timings) extra[`${k}Ms`] = percentiles(v);
  return {
    scenario: spec.scenario,
    connections: spec.connections,
    durationS,
    requests: measured,
    sent: counter,
    rps: measured / durationS,
    latencyMs: percentiles(latencies),
    status,
    non2xx,
    rateLimited: status["429"] ?? 0,
    networkErrors,
    appErrors,
    errorSamples: [...errorSamples],
    extra,
  };
}

if (import.meta.main) {
  const spec = JSON.parse(await Bun.stdin.text()) as LoadSpec;
  const result = await runLoad(spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
