import { AnswerEngine } from "../../src/answers/engine";
import type { App } from "../../src/app";
import type { Db } from "../../src/db/types";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { createAnthropicProvider } from "../../src/models/anthropic";
import { createOpenAIProvider } from "../../src/models/openai";
import type { ModelProvider } from "../../src/models/types";
import { testApp, testConfig } from "./app";

export interface SseEvent {
  event: string;
  data: any;
}

/** Parses a complete text/event-stream body into its events (comments dropped). */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of body.split("\n\n")) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

export interface AnswersHarness {
  app: App;
  engine: AnswerEngine;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** The anthropic provider talks to this fake; without it, anthropic is not configured. */
  anthropicUrl?: string;
  /** The openai provider talks to this fake (no key); without it, openai is not configured. */
  openaiUrl?: string;
  local?: ModelProvider;
  leaseSeconds?: number;
  pollMs?: number;
}

/** The app with a started answer engine (worker on) whose providers talk to the given fakes. */
export async function answersHarness(db: Db, options: HarnessOptions = {}): Promise<AnswersHarness> {
  const config = testConfig();
  const log = createLogger("silent");
  const engine = new AnswerEngine({
    db,
    index: new FactIndexes(db, config.indexMemoryMb * 1024 * 1024),
    config,
    log,
    providers: {
      ...(options.anthropicUrl ? { anthropic: createAnthropicProvider({ apiKey: "sk-test-fake", baseURL: options.anthropicUrl, maxRetries: 0 }) } : {}),
      ...(options.openaiUrl ? { openai: createOpenAIProvider({ baseURL: options.openaiUrl, maxRetries: 0 }) } : {}),
      ...(options.local ? { local: options.local } : {}),
    },
    leaseSeconds: options.leaseSeconds,
    pollMs: options.pollMs ?? 200,
  });
  await engine.start(true);
  return { app: testApp(db, {}, engine), engine, stop: () => engine.stop(5_000) };
}

/**
 * Waits until the run is final (watching the table, so the key's rate limit is not spent), then
 * reads it once through GET /v1/answers/:id?include=sources.
 */
export async function untilFinal(app: App, db: Db, key: string, answerId: string, timeoutMs = 20_000): Promise<any> {
  const started = Date.now();
  for (;;) {
    const rows = await db.sql<{ status: string }>`SELECT status FROM answers WHERE id = ${answerId}`;
    const status = rows[0]?.status;
    if (status === "completed" || status === "failed") break;
    if (Date.now() - started > timeoutMs) throw new Error(`answer ${answerId} still ${status} after ${timeoutMs} ms`);
    await Bun.sleep(25);
  }
  const res = await app.handle(new Request(`http://localhost/v1/answers/${answerId}?include=sources`, { headers: { authorization: `Bearer ${key}` } }));
  return ((await res.json()) as { data: unknown }).data;
}
