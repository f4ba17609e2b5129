/**
 * Process helpers for the benches: spawn a server and wait for its "listening on URL" line, read
 * a process's RSS and CPU time from /proc, and sum the CPU time of the PostgreSQL server.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export const CLOCK_TICKS = 100; // USER_HZ on Linux

export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** User + system CPU seconds a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm may contain spaces: fields start after the closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds of the PostgreSQL backends connected to `database` (their process title names it),
 * or of every `postgres` process when no database is given. Backends that exited since the last
 * reading take their time with them, so deltas are a lower bound; memoryd keeps its pool
 * connections open, so over a scenario the error is small.
 */
export function postgresCpuSeconds(database?: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      if (database !== undefined) {
        const title = readFileSync(`/proc/${entry}/cmdline`, "utf8");
        if (!title.includes(` ${database} `)) continue;
      }
      total += cpuSeconds(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** CPU seconds per PostgreSQL backend connected to `database` (by pid). */
function backendCpu(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(` ${database} `)) continue;
      out.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * CPU time the backends of one database use over an interval, sampled every 100 ms so that
 * backends which start or exit meanwhile still count (up to their last sample).
 */
export function samplePostgresCpu(database: string): { stop(): number } {
  const first = backendCpu(database);
  const last = new Map(first);
  const seenLater = new Set<number>();
  const timer = setInterval(() => {
    for (const [pid, cpu] of backendCpu(database)) {
      if (!first.has(pid)) seenLater.add(pid);
      last.set(pid, cpu);
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      for (const [pid, cpu] of backendCpu(database)) {
        if (!first.has(pid)) seenLater.add(pid);
        last.set(pid, cpu);
      }
      let total = 0;
      for (const [pid, cpu] of last) total += seenLater.has(pid) ? cpu : cpu - (first.get(pid) ?? 0);
      return total;
    },
  };
}

/** Whole-machine busy CPU seconds (all cores) from /proc/stat. */
export function machineBusySeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - idle) / CLOCK_TICKS;
}

export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

export interface Spawned {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Spawns `cmd`, collects stdout+stderr, resolves once a line matches `ready` (group 1 = URL). */
export async function spawnUntil(
  cmd: string[],
  ready: RegExp,
  options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<Spawned> {
  const proc = Bun.spawn(cmd, {
    env: Object.fromEntries(Object.entries({ ...process.env, ...options.env }).filter(([, v]) => v !== undefined)) as Record<string, string>,
    cwd: options.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  let resolveUrl: (url: string) => void = () => {};
  const found = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length > 200_000) text = text.slice(-100_000);
      const match = ready.exec(text);
      if (match?.[1]) resolveUrl(match[1]);
    }
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  const timeout = Bun.sleep(options.timeoutMs ?? 60_000).then(() => null);
  const url = await Promise.race([found, timeout, proc.exited.then(() => null)]);
  if (url === null) {
    proc.kill("SIGKILL");
    await proc.exited;
    throw new Error(`${cmd.join(" ")} did not become ready:\n${text.slice(-4000)}`);
  }
  return {
    proc,
    url,
    output: () => text,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)]);
      if (!exited) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    },
  };
}
