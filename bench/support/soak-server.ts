/**
 * The soak test's handle on the compiled binary: `memoryd serve` on an embedded data directory
 * (port 0 on loopback; the URL and the bootstrap key are read from its stdout, as
 * test/e2e/binary.ts does), `/proc` readings of the server (open descriptors, RSS), and the CLI
 * commands run beside it (`backup --url`, `facts export`, `doctor`, `restore`).
 *
 * The server's stderr (its JSON log) is written to a file as it arrives, and its warn and error
 * lines are also kept in memory for the report.
 */
import { appendFileSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

const LISTENING = /memoryd listening on (http:\/\/\S+)/;
const BOOTSTRAP_SECRET = /API key \(shown once[^)]*\)[^:]*:\s*(ak_(?:test|live)_[0-9A-Za-z]+)/;

/** Our environment minus every setting memoryd reads, plus `extra` (a value of `undefined` removes a key). */
export function memorydEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
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

/** A warn or error line of the server's log. */
export interface LogLine {
  level: string;
  msg: string;
  line: string;
}

export interface SoakServer {
  url: string;
  pid: number;
  /** The bootstrap key, when this start created the `default` workspace. */
  secret: string | undefined;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  stdout(): string;
  /** Warn and error lines of its log so far. */
  problems(): LogLine[];
  /** Lines of its log so far. */
  logLines(): number;
  /** SIGKILL, and wait for the process to be gone. */
  kill9(): Promise<number | null>;
  /** SIGTERM; resolves with the exit code, or null when it did not exit within `timeoutMs` (then it is SIGKILLed). */
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  binary: string;
  dataDir: string;
  env: Record<string, string>;
  /** The server's stdout and stderr are appended here. */
  logFile: string;
  cwd: string;
  startupTimeoutMs?: number;
}

/** Servers this process started that may still run (by pid). */
const started = new Set<Subprocess>();

/** SIGKILLs every server this process started that is still running: for a bench interrupted by a signal. */
export function killStartedServers(): void {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  started.clear();
}

/** Spawns `memoryd serve --port 0 --host 127.0.0.1 --data-dir DIR` and waits for its "listening on URL" line. */
export async function startMemoryd(options: StartOptions): Promise<SoakServer> {
  const proc = Bun.spawn([options.binary, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", options.dataDir], {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  started.add(proc);
  void proc.exited.then(() => started.delete(proc));
  let stdout = "";
  let lines = 0;
  const problems: LogLine[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>, onText: (text: string) => void) => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
    } catch {
      // the process died; what arrived is kept
    }
    onText(decoder.decode());
  };
  let partial = "";
  const stdoutDone = pump(proc.stdout, (text) => {
    stdout += text;
    appendFileSync(options.logFile, text);
  });
  const stderrDone = pump(proc.stderr, (text) => {
    appendFileSync(options.logFile, text);
    partial += text;
    const complete = partial.split("\n");
    partial = complete.pop() ?? "";
    for (const line of complete) {
      if (line.trim() === "") continue;
      lines += 1;
      let parsed: { level?: string; msg?: string } | undefined;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      const level = parsed?.level ?? "unparsed";
      if (level !== "info" && level !== "debug") problems.push({ level, msg: parsed?.msg ?? line.slice(0, 200), line });
    }
  });

  const deadline = Date.now() + (options.startupTimeoutMs ?? 60_000);
  let match: RegExpExecArray | null = null;
  while (Date.now() < deadline) {
    match = LISTENING.exec(stdout);
    if (match !== null || proc.exitCode !== null || proc.signalCode !== null) break;
    await Bun.sleep(20);
  }
  if (match?.[1] === undefined) {
    proc.kill("SIGKILL");
    await proc.exited;
    await Promise.all([stdoutDone, stderrDone]);
    throw new Error(`memoryd serve did not start (exit ${proc.exitCode}); its output is in ${options.logFile}\n${stdout}`);
  }
  const url = match[1];
  const secret = BOOTSTRAP_SECRET.exec(stdout)?.[1];

  const waitExit = async (timeoutMs: number): Promise<number | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([proc.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs)))]);
    clearTimeout(timer);
    if (code !== null) await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(2000)]);
    return code;
  };

  return {
    url,
    pid: proc.pid,
    secret,
    proc,
    stdout: () => stdout,
    problems: () => problems,
    logLines: () => lines,
    async kill9() {
      proc.kill("SIGKILL");
      return waitExit(30_000);
    },
    async stop(timeoutMs = 30_000) {
      proc.kill("SIGTERM");
      const code = await waitExit(timeoutMs);
      if (code === null) {
        proc.kill("SIGKILL");
        await waitExit(10_000);
      }
      return code;
    },
  };
}

/** Open file descriptors of a process (`/proc/PID/fd`), NaN once it is gone. */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

/** The open descriptors of a process, split by what they point at. */
export interface FdReading {
  total: number;
  /** Files under the data directory (PGlite's relation files, WAL): bounded by the files there. */
  dataFiles: number;
  /** Descriptors of a data-directory file that another descriptor also holds open. */
  duplicateDataFiles: number;
  /** Descriptors of files that were deleted ("… (deleted)"), memfds aside. */
  deletedFiles: number;
  /** TCP sockets in ESTABLISHED: the clients' open connections (they come and go with the load). */
  connections: number;
  /** TCP sockets in CLOSE_WAIT: the client closed, the server did not (yet). */
  closeWait: number;
  /** Everything but data files and open connections: the listening socket, CLOSE_WAIT sockets, pipes, event and timer descriptors, /dev files. */
  other: number;
  /** Up to 5 descriptions of duplicate or deleted descriptors seen in this reading. */
  oddities: string[];
}

const TCP_STATES: Record<string, string> = { "01": "ESTABLISHED", "08": "CLOSE_WAIT", "0A": "LISTEN" };

/** Socket inode -> TCP state name, from the process's network namespace. */
function socketStates(pid: number): Map<string, string> {
  const states = new Map<string, string>();
  for (const file of ["tcp", "tcp6"]) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      states.set(fields[9]!, TCP_STATES[fields[3]!] ?? `state ${fields[3]}`);
    }
  }
  return states;
}

/** Reads `/proc/PID/fd`; every count NaN once the process is gone. */
export function readFds(pid: number, dataDir: string): FdReading {
  const prefix = dataDir.endsWith("/") ? dataDir : `${dataDir}/`;
  let names: string[];
  try {
    names = readdirSync(`/proc/${pid}/fd`);
  } catch {
    const nan = Number.NaN;
    return { total: nan, dataFiles: nan, duplicateDataFiles: nan, deletedFiles: nan, connections: nan, closeWait: nan, other: nan, oddities: [] };
  }
  const states = socketStates(pid);
  const seen = new Set<string>();
  const reading: FdReading = { total: 0, dataFiles: 0, duplicateDataFiles: 0, deletedFiles: 0, connections: 0, closeWait: 0, other: 0, oddities: [] };
  for (const fd of names) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    reading.total += 1;
    // A memfd (anonymous memory the runtime maps) has no name on disk: it always reads "(deleted)".
    if (target.endsWith(" (deleted)") && !target.startsWith("/memfd:")) {
      reading.deletedFiles += 1;
      if (reading.oddities.length < 5) reading.oddities.push(`fd ${fd} -> ${target}`);
    }
    const socket = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    const state = socket === undefined ? undefined : states.get(socket);
    if (target.startsWith(prefix)) {
      reading.dataFiles += 1;
      if (seen.has(target)) {
        reading.duplicateDataFiles += 1;
        if (reading.oddities.length < 5) reading.oddities.push(`fd ${fd} -> ${target} (open twice)`);
      }
      seen.add(target);
    } else if (state === "ESTABLISHED") reading.connections += 1;
    else {
      if (state === "CLOSE_WAIT") reading.closeWait += 1;
      reading.other += 1;
    }
  }
  return reading;
}

/** What the open descriptors of a process are, grouped (`/tmp/x/base/1/2` -> `/tmp/x/base/N/N`): for a report of a leak. */
export function fdKinds(pid: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const kind = target.replace(/\d+/g, "N");
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
  } catch {
    // gone
  }
  return kinds;
}

/** User + system CPU seconds a process has used so far (NaN once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
  } catch {
    return Number.NaN;
  }
}

/** The machine's 1-minute load average: on a shared machine, what else was running. */
export function loadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
}

/** Bytes of the files under `dir` (recursively), in MB; NaN when it cannot be read. */
export function directoryMb(dir: string): number {
  let bytes = 0;
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      try {
        if (entry.isDirectory()) walk(child);
        else if (entry.isFile()) bytes += statSync(child).size;
      } catch {
        // removed meanwhile
      }
    }
  };
  try {
    walk(dir);
  } catch {
    return Number.NaN;
  }
  return bytes / 1024 / 1024;
}

/** Resident set size (`VmRSS` of `/proc/PID/status`) in MB, NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `BINARY ARGS…` to completion (SIGKILL after `timeoutMs`). */
export async function runMemorydCli(binary: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs = 300_000): Promise<CliResult> {
  const started = performance.now();
  const proc = Bun.spawn([binary, ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Writes `text` to `file` (for the report's artefacts). */
export function writeArtefact(file: string, text: string): void {
  writeFileSync(file, text);
}
