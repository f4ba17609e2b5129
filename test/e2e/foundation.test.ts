/**
 * End-to-end tests of the compiled `dist/memoryd`: the operator CLI and `serve`, in embedded mode
 * (a fresh --data-dir) always and against PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import pkg from "../../package.json";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import {
  cleanup,
  cliOk,
  ensureBinary,
  request,
  runCli,
  startServer,
  tempDir,
  waitReady,
  type CliResult,
  type HttpResult,
  type ServerHandle,
  type StartOptions,
} from "./binary";

// These tests spawn processes and databases: bun's 5 s default per-test bound is too short
// whichever way the suite is invoked (`bun test test/e2e` passes no --timeout).
setDefaultTimeout(60_000);

type Kind = "embedded" | "postgres";
const KINDS: Kind[] = process.env.TEST_DATABASE_URL ? ["embedded", "postgres"] : ["embedded"];

const SECRET_TEST = /^ak_test_[0-9A-Za-z]{32,}$/;
const SECRET_LIVE = /^ak_live_[0-9A-Za-z]{32,}$/;
const ALL_SCOPES = ["memory.read", "memory.write", "answers.write"];
const KEY_VIEW_FIELDS = ["audience", "expires_at", "id", "name", "prefix", "scopes", "secret"];
const LISTED_KEY_FIELDS = ["agent", "audience", "created_at", "expires_at", "id", "last_used_at", "name", "prefix", "revoked_at", "scopes"];

// ---------------------------------------------------------------------------------------------
// Databases

interface Target {
  kind: Kind;
  dataDir?: string;
  databaseUrl?: string;
  /** The flags that point any command at this database. */
  flags: string[];
}

const pgDatabases: string[] = [];

/** A fresh, empty database of `kind`. */
async function freshTarget(kind: Kind): Promise<Target> {
  if (kind === "embedded") {
    const dataDir = join(tempDir("memoryd-e2e-data-"), "data");
    return { kind, dataDir, flags: ["--data-dir", dataDir] };
  }
  const databaseUrl = await createPostgresDatabase();
  pgDatabases.push(databaseUrl);
  return { kind, databaseUrl, flags: ["--database-url", databaseUrl] };
}

function serveOn(target: Target, options: Omit<StartOptions, "dataDir" | "databaseUrl"> = {}): Promise<ServerHandle> {
  return startServer({ ...options, dataDir: target.dataDir, databaseUrl: target.databaseUrl }).then((server) => {
    if (server.secret) remember(server.secret);
    return server;
  });
}

// ---------------------------------------------------------------------------------------------
// Secrets and logs

/** Every secret any test saw: none may ever show up in a server's logs. */
const knownSecrets = new Set<string>();
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function remember(secret: string): string {
  knownSecrets.add(secret);
  return secret;
}

/** Prefixes of known secrets (or their hashes) found in a server's output, bootstrap line excepted. */
function leakedSecrets(server: ServerHandle): string[] {
  const stdout = server
    .stdout()
    .split("\n")
    .filter((line) => !line.startsWith("API key (shown once"))
    .join("\n");
  const output = `${stdout}\n${server.stderr()}`;
  const leaks: string[] = [];
  for (const secret of knownSecrets) {
    if (output.includes(secret)) leaks.push(`${secret.slice(0, 12)}… (secret)`);
    if (output.includes(sha256(secret))) leaks.push(`${secret.slice(0, 12)}… (hash)`);
  }
  return leaks;
}

/** Every stderr line of a server is a JSON log object. */
function logLines(server: ServerHandle): Record<string, unknown>[] {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`server stderr line is not JSON: ${line}`);
      }
    });
}

/** Stops a server with `signal`, expecting exit 0, JSON-only stderr and no secret in the output. */
async function stopCleanly(server: ServerHandle, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  const code = await server.stop(signal);
  expect({ code, stderrTail: code === 0 ? "" : server.stderr().slice(-2000) }).toEqual({ code: 0, stderrTail: "" });
  expect(leakedSecrets(server)).toEqual([]);
  logLines(server);
}

// ---------------------------------------------------------------------------------------------
// CLI helpers

function oneLine(result: CliResult): string {
  const lines = result.stderr.split("\n").filter((line) => line.trim() !== "");
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

async function cliJson(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<any> {
  const stdout = await cliOk([...args, "--json"], options);
  const lines = stdout.split("\n").filter((line) => line !== "");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "");
}

let slugCounter = 0;
const slug = (base: string): string => `${base}-${Date.now().toString(36)}-${++slugCounter}`;

interface CreatedKey {
  id: string;
  secret: string;
  prefix: string;
  name: string;
  scopes: string[];
  audience: string;
  expires_at: string | null;
}

async function createKey(
  target: Target,
  workspace: string,
  extra: string[] = [],
  options: { scopes?: string; name?: string; env?: Record<string, string> } = {},
): Promise<CreatedKey> {
  const key = (await cliJson(
    ["keys", "create", "--workspace", workspace, "--name", options.name ?? "e2e key", "--scopes", options.scopes ?? "memory.read", ...extra, ...target.flags],
    { env: options.env },
  )) as CreatedKey;
  remember(key.secret);
  return key;
}

async function createWorkspace(target: Target, name: string, credits = 10): Promise<void> {
  await cliOk(["workspaces", "create", name, "--credits", String(credits), ...target.flags]);
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

function expectErrorEnvelope(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  expect(Object.keys(res.json)).toEqual(["error"]);
  expect(typeof res.json.error.message).toBe("string");
  expect(res.json.error.message.length).toBeGreaterThan(0);
  for (const field of Object.keys(res.json.error)) expect(["code", "message", "details"]).toContain(field);
  expect(res.headers.get("content-type") ?? "").toContain("application/json");
  expect(res.headers.get("x-request-id")).toBeTruthy();
}

function expectRateHeaders(res: HttpResult): void {
  const limit = res.headers.get("x-ratelimit-limit");
  const remaining = res.headers.get("x-ratelimit-remaining");
  const reset = res.headers.get("x-ratelimit-reset");
  expect({ limit, remaining: /^\d+$/.test(remaining ?? ""), reset: /^\d+$/.test(reset ?? "") }).toEqual({
    limit: "120",
    remaining: true,
    reset: true,
  });
  expect(Number(remaining)).toBeLessThanOrEqual(120);
  const now = Date.now() / 1000;
  expect(Number(reset)).toBeGreaterThan(now - 1);
  expect(Number(reset)).toBeLessThanOrEqual(now + 61);
}

const whoami = (server: ServerHandle, key?: string, headers?: Record<string, string>): Promise<HttpResult> =>
  request(server.url, "/v1/whoami", { key, headers });

/** Waits until at least `secondsLeft` remain in the current fixed 60 s rate window. */
async function awaitRoomyWindow(secondsLeft: number): Promise<void> {
  const intoWindow = (Date.now() / 1000) % 60;
  if (60 - intoWindow < secondsLeft) await Bun.sleep((60 - intoWindow) * 1000 + 250);
}

/** Runs `tasks` with at most `limit` in flight, keeping results in order. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const index = next++;
        const task = tasks[index];
        if (task) results[index] = await task();
      }
    }),
  );
  return results;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(25);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  await ensureBinary();
}, 300_000);

afterAll(async () => {
  await cleanup();
  for (const url of pgDatabases) await dropPostgresDatabase(url).catch(() => undefined);
});

describe("memoryd command line (no database)", () => {
  test("--version prints the package.json version", async () => {
    const result = await runCli(["--version"]);
    expect(result).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("--help exits 0 and lists every command", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    for (const command of [
      "memoryd serve",
      "--port",
      "--host",
      "--data-dir",
      "--database-url",
      "memoryd migrate",
      "memoryd workspaces create",
      "memoryd keys create",
      "--scopes",
      "--audience",
      "--expires-at",
      "memoryd keys list",
      "memoryd keys revoke",
      "memoryd credits set|add",
      "memoryd team add",
      "memoryd facts pin|unpin",
      "memoryd facts import",
      "memoryd facts export",
      "--version",
    ]) {
      expect(result.stdout).toContain(command);
    }
  });

  test("no command prints the usage on stdout and exits 2", async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("memoryd serve");
  });

  const badInvocations: { name: string; args: string[]; env?: Record<string, string>; names: string }[] = [
    { name: "an unknown command", args: ["frobnicate"], names: "frobnicate" },
    { name: "an unknown subcommand", args: ["keys", "frobnicate"], names: "keys frobnicate" },
    { name: "an unknown flag", args: ["serve", "--bogus-flag"], names: "--bogus-flag" },
    { name: "--port abc", args: ["serve", "--port", "abc"], names: "--port" },
    { name: "--port 70000", args: ["serve", "--port", "70000"], names: "--port" },
    { name: "env PORT=abc", args: ["serve"], env: { PORT: "abc" }, names: "PORT" },
    { name: "env MEMORYD_DEPLOYMENT=prod", args: ["serve"], env: { MEMORYD_DEPLOYMENT: "prod" }, names: "MEMORYD_DEPLOYMENT" },
    { name: "env MEMORYD_LOG_LEVEL=loud", args: ["serve"], env: { MEMORYD_LOG_LEVEL: "loud" }, names: "MEMORYD_LOG_LEVEL" },
    { name: "env DATABASE_URL=mysql://x", args: ["serve"], env: { DATABASE_URL: "mysql://x" }, names: "DATABASE_URL" },
  ];
  for (const bad of badInvocations) {
    test(`${bad.name} exits 2 with one clear line naming it`, async () => {
      const cwd = tempDir();
      const result = await runCli(bad.args, { env: bad.env, cwd, timeoutMs: 10_000 });
      expect(result.code).toBe(2);
      const line = oneLine(result);
      expect(line).toStartWith("memoryd: ");
      expect(line).toContain(bad.names);
      expect(result.stdout).toBe("");
      // nothing was started or created on the way to the error
      expect(existsSync(join(cwd, "memoryd-data"))).toBe(false);
    });
  }

  test("a bad DATABASE_URL's value is never echoed", async () => {
    const result = await runCli(["serve"], { env: { DATABASE_URL: "mysql://user:hunter2secret@db/x" }, timeoutMs: 10_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("hunter2secret");
  });
});

// The operator commands behave the same on either database (the serve suites below, which run in
// both modes, use them on each), so their detailed checks run once: on Postgres when available,
// where a command takes a fraction of the embedded database's boot time.
const CLI_KIND: Kind = KINDS.includes("postgres") ? "postgres" : "embedded";

describe(`operator CLI [${CLI_KIND}]`, () => {
  const kind = CLI_KIND;
  let target: Target;
  beforeAll(async () => {
    target = await freshTarget(kind);
  });

  test("workspaces create --json prints {id, slug, credits}; a duplicate slug fails", async () => {
    const name = slug("acme");
    const created = await cliJson(["workspaces", "create", name, "--credits", "5", ...target.flags]);
    expect(Object.keys(created).sort()).toEqual(["credits", "id", "slug"]);
    expect(created.slug).toBe(name);
    expect(created.credits).toBe(5);
    expect(created.id).toMatch(/^ws_[0-9A-Z]{26}$/);

    const human = await cliOk(["workspaces", "create", slug("plain"), ...target.flags]);
    expect(human).toMatch(/^created workspace plain-\S+ \(0 credits\)\n$/);

    const duplicate = await runCli(["workspaces", "create", name, ...target.flags]);
    expect(duplicate.code).not.toBe(0);
    expect(oneLine(duplicate)).toContain("already exists");

    const negative = await runCli(["workspaces", "create", slug("neg"), "--credits", "x", ...target.flags]);
    expect(negative.code).toBe(2);
    expect(oneLine(negative)).toContain("--credits");
  });

  test("keys create --json prints exactly {id, secret, prefix, name, scopes, audience, expires_at}", async () => {
    const workspace = slug("keys");
    await createWorkspace(target, workspace);
    const key = await createKey(target, workspace, ["--audience", "external"], { name: "Support bot" });
    expect(Object.keys(key).sort()).toEqual(KEY_VIEW_FIELDS);
    expect(key.secret).toMatch(SECRET_TEST);
    expect(key.id).toMatch(/^key_[0-9A-Z]{26}$/);
    expect(key.secret.startsWith(key.prefix)).toBe(true);
    expect(key.prefix.length).toBeGreaterThanOrEqual(12);
    expect(key.prefix.length).toBeLessThan(key.secret.length - 24);
    expect(key).toMatchObject({ name: "Support bot", scopes: ["memory.read"], audience: "external", expires_at: null });

    const internal = await createKey(target, workspace, [], { scopes: "memory.read,memory.write,answers.write" });
    expect(internal.audience).toBe("internal");
    expect(internal.scopes).toEqual(ALL_SCOPES);
    expect(internal.secret).not.toBe(key.secret);

    const expiring = await createKey(target, workspace, ["--expires-at", "2099-01-02T03:04:05Z"]);
    expect(expiring.expires_at).toBe("2099-01-02T03:04:05.000Z");

    // Without --json the secret is printed once, on its own line.
    const human = await cliOk(["keys", "create", "--workspace", workspace, "--name", "h", "--scopes", "memory.read", ...target.flags]);
    const secrets = human.match(/ak_test_[0-9A-Za-z]{32,}/g) ?? [];
    for (const s of secrets) remember(s);
    expect(new Set(secrets).size).toBe(1);
    expect(human).toContain("shown once");
  });

  test("MEMORYD_DEPLOYMENT=live issues ak_live_ keys", async () => {
    const workspace = slug("live");
    await createWorkspace(target, workspace);
    const key = await createKey(target, workspace, [], { env: { MEMORYD_DEPLOYMENT: "live" } });
    expect(key.secret).toMatch(SECRET_LIVE);
    expect(key.prefix).toStartWith("ak_live_");
    const test_ = await createKey(target, workspace, [], { env: { MEMORYD_DEPLOYMENT: "test" } });
    expect(test_.secret).toMatch(SECRET_TEST);
  });

  test("keys list never shows a secret or its hash", async () => {
    const workspace = slug("list");
    await createWorkspace(target, workspace);
    const a = await createKey(target, workspace, [], { name: "first" });
    const b = await createKey(target, workspace, ["--audience", "external"], { name: "second", scopes: "memory.read,memory.write" });

    const stdout = await cliOk(["keys", "list", "--workspace", workspace, "--json", ...target.flags]);
    const listed = JSON.parse(stdout);
    expect(Object.keys(listed)).toEqual(["keys"]);
    expect(listed.keys).toHaveLength(2);
    for (const entry of listed.keys) expect(Object.keys(entry).sort()).toEqual(LISTED_KEY_FIELDS);
    expect(listed.keys.map((k: { id: string }) => k.id).sort()).toEqual([a.id, b.id].sort());
    const second = listed.keys.find((k: { id: string }) => k.id === b.id);
    expect(second).toMatchObject({
      prefix: b.prefix,
      name: "second",
      scopes: ["memory.read", "memory.write"],
      audience: "external",
      revoked_at: null,
      expires_at: null,
    });

    const human = await cliOk(["keys", "list", "--workspace", workspace, ...target.flags]);
    expect(human).toContain(a.prefix);
    for (const output of [stdout, human]) {
      for (const key of [a, b]) {
        expect(output).not.toContain(key.secret);
        expect(output).not.toContain(sha256(key.secret));
      }
    }

    const missing = await runCli(["keys", "list", "--workspace", slug("nope"), ...target.flags]);
    expect(missing.code).not.toBe(0);
    expect(oneLine(missing)).toContain("not found");
  });

  test("keys create rejects bad input with one clear line", async () => {
    const workspace = slug("bad");
    await createWorkspace(target, workspace);
    const base = ["keys", "create", "--workspace", workspace, "--name", "n", ...target.flags];
    const cases: { args: string[]; mentions: string }[] = [
      { args: [...base, "--scopes", "memory.read,memory.delete"], mentions: "scopes" },
      { args: [...base, "--scopes", ","], mentions: "scopes" },
      { args: [...base, "--scopes", "memory.read", "--audience", "public"], mentions: "audience" },
      { args: [...base, "--scopes", "memory.read", "--expires-at", "tomorrow"], mentions: "expires_at" },
      { args: [...base], mentions: "--scopes" },
      { args: ["keys", "create", "--name", "n", "--scopes", "memory.read", ...target.flags], mentions: "--workspace" },
      { args: ["keys", "create", "--workspace", slug("ghost"), "--name", "n", "--scopes", "memory.read", ...target.flags], mentions: "not found" },
    ];
    for (const c of cases) {
      const result = await runCli(c.args);
      expect({ args: c.args.slice(0, 8), failed: result.code !== 0 }).toEqual({ args: c.args.slice(0, 8), failed: true });
      const line = oneLine(result);
      expect(line).toStartWith("memoryd: ");
      expect(line).toContain(c.mentions);
      expect(result.stdout).toBe("");
    }
    const listed = await cliJson(["keys", "list", "--workspace", workspace, ...target.flags]);
    expect(listed.keys).toEqual([]);
  });

  test("keys revoke by prefix or id; revoking an unknown key fails", async () => {
    const workspace = slug("revoke");
    await createWorkspace(target, workspace);
    const a = await createKey(target, workspace);
    const b = await createKey(target, workspace);
    const byPrefix = await cliOk(["keys", "revoke", a.prefix, ...target.flags]);
    expect(byPrefix).toContain(a.id);
    const byId = await cliJson(["keys", "revoke", b.id, ...target.flags]);
    expect(byId.id).toBe(b.id);
    expect(typeof byId.revoked_at).toBe("string");
    const listed = await cliJson(["keys", "list", "--workspace", workspace, ...target.flags]);
    for (const key of listed.keys) expect(key.revoked_at).not.toBeNull();
    const unknown = await runCli(["keys", "revoke", "ak_test_doesnotexist", ...target.flags]);
    expect(unknown.code).not.toBe(0);
    expect(oneLine(unknown)).toContain("not found");
  });

  test("credits set, add and show", async () => {
    const workspace = slug("credits");
    await createWorkspace(target, workspace, 5);
    expect(await cliJson(["credits", "show", workspace, ...target.flags])).toEqual({ slug: workspace, credits: 5 });
    expect(await cliJson(["credits", "set", workspace, "40", ...target.flags])).toEqual({ slug: workspace, credits: 40 });
    expect(await cliJson(["credits", "add", workspace, "2", ...target.flags])).toEqual({ slug: workspace, credits: 42 });
    expect(await cliOk(["credits", "show", workspace, ...target.flags])).toBe(`${workspace}: 42 credits\n`);
    expect(await cliOk(["credits", "add", workspace, "8", ...target.flags])).toBe(`${workspace}: 50 credits\n`);

    // a negative amount (after `--`) may lower the balance, never below zero
    expect(await cliJson(["credits", "add", workspace, ...target.flags, "--json", "--", "-15"])).toEqual({ slug: workspace, credits: 35 });
    expect(await cliJson(["credits", "add", workspace, "-5", ...target.flags])).toEqual({ slug: workspace, credits: 30 });
    const belowZero = await runCli(["credits", "add", workspace, "-31", ...target.flags]);
    expect(belowZero.code).not.toBe(0);
    expect(oneLine(belowZero)).toContain("below zero");
    expect(await cliJson(["credits", "show", workspace, ...target.flags])).toEqual({ slug: workspace, credits: 30 });

    const notNumber = await runCli(["credits", "set", workspace, "lots", ...target.flags]);
    expect(notNumber.code).toBe(2);
    expect(oneLine(notNumber)).toContain("lots");
    const missingN = await runCli(["credits", "set", workspace, ...target.flags]);
    expect(missingN.code).toBe(2);
    expect(oneLine(missingN)).toContain("N");
    const unknown = await runCli(["credits", "show", slug("ghost"), ...target.flags]);
    expect(unknown.code).not.toBe(0);
    expect(oneLine(unknown)).toContain("not found");
  });

  test("team add", async () => {
    const workspace = slug("team");
    await createWorkspace(target, workspace);
    expect(await cliJson(["team", "add", workspace, "  Ana   Lopez ", ...target.flags])).toEqual({ workspace, name: "Ana Lopez" });
    expect(await cliOk(["team", "add", workspace, "Bo Chen", ...target.flags])).toContain("Bo Chen");
    // adding the same person again is not an error
    expect(await cliJson(["team", "add", workspace, "ana lopez", ...target.flags])).toEqual({ workspace, name: "ana lopez" });
    const unknown = await runCli(["team", "add", slug("ghost"), "Cy", ...target.flags]);
    expect(unknown.code).not.toBe(0);
    expect(oneLine(unknown)).toContain("not found");
    const missing = await runCli(["team", "add", workspace, ...target.flags]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing)).toContain("NAME");
  });

  test("migrate reports the schema is up to date", async () => {
    const report = await cliJson(["migrate", ...target.flags]);
    expect(report.applied).toEqual([]);
    expect(report.current).toBeGreaterThanOrEqual(1);
  });

  if (kind === "postgres") {
    test("DATABASE_URL works like --database-url", async () => {
      const name = slug("envurl");
      await cliOk(["workspaces", "create", name], { env: { DATABASE_URL: target.databaseUrl } });
      expect(await cliJson(["credits", "show", name, ...target.flags])).toEqual({ slug: name, credits: 0 });
    });
  }
});

describe("operator CLI on an embedded data dir", () => {
  test("without --data-dir the data dir is ./memoryd-data in the working directory", async () => {
    const cwd = tempDir();
    await cliOk(["workspaces", "create", "here"], { cwd });
    expect(existsSync(join(cwd, "memoryd-data"))).toBe(true);
    expect(await cliJson(["credits", "show", "here"], { cwd })).toEqual({ slug: "here", credits: 0 });
    const elsewhere = tempDir();
    const viaEnv = await runCli(["workspaces", "create", "here"], { env: { MEMORYD_DATA_DIR: join(cwd, "memoryd-data") }, cwd: elsewhere });
    expect(viaEnv.code).not.toBe(0);
    expect(oneLine(viaEnv)).toContain("already exists");
    expect(existsSync(join(elsewhere, "memoryd-data"))).toBe(false);
  });

  test("workspace, key, credits and team commands work on a data dir", async () => {
    const target = await freshTarget("embedded");
    const created = await cliJson(["workspaces", "create", "acme", "--credits", "5", ...target.flags]);
    expect(created).toMatchObject({ slug: "acme", credits: 5 });
    const key = await createKey(target, "acme", ["--audience", "external"]);
    expect(Object.keys(key).sort()).toEqual(KEY_VIEW_FIELDS);
    expect(key.secret).toMatch(SECRET_TEST);
    const listed = await cliOk(["keys", "list", "--workspace", "acme", "--json", ...target.flags]);
    expect(JSON.parse(listed).keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(listed).not.toContain(key.secret);
    expect(listed).not.toContain(sha256(key.secret));
    expect(await cliJson(["credits", "add", "acme", "3", ...target.flags])).toEqual({ slug: "acme", credits: 8 });
    expect(await cliJson(["team", "add", "acme", "Ana Lopez", ...target.flags])).toEqual({ workspace: "acme", name: "Ana Lopez" });
    expect((await cliJson(["keys", "revoke", key.prefix, ...target.flags])).revoked_at).not.toBeNull();
  });
});

for (const kind of KINDS) {
  describe(`memoryd serve [${kind}]`, () => {
    test("an empty database gets a bootstrap key printed once; a restart prints none", async () => {
      const target = await freshTarget(kind);
      const first = await serveOn(target);
      expect(first.port).toBeGreaterThan(0);
      expect(first.url).toBe(`http://127.0.0.1:${first.port}`);
      const secret = first.secret ?? "";
      expect(secret).toMatch(SECRET_TEST);
      expect(first.stdout().split(secret).length - 1).toBe(1);
      expect(first.stdout()).toContain('workspace "default"');

      const res = await whoami(first, secret);
      expect(res.status).toBe(200);
      expect(Object.keys(res.json)).toEqual(["data"]);
      expect(Object.keys(res.json.data).sort()).toEqual(["key_audience", "key_name", "key_prefix", "rate_limit", "scopes"]);
      expect(res.json.data).toMatchObject({
        key_name: "bootstrap",
        key_audience: "internal",
        rate_limit: { requests_per_window: 120, window_seconds: 60 },
      });
      expect([...res.json.data.scopes].sort()).toEqual([...ALL_SCOPES].sort());
      expect(secret.startsWith(res.json.data.key_prefix)).toBe(true);
      expect(res.json.data.key_prefix.length).toBeLessThan(secret.length - 24);
      await stopCleanly(first);

      const second = await serveOn(target);
      expect(second.secret).toBeUndefined();
      expect(second.stdout()).not.toMatch(/ak_(test|live)_/);
      expect(second.stdout()).not.toContain("shown once");
      expect((await whoami(second, secret)).status).toBe(200);
      await stopCleanly(second);

      const listed = await cliJson(["keys", "list", "--workspace", "default", ...target.flags]);
      expect(listed.keys).toHaveLength(1);
      expect(listed.keys[0]).toMatchObject({ name: "bootstrap", audience: "internal", revoked_at: null, expires_at: null });
      expect(await cliJson(["credits", "show", "default", ...target.flags])).toEqual({ slug: "default", credits: 1000 });
    });

    test("with MEMORYD_DEPLOYMENT=live the bootstrap key is ak_live_", async () => {
      const target = await freshTarget(kind);
      const server = await serveOn(target, { env: { MEMORYD_DEPLOYMENT: "live" } });
      expect(server.secret ?? "").toMatch(SECRET_LIVE);
      expect((await whoami(server, server.secret)).status).toBe(200);
      await stopCleanly(server);
    });

    test("probes need no key; key errors are 401 api_key_invalid; X-Api-Key works; unknown routes 404", async () => {
      const target = await freshTarget(kind);
      const server = await serveOn(target);
      const secret = server.secret ?? "";
      const requestIds: string[] = [];
      const seen = (res: HttpResult): HttpResult => {
        const id = res.headers.get("x-request-id");
        expect(id).toBeTruthy();
        requestIds.push(id ?? "");
        return res;
      };

      const healthz = seen(await request(server.url, "/healthz"));
      expect({ status: healthz.status, json: healthz.json }).toEqual({ status: 200, json: { data: { status: "ok" } } });
      const readyz = seen(await request(server.url, "/readyz"));
      expect({ status: readyz.status, json: readyz.json }).toEqual({ status: 200, json: { data: { status: "ready", database: kind } } });

      const missing = seen(await whoami(server));
      expectErrorEnvelope(missing, 401, "api_key_invalid");
      expect(missing.json.error.message).toContain("Authorization");

      const wrong = seen(await whoami(server, `ak_test_${"A".repeat(40)}`));
      expectErrorEnvelope(wrong, 401, "api_key_invalid");
      const junk = seen(await whoami(server, "not-a-key"));
      expectErrorEnvelope(junk, 401, "api_key_invalid");
      const wrongHeader = seen(await whoami(server, undefined, { "x-api-key": `ak_test_${"b".repeat(40)}` }));
      expectErrorEnvelope(wrongHeader, 401, "api_key_invalid");

      const viaBearer = seen(await whoami(server, secret));
      expect(viaBearer.status).toBe(200);
      expectRateHeaders(viaBearer);
      const viaHeader = seen(await whoami(server, undefined, { "x-api-key": secret }));
      expect(viaHeader.status).toBe(200);
      expectRateHeaders(viaHeader);
      expect(viaHeader.json).toEqual(viaBearer.json);
      if (viaHeader.headers.get("x-ratelimit-reset") === viaBearer.headers.get("x-ratelimit-reset")) {
        // same window (a minute boundary between the two calls would reset the count)
        expect(Number(viaHeader.headers.get("x-ratelimit-remaining"))).toBe(Number(viaBearer.headers.get("x-ratelimit-remaining")) - 1);
      }
      const lowercaseScheme = seen(await whoami(server, undefined, { authorization: `bearer ${secret}` }));
      expect(lowercaseScheme.status).toBe(200);

      for (const path of ["/v1/nope", "/", "/v1/whoami/extra"]) {
        const notFound = seen(await request(server.url, path, { key: secret }));
        expectErrorEnvelope(notFound, 404, "not_found");
      }
      const unauthenticatedNotFound = seen(await request(server.url, "/v1/nope"));
      expectErrorEnvelope(unauthenticatedNotFound, 404, "not_found");

      expect(new Set(requestIds).size).toBe(requestIds.length);
      await stopCleanly(server);
    });

    test("request logs are JSON lines with method, route, status, duration_ms, key_prefix and no secret", async () => {
      const target = await freshTarget(kind);
      const server = await serveOn(target);
      const secret = server.secret ?? "";
      const wrongSecret = remember(`ak_test_${"Z".repeat(40)}`);
      expect((await whoami(server, secret)).status).toBe(200);
      expect((await whoami(server, undefined, { "x-api-key": secret })).status).toBe(200);
      expect((await whoami(server, wrongSecret)).status).toBe(401);
      expect((await request(server.url, "/v1/nope", { key: secret })).status).toBe(404);
      // lines are written after the response; give the last one a moment (the race with a
      // shutdown is the next test's subject)
      const requestLines = (): Record<string, unknown>[] => logLines(server).filter((line) => line.msg === "request");
      await until(async () => requestLines().length >= 4, 3_000, "4 request log lines").catch(() => undefined);
      await stopCleanly(server);

      const requests = requestLines();
      expect(requests).toHaveLength(4);
      for (const line of requests) {
        expect(line.method).toBe("GET");
        expect(typeof line.route).toBe("string");
        expect(typeof line.status).toBe("number");
        expect(typeof line.duration_ms).toBe("number");
        expect(typeof line.request_id).toBe("string");
      }
      const ok = requests.filter((line) => line.status === 200);
      expect(ok).toHaveLength(2);
      for (const line of ok) expect(line).toMatchObject({ route: "/v1/whoami", key_prefix: secret.slice(0, String(line.key_prefix).length) });
      expect(String(ok[0]?.key_prefix).length).toBeGreaterThanOrEqual(12);
      expect(requests.filter((line) => line.status === 401)).toHaveLength(1);
      expect(requests.filter((line) => line.status === 404)).toHaveLength(1);
      const text = server.stderr() + server.stdout().replace(/^API key \(shown once.*$/m, "");
      expect(text).not.toContain(secret);
      expect(text).not.toContain(wrongSecret);
    });

    test("a request answered just before SIGTERM still gets its log line", async () => {
      const target = await freshTarget(kind);
      let secret: string | undefined;
      for (let round = 1; round <= 3; round++) {
        const server = await serveOn(target);
        secret ??= server.secret;
        const res = await whoami(server, secret);
        expect(res.status).toBe(200);
        server.proc.kill("SIGTERM"); // right after the response arrived
        expect(await server.exited(5_000)).toBe(0);
        const requests = logLines(server).filter((line) => line.msg === "request");
        expect({ round, requestIds: requests.map((line) => line.request_id) }).toEqual({
          round,
          requestIds: [res.headers.get("x-request-id")],
        });
        await stopCleanly(server);
      }
    });

    test("an expired key gets 401 api_key_expired", async () => {
      const target = await freshTarget(kind);
      const workspace = slug("exp");
      await createWorkspace(target, workspace);
      // A key cannot be created already expired (keys create refuses a past --expires-at): let one
      // lapse. On a busy machine the CLI may take longer to start than the margin: then a wider one.
      const lapsing = async (): Promise<{ key: CreatedKey; expiresAt: number }> => {
        for (const margin of [2_000, 10_000, 30_000]) {
          const expiresAt = Date.now() + margin;
          try {
            return { key: await createKey(target, workspace, ["--expires-at", new Date(expiresAt).toISOString()]), expiresAt };
          } catch (error) {
            if (!String(error).includes("is in the past")) throw error;
          }
        }
        throw new Error("keys create never ran within 30 s of being started");
      };
      const { key: past, expiresAt } = await lapsing();
      const future = await createKey(target, workspace, ["--expires-at", new Date(Date.now() + 3_600_000).toISOString()]);
      await Bun.sleep(Math.max(0, expiresAt - Date.now() + 200));
      const server = await serveOn(target);
      expect(server.secret).toBeUndefined(); // the database was not empty
      expectErrorEnvelope(await whoami(server, past.secret), 401, "api_key_expired");
      expect((await whoami(server, future.secret)).status).toBe(200);
      await stopCleanly(server);
    });

    if (kind === "postgres") {
      test("a key revoked with the CLI while serving is refused on the next request", async () => {
        const target = await freshTarget(kind);
        const workspace = slug("rv");
        await createWorkspace(target, workspace);
        const server = await serveOn(target);
        const doomed = await createKey(target, workspace);
        const kept = await createKey(target, workspace);
        const byId = await createKey(target, workspace);
        for (const key of [doomed, kept, byId]) expect((await whoami(server, key.secret)).status).toBe(200);

        await cliOk(["keys", "revoke", doomed.prefix, ...target.flags]);
        expectErrorEnvelope(await whoami(server, doomed.secret), 401, "api_key_revoked");
        expectErrorEnvelope(await whoami(server, undefined, { "x-api-key": doomed.secret }), 401, "api_key_revoked");
        await cliOk(["keys", "revoke", byId.id, ...target.flags]);
        expectErrorEnvelope(await whoami(server, byId.secret), 401, "api_key_revoked");
        expect((await whoami(server, kept.secret)).status).toBe(200);
        await stopCleanly(server);
      });

      test("a key created to expire seconds from now works, then gets 401 api_key_expired", async () => {
        const target = await freshTarget(kind);
        const workspace = slug("exp2");
        await createWorkspace(target, workspace);
        const server = await serveOn(target);
        // The expiry is a time on the clock, and the CLI takes its own time to start: when it
        // returns too close to the expiry to see the key work first, try again with more lead.
        let expiresAt = 0;
        let key: Awaited<ReturnType<typeof createKey>> | undefined;
        for (const lead of [2_000, 5_000, 15_000]) {
          expiresAt = Date.now() + lead;
          key = await createKey(target, workspace, ["--expires-at", new Date(expiresAt).toISOString()]);
          if (Date.now() < expiresAt - 500) break;
        }
        if (key === undefined) throw new Error("no key created");
        expect(Date.now()).toBeLessThan(expiresAt - 300);
        expect((await whoami(server, key.secret)).status).toBe(200);
        let last: HttpResult | undefined;
        await until(
          async () => {
            last = await whoami(server, key.secret);
            return last.status !== 200;
          },
          20_000,
          "the key to expire",
        );
        expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 100);
        expectErrorEnvelope(last as HttpResult, 401, "api_key_expired");
        await stopCleanly(server);
      });

      test("two servers on one database share one rate limit per key", async () => {
        const target = await freshTarget(kind);
        const workspace = slug("rl");
        await createWorkspace(target, workspace);
        const key = await createKey(target, workspace);
        const other = await createKey(target, workspace);
        const [a, b] = await Promise.all([serveOn(target), serveOn(target)]);
        if (!a || !b) throw new Error("servers did not start");
        expect(a.port).not.toBe(b.port);

        await awaitRoomyWindow(8);
        const tasks = Array.from(
          { length: 140 },
          (_, i) => () => whoami(i % 2 === 0 ? a : b, key.secret).then((res) => ({ res, server: i % 2 === 0 ? "a" : "b" })),
        );
        const results = await pool(tasks, 20);
        const ok = results.filter((r) => r.res.status === 200);
        const limited = results.filter((r) => r.res.status === 429);
        expect({ ok: ok.length, limited: limited.length }).toEqual({ ok: 120, limited: 20 });
        expect(results.filter((r) => r.server === "a")).toHaveLength(70);
        // all in one window
        expect(new Set(results.map((r) => r.res.headers.get("x-ratelimit-reset"))).size).toBe(1);
        const remaining = ok.map((r) => Number(r.res.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y);
        expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => i));
        for (const { res } of limited) {
          expectErrorEnvelope(res, 429, "rate_limited");
          expect(res.json.error.details).toEqual({ retry_after_seconds: 60 });
          expect(res.headers.get("retry-after")).toBe("60");
          expectRateHeaders(res);
          expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
        }
        // the limit is per key: another key of the same workspace is unaffected
        expect((await whoami(a, other.secret)).status).toBe(200);
        expect((await whoami(b, other.secret)).status).toBe(200);
        await Promise.all([stopCleanly(a), stopCleanly(b)]);
      });

      test("two servers starting together on an empty database bootstrap exactly once", async () => {
        const target = await freshTarget(kind);
        const servers = await Promise.all([serveOn(target), serveOn(target), serveOn(target)]);
        const secrets = servers.map((s) => s.secret).filter((s): s is string => s !== undefined);
        expect(secrets).toHaveLength(1);
        for (const server of servers) expect((await whoami(server, secrets[0])).status).toBe(200);
        await Promise.all(servers.map((s) => stopCleanly(s)));
        const listed = await cliJson(["keys", "list", "--workspace", "default", ...target.flags]);
        expect(listed.keys).toHaveLength(1);
      });

      test("an in-flight request started just before SIGTERM still completes", async () => {
        const target = await freshTarget(kind);
        const server = await serveOn(target);
        const secret = server.secret ?? "";
        expect((await whoami(server, secret)).status).toBe(200);

        // Hold a lock the authentication query needs, so the request is provably in flight.
        const sql = postgres(target.databaseUrl ?? "", { max: 2, onnotice: () => {} });
        try {
          let release!: () => void;
          const released = new Promise<void>((r) => {
            release = r;
          });
          let locked!: () => void;
          const isLocked = new Promise<void>((r) => {
            locked = r;
          });
          const holder = sql.begin(async (tx) => {
            await tx`LOCK TABLE rate_limit_hits IN SHARE MODE`;
            locked();
            await released;
          });
          await isLocked;
          const inFlight = whoami(server, secret);
          await until(
            async () => {
              const rows = await sql<{ n: number }[]>`
                SELECT count(*)::int AS n FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name = 'memoryd' AND wait_event_type = 'Lock'`;
              return (rows[0]?.n ?? 0) > 0;
            },
            5_000,
            "the request to wait on the lock",
          );
          server.proc.kill("SIGTERM");
          await Bun.sleep(300);
          expect(server.proc.exitCode).toBeNull(); // still draining
          release();
          await holder;
          const res = await inFlight;
          expect(res.status).toBe(200);
          expect(res.json.data.key_name).toBe("bootstrap");
          expect(await server.exited(5_000)).toBe(0);
        } finally {
          await sql.end({ timeout: 1 });
        }
        await stopCleanly(server);
      });
    }

    if (kind === "embedded") {
      test("a second process on a held data dir fails with a clear in-use error and harms nothing", async () => {
        const target = await freshTarget(kind);
        const server = await serveOn(target);
        const secret = server.secret ?? "";
        expect((await whoami(server, secret)).status).toBe(200);

        const cli = await runCli(["workspaces", "create", "intruder", ...target.flags], { timeoutMs: 15_000 });
        expect(cli.code).not.toBe(0);
        const cliLine = oneLine(cli);
        expect(cliLine).toContain("in use");
        expect(cliLine).toContain(String(server.proc.pid));

        const second = await runCli(["serve", "--port", "0", ...target.flags], { timeoutMs: 15_000 });
        expect(second.code).not.toBe(0);
        expect(second.stderr).toContain("in use");
        expect(second.stdout).not.toContain("listening");
        expect(second.stdout).not.toMatch(/ak_(test|live)_/);

        for (const args of [["keys", "list", "--workspace", "default"], ["migrate"]]) {
          const other = await runCli([...args, ...target.flags], { timeoutMs: 15_000 });
          expect(other.code).not.toBe(0);
          expect(other.stderr).toContain("in use");
        }

        // the running server is unharmed and still holds the directory
        await waitReady(server.url);
        expect((await whoami(server, secret)).status).toBe(200);
        expect(JSON.parse(readFileSync(join(target.dataDir ?? "", "memoryd.owner.json"), "utf8")).pid).toBe(server.proc.pid);
        await stopCleanly(server);

        // once it stopped, the directory is free, and nothing the intruders tried happened
        expect(existsSync(join(target.dataDir ?? "", "memoryd.lock"))).toBe(false);
        const missing = await runCli(["credits", "show", "intruder", ...target.flags]);
        expect(oneLine(missing)).toContain("not found");
        expect(await cliJson(["credits", "show", "default", ...target.flags])).toEqual({ slug: "default", credits: 1000 });
      });

      test("one server refuses the 121st request of a window with 429 rate_limited", async () => {
        const target = await freshTarget(kind);
        const server = await serveOn(target);
        const secret = server.secret ?? "";
        await awaitRoomyWindow(8);
        const results = await pool(
          Array.from({ length: 125 }, () => () => whoami(server, secret)),
          10,
        );
        expect(results.filter((r) => r.status === 200)).toHaveLength(120);
        const limited = results.filter((r) => r.status === 429);
        expect(limited).toHaveLength(5);
        for (const res of limited) {
          expectErrorEnvelope(res, 429, "rate_limited");
          expect(res.json.error.details).toEqual({ retry_after_seconds: 60 });
          expect(res.headers.get("retry-after")).toBe("60");
        }
        await stopCleanly(server);
      });

      test("requests racing SIGTERM either complete with 200 or are refused, never broken", async () => {
        const target = await freshTarget(kind);
        const server = await serveOn(target);
        const secret = server.secret ?? "";
        const attempts = Array.from({ length: 30 }, () =>
          whoami(server, secret).then(
            (res) => res.status,
            () => "refused" as const,
          ),
        );
        await Promise.race(attempts);
        server.proc.kill("SIGTERM");
        const outcomes = await Promise.all(attempts);
        expect(outcomes.filter((o) => o !== 200 && o !== "refused")).toEqual([]);
        expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(0);
        expect(await server.exited(5_000)).toBe(0);
        await stopCleanly(server);
      });
    }

    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      test(`${signal} stops the server with exit code 0 within a few seconds`, async () => {
        const target = await freshTarget(kind);
        const server = await serveOn(target);
        expect((await whoami(server, server.secret)).status).toBe(200); // leaves a keep-alive connection open
        const began = Date.now();
        server.proc.kill(signal);
        const code = await server.exited(5_000);
        expect({ code, withinMs: Date.now() - began < 5_000 }).toEqual({ code: 0, withinMs: true });
        expect(logLines(server).some((line) => line.msg === "stopped")).toBe(true);
        await stopCleanly(server);
        await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
        if (kind === "embedded") {
          expect(existsSync(join(target.dataDir ?? "", "memoryd.lock"))).toBe(false);
          const again = await serveOn(target);
          expect(again.secret).toBeUndefined();
          expect((await whoami(again, server.secret)).status).toBe(200);
          await stopCleanly(again);
        }
      });
    }
  });
}
