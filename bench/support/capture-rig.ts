/**
 * The rig bench/model-capture.ts drives: the real app over a bench database with one model
 * provider (the real Anthropic provider against the fake Messages server and an oracle responder,
 * or a real endpoint), every call the capture model makes recorded (kind, facts shown, the
 * endpoint's usage and the o200k count of what was sent and received), keys that rotate before
 * the per-key rate limit, and the oracle's labels and extractor.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { AnswerEngine } from "../../src/answers/engine";
import { CaptureWorker, type CaptureEvents, type CaptureWorkerOptions } from "../../src/capture/model/worker";
import type { Db } from "../../src/db/types";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { countTokens } from "../../src/memory/tokens";
import { createAnthropicProvider } from "../../src/models/anthropic";
import { createOpenAIProvider } from "../../src/models/openai";
import type { ModelProvider, Usage } from "../../src/models/types";
import { ALL_SCOPES } from "../../src/schema/auth";
import type { LabelledPair } from "../../test/capture/supersession/pairs";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, testConfig } from "../../test/helpers/app";
import { createFakeAnthropic, type FakeAnthropic } from "../../test/helpers/fake-anthropic";
import { oracleResponder, shownFacts, type Label } from "../../test/helpers/fake-capture-model";
import { lmeDate } from "../lib/longmemeval-data";
import { percentile } from "../lib/metrics";

/** One call of the capture model as the bench saw it. */
export interface CallRecord {
  kind: "judge" | "extract";
  /** Judge: new facts shown (N1, N2, ...); extract: messages shown. */
  shown: number;
  /** Judge: the (new fact, candidate) text pairs shown. */
  pairs: string[];
  usage: Usage;
  o200kIn: number;
  o200kOut: number;
  ms: number;
  failed: boolean;
}

export const pairKey = (newer: string, older: string): string => `${newer}\u0000${older}`;

/** A provider that records each call it passes on. */
function recording(inner: ModelProvider, calls: CallRecord[]): ModelProvider {
  return {
    name: inner.name,
    async generate(request, onDelta) {
      const input = request.messages.map((m) => m.content).join("\n");
      const judging = request.system.includes("CANDIDATE");
      const shown = judging ? shownFacts(input) : [];
      const record: CallRecord = {
        kind: judging ? "judge" : "extract",
        shown: judging ? shown.length : input.split("\n").filter((l) => /^\d+ (user|assistant): <message>/.test(l)).length,
        pairs: shown.flatMap((f) => f.candidates.map((c) => pairKey(f.text, c.text))),
        usage: { input_tokens: 0, output_tokens: 0 },
        o200kIn: countTokens(request.system) + countTokens(input),
        o200kOut: 0,
        ms: 0,
        failed: true,
      };
      calls.push(record);
      const started = performance.now();
      try {
        const result = await inner.generate(request, onDelta);
        Object.assign(record, { usage: result.usage, o200kOut: countTokens(result.text), failed: false });
        return result;
      } finally {
        record.ms = performance.now() - started;
      }
    },
  };
}

export type Target =
  | { kind: "oracle" }
  | { kind: "endpoint"; provider: "anthropic" | "openai"; url: string; model: string; apiKey: string | undefined; timeoutMs: number };

export interface Rig {
  app: ReturnType<typeof testApp>;
  db: Db;
  /** Every model call so far; sections slice it. */
  calls: CallRecord[];
  /** The oracle's labels by pairKey(newer, older); sections fill it. */
  labels: Map<string, Label>;
  /** Delay before the fake's reply (ms per call). */
  delay: { ms: number };
  fake: FakeAnthropic | null;
  provider: ModelProvider;
  providerName: "anthropic" | "openai";
  model: string;
  worker(options?: Partial<CaptureWorkerOptions>, events?: CaptureEvents): CaptureWorker;
  /** Turns the capture model on (true) or off for a workspace. */
  setModel(workspace: string, on: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function openRig(db: Db, target: Target): Promise<Rig> {
  const calls: CallRecord[] = [];
  const labels = new Map<string, Label>();
  const delay = { ms: 0 };
  let fake: FakeAnthropic | null = null;
  let inner: ModelProvider;
  if (target.kind === "oracle") {
    const oracle = oracleResponder((newer, older) => labels.get(pairKey(newer, older)), oracleExtract);
    fake = createFakeAnthropic({ responder: (body) => ({ ...oracle(body), chunks: 1, delayMs: delay.ms }) });
    inner = createAnthropicProvider({ apiKey: "sk-bench-oracle", baseURL: fake.url, maxRetries: 0, timeoutMs: 30_000 });
  } else if (target.provider === "anthropic") {
    inner = createAnthropicProvider({ apiKey: target.apiKey ?? "", baseURL: target.url, timeoutMs: target.timeoutMs });
  } else {
    inner = createOpenAIProvider({ apiKey: target.apiKey, baseURL: target.url, timeoutMs: target.timeoutMs });
  }
  const provider = recording(inner, calls);
  const providerName = target.kind === "oracle" ? "anthropic" : target.provider;
  const model = target.kind === "oracle" ? "claude-oracle" : target.model;
  const config = testConfig();
  const log = createLogger("silent");
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
  const engine = new AnswerEngine({ db, index, config, log, providers: { [providerName]: provider } });
  const app = testApp(db, {}, engine);
  return {
    app,
    db,
    calls,
    labels,
    delay,
    fake,
    provider,
    providerName,
    model,
    worker: (options = {}, events) =>
      new CaptureWorker({ db, index, models: engine.models, log }, { timeoutMs: target.kind === "oracle" ? 30_000 : target.timeoutMs, ...options }, events),
    async setModel(workspace, on) {
      const path = `/v1/admin/workspaces/${workspace}/capture-model`;
      const body = { provider: providerName, model, daily_token_budget: 1_000_000_000 };
      const res = await call(app, on ? "PUT" : "DELETE", path, { key: TEST_ADMIN_TOKEN, ...(on && { body }) });
      if (res.status !== 200) throw new Error(`could not ${on ? "set" : "clear"} the capture model: ${res.status} ${res.text}`);
    },
    async close() {
      await fake?.stop();
    },
  };
}

/** Keys of one workspace, a new one every 100 calls: each key may make 120 requests a minute. */
export class KeyRing {
  private used = 0;
  private constructor(
    private readonly db: Db,
    readonly workspace: string,
    private secret: string,
  ) {}

  static async open(db: Db): Promise<KeyRing> {
    const key = await makeKey(db, { scopes: [...ALL_SCOPES] });
    return new KeyRing(db, key.workspace, key.secret);
  }

  async next(): Promise<string> {
    if (++this.used % 100 === 0) this.secret = (await makeKey(this.db, { workspace: this.workspace, scopes: [...ALL_SCOPES] })).secret;
    return this.secret;
  }
}

/**
 * The label the oracle gives a pair, as the set says: a replacement "replaces"; a pair kept
 * ("both") "unrelated" when its reason says the two speak of different things, else "updates"
 * (a second value, a refinement, a hedge, a plan, a question: same topic, the older still true).
 */
export function oracleLabel(pair: LabelledPair): Label {
  if (pair.label === "supersede") return "replaces";
  return /\b(different|separate|unrelated|other|another|vs|sibling|parent company|partner's|relative's|mom's)\b/i.test(pair.why) ? "unrelated" : "updates";
}

/**
 * The oracle extractor: each sentence of a user message that speaks of the user (I, my, me),
 * questions left out, rewritten in the third person as "The user ...".
 */
export function oracleExtract(messages: { role: string; content: string }[]): string[] {
  const facts: string[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    for (const raw of m.content.split(/(?<=[.!?])\s+|\n+/)) {
      const s = raw.trim();
      if (s.endsWith("?") || !/\b(I|I'm|I've|my|me)\b/.test(s) || s.split(/\s+/).length < 4) continue;
      const third = s
        .replace(/\bI'm\b/g, "the user is")
        .replace(/\bI've\b/g, "the user has")
        .replace(/\bI'd\b/g, "the user would")
        .replace(/\bI'll\b/g, "the user will")
        .replace(/\bI\b/g, "the user")
        .replace(/\b[Mm]y\b/g, "the user's")
        .replace(/\bme\b/g, "the user")
        .replace(/\bmyself\b/g, "themselves");
      facts.push(/^the user/i.test(third) ? `The${third.slice(3)}` : `The user said: ${third}`);
    }
  }
  return facts;
}

/** A LongMemEval session as a conversation for POST /v1/memory/messages. */
export interface Conversation {
  id: string;
  observedAt: string;
  messages: { role: "user" | "assistant"; content: string }[];
}

/**
 * `count` distinct sessions of a LongMemEval file (the first not yet taken of each question in
 * turn, so the sample spans questions), each cut to the route's limits (50 messages, 8,000
 * characters a message).
 */
export function sampleConversations(path: string, count: number): Conversation[] {
  const questions = gunzipSync(readFileSync(path))
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { sessions: { id: string; date: string; turns: { role: string; content: string }[] }[] });
  const taken = new Set<string>();
  const out: Conversation[] = [];
  for (let round = 0; out.length < count && round < 100; round++) {
    for (const q of questions) {
      const session = q.sessions.find((s) => !taken.has(s.id));
      if (session === undefined || out.length >= count) continue;
      taken.add(session.id);
      const messages = session.turns
        .filter((t) => (t.role === "user" || t.role === "assistant") && t.content.trim() !== "")
        .slice(0, 50)
        .map((t) => ({ role: t.role as "user" | "assistant", content: t.content.trim().slice(0, 8000) }));
      if (messages.length > 0) out.push({ id: session.id, observedAt: new Date(lmeDate(session.date)).toISOString(), messages });
    }
  }
  return out;
}

/** p50 / p95 / max of samples, in ms. */
export function spread(samples: readonly number[]): { n: number; p50: number; p95: number; max: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    max: s.at(-1) ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
  };
}
