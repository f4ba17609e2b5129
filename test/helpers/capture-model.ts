/**
 * An app with a capture model: the real Anthropic provider against a fake Messages server whose
 * replies a responder computes from memoryd's prompt, the admin API to turn the model on, and the
 * real worker, run a round at a time so tests never wait on a clock.
 */
import { AnswerEngine } from "../../src/answers/engine";
import { CaptureWorker, type CaptureEvents, type CaptureWorkerOptions } from "../../src/capture/model/worker";
import type { Db } from "../../src/db/types";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { createAnthropicProvider } from "../../src/models/anthropic";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, testConfig, type TestKey } from "./app";
import { createFakeAnthropic, type FakeAnthropic, type FakeResponse } from "./fake-anthropic";

export interface CaptureHarness {
  fake: FakeAnthropic;
  app: ReturnType<typeof testApp>;
  worker: CaptureWorker;
  key: TestKey;
  /** Runs rounds until no job is ready (at most `maxRounds`); returns how many ran. */
  drain(maxRounds?: number): Promise<number>;
  teach(facts: string[], extra?: Record<string, unknown>): Promise<{ status: number; json: any }>;
  stop(): Promise<void>;
}

export async function captureHarness(
  db: Db,
  responder: (body: any) => FakeResponse | undefined,
  options: { worker?: Partial<CaptureWorkerOptions>; budget?: number; events?: CaptureEvents; enable?: boolean } = {},
): Promise<CaptureHarness> {
  const fake = createFakeAnthropic({ responder });
  const config = testConfig();
  const log = createLogger("silent");
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
  const provider = createAnthropicProvider({ apiKey: "sk-capture-test", baseURL: fake.url, maxRetries: 0, timeoutMs: 5_000 });
  const engine = new AnswerEngine({ db, index, config, log, providers: { anthropic: provider } });
  const app = testApp(db, { outboundAllowPrivate: true }, engine);
  const worker = new CaptureWorker({ db, index, models: engine.models, log }, { timeoutMs: 5_000, maxBackoffMs: 0, ...options.worker }, options.events);
  const key = await makeKey(db);
  if (options.enable !== false) {
    const res = await call(app, "PUT", `/v1/admin/workspaces/${key.workspace}/capture-model`, {
      key: TEST_ADMIN_TOKEN,
      body: { provider: "anthropic", model: "claude-capture", ...(options.budget !== undefined && { daily_token_budget: options.budget }) },
    });
    if (res.status !== 200) throw new Error(`could not set the capture model: ${res.text}`);
  }
  return {
    fake,
    app,
    worker,
    key,
    async drain(maxRounds = 20) {
      let rounds = 0;
      while (rounds < maxRounds && (await worker.runRound())) rounds += 1;
      return rounds;
    },
    teach: (facts, extra = {}) => call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: facts.map((text) => ({ text })), ...extra } }),
    async stop() {
      await fake.stop();
    },
  };
}
