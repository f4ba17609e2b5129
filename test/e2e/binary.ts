/**
 * Helpers for end-to-end tests against the compiled executable `dist/memoryd`.
 *
 * Every process is spawned from a fresh, empty temp directory (no node_modules, no package.json
 * beside it), so the tests prove the single binary carries everything it needs. Every process and
 * temp directory is tracked; `cleanup()` (call it in `afterAll`) kills leftovers and removes them.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { processAlive } from "../../src/db/data-dir-lock";

export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(REPO_ROOT, "dist", "memoryd");
const BUILD_LOCK = join(REPO_ROOT, "dist", ".e2e-build.lock");

const tempDirs = new Set<string>();
const liveProcs = new Set<Subprocess>();

/** A fresh empty directory under the OS temp dir, removed by `cleanup()`. */
export function tempDir(label = "memoryd-e2e-"): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  tempDirs.add(dir);
  return dir;
}

let ensuring: Promise<string> | undefined;

/** True when the binary exists and no source file, migration or manifest is newer than it. */
function binaryIsFresh(): boolean {
  if (!existsSync(BINARY)) return false;
  const built = statSync(BINARY).mtimeMs;
  const sources = [join(REPO_ROOT, "package.json"), join(REPO_ROOT, "bun.lock")];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else sources.push(path);
    }
  };
  walk(join(REPO_ROOT, "src"));
  return sources.every((path) => !existsSync(path) || statSync(path).mtimeMs <= built);
}

/**
 * Builds `dist/memoryd` with `bun run build` unless an up-to-date one exists. Memoised in-process, and
 * guarded by a lock file across processes, so parallel test runs never build twice at once.
 */
export function ensureBinary(): Promise<string> {
  ensuring ??= buildOnce().catch((error: unknown) => {
    ensuring = undefined;
    throw error;
  });
  return ensuring;
}

async function buildOnce(): Promise<string> {
  if (binaryIsFresh() && !existsSync(BUILD_LOCK)) return BINARY;
  mkdirSync(join(REPO_ROOT, "dist"), { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  // Take the lock, or wait for whoever holds it to finish.
  for (;;) {
    try {
      const fd = openSync(BUILD_LOCK, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let holder = Number.NaN;
      try {
        holder = Number.parseInt(readFileSync(BUILD_LOCK, "utf8"), 10);
      } catch {
        continue; // released between our open and read
      }
      if (Number.isFinite(holder) && holder !== process.pid && processAlive(holder)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for the build held by pid ${holder}`);
        await Bun.sleep(200);
        continue;
      }
      rmSync(BUILD_LOCK, { force: true }); // stale lock of a dead process
    }
  }
  try {
    if (binaryIsFresh()) return BINARY; // someone else built it while we waited
    const proc = Bun.spawn([process.execPath, "run", "build"], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 || !existsSync(BINARY)) {
      throw new Error(`bun run build failed (exit ${code}):\n${stdout}\n${stderr}`);
    }
    return BINARY;
  } finally {
    rmSync(BUILD_LOCK, { force: true });
  }
}

/**
 * The environment a spawned binary sees: ours minus every setting memoryd reads (so a developer's
 * DATABASE_URL or PORT cannot leak into a test), plus `extra`. A value of `undefined` removes a key.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(DATABASE_URL|PORT|HOST|MEMORYD_.*|ANTHROPIC_.*|OPENAI_.*)$/.test(name)) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** Defaults to a fresh empty temp directory. */
  cwd?: string;
  timeoutMs?: number;
  /** Run `bun src/main.ts` (the source entry point) instead of the binary: modules then load as they are first imported. */
  fromSource?: boolean;
}

/** Runs `dist/memoryd ARGS…` (or the source entry point) to completion. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const command = options.fromSource === true ? [process.execPath, join(REPO_ROOT, "src", "main.ts")] : [await ensureBinary()];
  const proc = Bun.spawn([...command, ...args], {
    cwd: options.cwd ?? tempDir("memoryd-e2e-cwd-"),
    env: childEnv(options.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  liveProcs.add(proc);
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    liveProcs.delete(proc);
  }
}

/** `runCli` that insists on exit 0 and returns stdout. */
export async function cliOk(args: string[], options: CliOptions = {}): Promise<string> {
  const result = await runCli(args, options);
  if (result.code !== 0) {
    throw new Error(`memoryd ${args.join(" ")} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
  return result.stdout;
}

/** Collects a stream's text as it arrives, and lets callers wait for a pattern. */
class StreamTap {
  text = "";
  ended = false;
  private waiters = new Set<() => void>();

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.pump(stream);
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.text += decoder.decode(chunk, { stream: true });
        this.notify();
      }
    } catch {
      // the process died; whatever arrived stays in `text`
    } finally {
      this.text += decoder.decode();
      this.ended = true;
      this.notify();
    }
  }

  /** Resolves once the stream has ended (or after `timeoutMs`). */
  async drained(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await Bun.sleep(10);
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves with the first match of `pattern`, or null when the stream ends or time runs out. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray | null> {
    return new Promise((resolveWait) => {
      const check = (): boolean => {
        const match = pattern.exec(this.text);
        if (match || this.ended) {
          this.waiters.delete(check);
          clearTimeout(timer);
          resolveWait(match);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolveWait(pattern.exec(this.text));
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }
}

export interface StartOptions {
  /** Embedded mode: the data directory (created when missing). */
  dataDir?: string;
  /** Postgres mode. */
  databaseUrl?: string;
  env?: Record<string, string | undefined>;
  /** Extra arguments after `serve`. */
  args?: string[];
  cwd?: string;
  startupTimeoutMs?: number;
}

export interface ServerHandle {
  url: string;
  port: number;
  /** The bootstrap secret, when this start created the `default` workspace. */
  secret: string | undefined;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code; SIGKILLs after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number>;
  /** Resolves with the exit code, or null if the process is still running after `timeoutMs`. */
  exited(timeoutMs: number): Promise<number | null>;
}

const LISTENING = /memoryd listening on (http:\/\/\S+)/;
const BOOTSTRAP_SECRET = /API key \(shown once[^)]*\)[^:]*:\s*(ak_(?:test|live)_[0-9A-Za-z]+)/;

/**
 * Spawns `dist/memoryd serve --port 0 --host 127.0.0.1` on the given database and waits for its
 * "memoryd listening on URL" line. Rejects (with the process's output) if it exits first.
 */
export async function startServer(options: StartOptions = {}): Promise<ServerHandle> {
  const binary = await ensureBinary();
  const dbArgs =
    options.databaseUrl !== undefined ? ["--database-url", options.databaseUrl] : options.dataDir !== undefined ? ["--data-dir", options.dataDir] : [];
  const proc = Bun.spawn([binary, "serve", "--port", "0", "--host", "127.0.0.1", ...dbArgs, ...(options.args ?? [])], {
    cwd: options.cwd ?? tempDir("memoryd-e2e-cwd-"),
    env: childEnv(options.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  liveProcs.add(proc);
  void proc.exited.then(() => liveProcs.delete(proc));
  const out = new StreamTap(proc.stdout);
  const err = new StreamTap(proc.stderr);

  const match = await out.waitFor(LISTENING, options.startupTimeoutMs ?? 30_000);
  if (!match?.[1]) {
    proc.kill("SIGKILL");
    await proc.exited;
    await Promise.all([out.drained(1000), err.drained(1000)]);
    throw new Error(`memoryd serve did not start (exit ${proc.exitCode})\nstdout: ${out.text}\nstderr: ${err.text}`);
  }
  const url = match[1];
  const port = Number(new URL(url).port);
  const secret = BOOTSTRAP_SECRET.exec(out.text)?.[1];

  const exited = async (timeoutMs: number): Promise<number | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([
      proc.exited,
      new Promise<null>((r) => {
        timer = setTimeout(() => r(null), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (result !== null) {
      // let the taps drain what the process wrote last
      await Promise.all([out.drained(1000), err.drained(1000)]);
    }
    return result;
  };

  return {
    url,
    port,
    secret,
    proc,
    stdout: () => out.text,
    stderr: () => err.text,
    exited,
    async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = 15_000): Promise<number> {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited(timeoutMs);
      if (code !== null) return code;
      proc.kill("SIGKILL");
      return (await exited(5_000)) ?? -1;
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

/** One HTTP request; `key` goes in `Authorization: Bearer`. */
export async function request(
  baseUrl: string,
  path: string,
  options: { method?: string; key?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const response = await fetch(`${baseUrl}${path}`, { method: options.method ?? "GET", headers, body: options.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** Polls `/readyz` until it answers 200 (instead of sleeping). */
export async function waitReady(baseUrl: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await Bun.sleep(50);
  }
  throw new Error(`${baseUrl}/readyz not ready after ${timeoutMs} ms: ${last}`);
}

/** Kills every process these helpers started that is still running, and removes temp dirs. */
export async function cleanup(): Promise<void> {
  const procs = [...liveProcs];
  for (const proc of procs) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  }
  await Promise.all(procs.map((p) => p.exited.catch(() => undefined)));
  liveProcs.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
