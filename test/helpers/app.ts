import { createApp, type App } from "../../src/app";
import { AnswerEngine } from "../../src/answers/engine";
import { createKey } from "../../src/auth/keys";
import { createWorkspace } from "../../src/auth/workspaces";
import { loadConfig, type Config } from "../../src/config";
import type { Db } from "../../src/db/types";
import { createLogger, type Logger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import type { Audience, Scope } from "../../src/schema/auth";
import { ALL_SCOPES } from "../../src/schema/auth";

/** The admin credential every test app accepts (MEMORYD_ADMIN_TOKEN). */
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

export const testConfig = (overrides: Partial<Config> = {}): Config => ({
  ...loadConfig({}, { MEMORYD_LOG_LEVEL: "silent", MEMORYD_ADMIN_TOKEN: TEST_ADMIN_TOKEN }),
  ...overrides,
});

/** The real app over `db`; its answer engine is not started unless the test passes its own. */
export function testApp(db: Db, overrides: Partial<Config> = {}, engine?: AnswerEngine, log: Logger = createLogger("silent")): App {
  const config = testConfig(overrides);
  const index = engine?.index ?? new FactIndexes(db, config.indexMemoryMb * 1024 * 1024);
  return createApp({ config, db, log, index, engine: engine ?? new AnswerEngine({ db, index, config, log }) });
}

let counter = 0;
export function uniqueSlug(base = "ws"): string {
  counter += 1;
  return `${base}-${Date.now().toString(36)}-${counter}`;
}

export interface TestKey {
  workspace: string;
  secret: string;
  id: string;
  prefix: string;
}

/** A fresh workspace (unless one is given) and a key on it. */
export async function makeKey(
  db: Db,
  options: { workspace?: string; scopes?: Scope[]; audience?: Audience; credits?: number; expiresAt?: string; agent?: string } = {},
): Promise<TestKey> {
  const workspace = options.workspace ?? (await createWorkspace(db, uniqueSlug(), options.credits ?? 1000)).slug;
  // A key cannot be created already expired; a past expiry is the clock having moved on since.
  const lapsed = options.expiresAt !== undefined && Date.parse(options.expiresAt) <= Date.now();
  const key = await createKey(db, "test", {
    workspace,
    name: "test key",
    scopes: options.scopes ?? [...ALL_SCOPES],
    audience: options.audience ?? "internal",
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.expiresAt && !lapsed ? { expires_at: options.expiresAt } : {}),
  });
  if (lapsed) await db.sql`UPDATE api_keys SET expires_at = ${new Date(options.expiresAt ?? "")} WHERE id = ${key.id}`;
  return { workspace, secret: key.secret, id: key.id, prefix: key.prefix };
}

/** Real HTTP semantics through `app.handle()`. */
export interface Handler {
  handle(request: Request): Promise<Response>;
}

export async function call(
  app: Handler,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * Rate windows are fixed 60 s slots; a counting test that straddles a slot edge would see two
 * windows. Waits for a fresh slot when fewer than `needSeconds` remain in this one.
 */
export async function awayFromWindowEdge(needSeconds = 8): Promise<void> {
  const intoWindow = (Date.now() / 1000) % 60;
  if (intoWindow > 60 - needSeconds) await Bun.sleep((60 - intoWindow) * 1000 + 200);
}
