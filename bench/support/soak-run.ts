/**
 * One soak run of the compiled binary on a fresh embedded data directory, as bench/soak.ts and
 * test/e2e/soak.test.ts both run it:
 *
 *  1. `memoryd serve` on an empty data directory, a webhook endpoint (every fact and answer event)
 *     pointing at a loopback sink, credits, and a pool of API keys (so that no key reaches the
 *     120 requests a minute limit).
 *  2. The mixed load (soak-load.ts) for `minutes`, sampled every `intervalMs` (soak-stats.ts), with
 *     `memoryd backup FILE --url URL` every `backupEveryMs`.
 *  3. The crash under write: teachers keep teaching while the server is killed with SIGKILL.
 *  4. A restart on the same data directory; every fact acknowledged (202) and not deliberately
 *     deleted must be listed by the admin facts API (history included), and no deleted one; the
 *     queued answers must finish; every such fact's `fact.created` must reach the sink.
 *  5. A graceful stop, `memoryd facts export` (the same check from the other side), `memoryd
 *     doctor --json`, and the last backup restored into a new directory and exported: every fact
 *     acknowledged before that backup began is in it.
 *
 * Nothing here decides pass or fail: soak-report.ts does, from the `SoakReport` returned.
 */
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { Ledger, Load, ROUTES, type LedgerFact } from "./soak-load";
import {
  fdKinds,
  memorydEnv,
  openFds,
  readFds,
  rssMb,
  runMemorydCli,
  startMemoryd,
  type CliResult,
  type FdReading,
  type LogLine,
  type SoakServer,
} from "./soak-server";
import { startWebhookSink } from "./soak-sink";
import { median, Recorder, Sampler, type IntervalSample, type RequestRecord } from "./soak-stats";

export interface SoakOptions {
  binary: string;
  /** Minutes of load. */
  minutes: number;
  /** Operations started per second. */
  rate: number;
  intervalMs: number;
  backupEveryMs: number;
  /** The kill -9 comes once this many facts were acknowledged in the crash under write (default 50). */
  crashFacts?: number;
  /** Scratch space: the data directories and backups go here. */
  workDir: string;
  /** Artefacts: the servers' logs. */
  outDir: string;
  /** Longest wait for the queued answers and webhook deliveries after the restart. */
  settleTimeoutMs?: number;
  maxInFlight?: number;
  progress?: (line: string) => void;
  onSample?: (sample: IntervalSample) => void;
}

export interface BackupRun {
  /** Seconds since the load started. */
  t: number;
  code: number;
  ms: number;
  bytes: number;
  file: string;
  /** The ledger's last sequence number when the command started: every fact up to it is in the backup. */
  seqBefore: number;
  stderr: string;
}

export interface DoctorCheck {
  code: number;
  report: any;
  raw: string;
  /** Why it is not clean; empty when it is. */
  problems: string[];
}

export interface SoakReport {
  options: { minutes: number; rate: number; intervalMs: number; backupEveryMs: number; keys: number; binary: string };
  dataDir: string;
  samples: IntervalSample[];
  records: RequestRecord[];
  failureSamples: string[];
  /** Load-phase seconds actually run. */
  loadSeconds: number;
  fdsBefore: number;
  /** Descriptors once idle connections closed after the load (see `settledFds`). */
  fdsAfter: number;
  /** Descriptors the moment the load stopped. */
  fdsAtStop: number;
  fdsBeforeDetail: FdReading;
  fdsAfterDetail: FdReading;
  rssBefore: number;
  rssAfter: number;
  fdKindsAfter: Record<string, number>;
  /** Duplicate or deleted descriptors seen during the load. */
  fdOddities: string[];
  shed: number;
  stillRunningAtStop: number;
  startedOps: Record<string, number>;
  appErrors: string[];
  pairs: { taught: number; superseded: number };
  restores: Record<string, number>;
  answers: { completed: number; leftRunning: number };
  ledger: { accepted: number; viaFacts: number; viaMessages: number; viaCrash: number; deleted: number; skippedCalls: number; skippedFacts: number };
  crash: { accepted: number; unanswered: number; killExit: number | null };
  restart: {
    keyWorks: boolean;
    listed: number;
    listedLive: number;
    lost: string[];
    resurrected: string[];
    answersSettled: boolean;
    answersLeft: any;
    webhooksMissing: string[];
    fds: number;
    rssMb: number;
    stopCode: number | null;
  };
  export: { code: number; lines: number; live: number; lost: string[]; stderr: string };
  doctor: DoctorCheck;
  backups: BackupRun[];
  backupRestore: { file: string | null; expected: number; missing: string[]; code: number; detail: string };
  webhooks: { deliveries: number; distinct: number; duplicates: number; malformed: number; byType: Record<string, number> };
  logProblems: { first: LogLine[]; second: LogLine[] };
  logLines: { first: number; second: number };
}

const ALL_EVENTS = ["fact.created", "fact.superseded", "fact.deleted", "fact.restored", "fact.expired", "answer.completed", "answer.failed"];

async function admin(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

async function adminOk(url: string, token: string, method: string, path: string, wanted: number, body?: unknown): Promise<any> {
  const res = await admin(url, token, method, path, body);
  if (res.status !== wanted) throw new Error(`${method} ${path} answered ${res.status} (wanted ${wanted}): ${res.text.slice(0, 500)}`);
  return res.json?.data;
}

/** The median of three readings half a second apart: one burst of connections does not decide it. */
async function steadyFds(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (i > 0) await Bun.sleep(500);
    readings.push(openFds(pid));
  }
  return median(readings);
}

/**
 * Descriptors once the load's idle keep-alive connections are gone: the server closes a connection
 * idle for 10 s, so the lowest reading over 15 s (or the first at or below `target`).
 */
async function settledFds(pid: number, target: number): Promise<number> {
  let lowest = openFds(pid);
  for (const deadline = Date.now() + 15_000; lowest > target && Date.now() < deadline; ) {
    await Bun.sleep(500);
    lowest = Math.min(lowest, openFds(pid));
  }
  return lowest;
}

/** Every fact of the workspace, history included, through the admin listing's pages. */
async function listAllFacts(url: string, token: string): Promise<Map<string, { superseded: boolean }>> {
  const facts = new Map<string, { superseded: boolean }>();
  let cursor: string | null = null;
  for (;;) {
    const page = await adminOk(
      url,
      token,
      "GET",
      `/v1/admin/workspaces/default/facts?include_superseded=true&limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      200,
    );
    for (const f of page.facts) facts.set(f.text, { superseded: f.superseded_by !== null });
    cursor = page.next_cursor;
    if (cursor === null) return facts;
  }
}

/** Texts of a `facts export` (JSONL), with the number of live facts. */
function parseExport(stdout: string): { texts: Set<string>; lines: number; live: number } {
  const texts = new Set<string>();
  let lines = 0;
  let live = 0;
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    const fact = JSON.parse(line);
    lines += 1;
    texts.add(fact.text);
    if (fact.superseded_by === null) live += 1;
  }
  return { texts, lines, live };
}

/** What makes a `doctor --json` report of a stopped server clean. */
export function doctorProblems(result: CliResult, exportedLive: number | undefined): { report: any; problems: string[] } {
  const problems: string[] = [];
  let report: any;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    return { report: undefined, problems: [`doctor exited ${result.code} without a JSON report: ${result.stdout}${result.stderr}`.trim()] };
  }
  if (result.code !== 0) problems.push(`doctor exited ${result.code}: ${result.stderr.trim()}`);
  if (report.data_dir_lock?.held_by !== null) problems.push(`the data directory's lock is still held: ${JSON.stringify(report.data_dir_lock)}`);
  const status = report.status;
  if (status === null || status === undefined) {
    problems.push("doctor did not read the database");
    return { report, problems };
  }
  if (status.database?.kind !== "embedded") problems.push(`database kind ${status.database?.kind}`);
  const m = status.migrations;
  if (m === undefined || m.pending.length > 0 || m.applied !== m.latest) problems.push(`migrations not up to date: ${JSON.stringify(m)}`);
  if (status.answers?.queued !== 0 || status.answers?.in_progress !== 0) problems.push(`answers left in the queue: ${JSON.stringify(status.answers)}`);
  if (status.workspaces !== 1) problems.push(`workspaces: ${status.workspaces} (the run made 1)`);
  if (exportedLive !== undefined && status.live_facts !== exportedLive) {
    problems.push(`live facts ${status.live_facts} but facts export has ${exportedLive} facts that are not superseded`);
  }
  const capture = status.capture_model;
  if (capture !== null && capture !== undefined && capture.queued + capture.running + capture.failed_last_day + capture.refused_last_day > 0) {
    problems.push(`capture model jobs: ${JSON.stringify(capture)}`);
  }
  return { report, problems };
}

async function waitUntil(timeoutMs: number, check: () => Promise<boolean> | boolean, everyMs = 500): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(everyMs);
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const say = options.progress ?? (() => {});
  const settleTimeoutMs = options.settleTimeoutMs ?? 180_000;
  const dataDir = join(options.workDir, "data");
  const backupDir = join(options.workDir, "backups");
  mkdirSync(backupDir, { recursive: true });
  mkdirSync(options.outDir, { recursive: true });
  const adminToken = `soak-admin-${crypto.randomUUID().replaceAll("-", "")}`;
  const env = memorydEnv({ MEMORYD_ADMIN_TOKEN: adminToken, MEMORYD_OUTBOUND_ALLOW_PRIVATE: "true", MEMORYD_LOG_LEVEL: "info" });
  const cliEnv = memorydEnv({ MEMORYD_ADMIN_TOKEN: adminToken, MEMORYD_LOG_LEVEL: "warn" });
  const sink = startWebhookSink();
  const servers: SoakServer[] = [];
  try {
    const server = await startMemoryd({ binary: options.binary, dataDir, env, cwd: options.workDir, logFile: join(options.outDir, "server-1.log") });
    servers.push(server);
    say(`memoryd pid ${server.pid} at ${server.url}, data directory ${dataDir}`);
    if (server.secret === undefined) throw new Error(`the first serve printed no bootstrap key:\n${server.stdout()}`);

    // Setup: credits for the answers, keys enough for the rate, the webhook endpoint.
    await adminOk(server.url, adminToken, "POST", "/v1/admin/workspaces/default/credits", 200, { mode: "set", amount: 1_000_000_000 });
    // Every operation is 1-2 requests (a queued answer's polls come once a second); keep each key
    // near 60 requests a minute, half of its limit of 120.
    const keyCount = Math.max(8, Math.ceil((options.rate * 2 * 60) / 60));
    const keys = [server.secret];
    for (let i = 1; i < keyCount; i++) {
      const created = await adminOk(server.url, adminToken, "POST", "/v1/admin/workspaces/default/keys", 201, {
        name: `soak-${i}`,
        scopes: ["memory.read", "memory.write", "answers.write"],
      });
      keys.push(created.secret);
    }
    await adminOk(server.url, adminToken, "POST", "/v1/admin/workspaces/default/webhooks", 201, { url: sink.url, events: ALL_EVENTS, internal: true });

    const recorder = new Recorder(performance.now());
    const ledger = new Ledger();
    const load = new Load({ url: server.url, adminToken, keys, recorder, ledger, rate: options.rate, maxInFlight: options.maxInFlight ?? 48 });
    // The warm-up: each operation once and a backup, so that what the server opens or loads on
    // first use (the tokenizer, capture's language model, the data files a checkpoint touches) is
    // in place before the count "before the load" is taken.
    await load.warmUp();
    const warmBackup = await runMemorydCli(options.binary, ["backup", join(backupDir, "warm-up.tar.gz"), "--url", server.url], cliEnv, options.workDir);
    if (warmBackup.code !== 0) throw new Error(`the warm-up backup failed (exit ${warmBackup.code}): ${warmBackup.stderr}`);
    const fdsBefore = await steadyFds(server.pid);
    const rssBefore = rssMb(server.pid);
    const fdsBeforeDetail = readFds(server.pid, realpathSync(dataDir));
    say(`setup and warm-up done: ${keys.length} keys, webhook to ${sink.url}; ${fdsBefore} descriptors, ${rssBefore.toFixed(1)} MB before the load`);
    const realDataDir = realpathSync(dataDir);
    const sampler = new Sampler({
      pid: server.pid,
      dataDir: realDataDir,
      recorder,
      intervalMs: options.intervalMs,
      status: async () => {
        const res = await load.call(ROUTES.status, "GET", "/v1/admin/status", undefined, "admin");
        if (res.status !== 200) return undefined;
        return { indexMb: (res.json.data.index?.bytes ?? Number.NaN) / 1024 / 1024, liveFacts: res.json.data.live_facts };
      },
      onSample: options.onSample,
    });

    // The load's clock: request times, samples and backups all count from here.
    recorder.reset();
    const loadStarted = performance.now();
    const backups: BackupRun[] = [];
    let backupRunning: Promise<void> | undefined;
    const takeBackup = () => {
      if (backupRunning !== undefined) return;
      const file = join(backupDir, `backup-${backups.length + 1}.tar.gz`);
      const seqBefore = ledger.lastSeq;
      const t = (performance.now() - loadStarted) / 1000;
      backupRunning = runMemorydCli(options.binary, ["backup", file, "--url", server.url, "--json"], cliEnv, options.workDir)
        .then((r) => {
          let bytes = 0;
          try {
            bytes = JSON.parse(r.stdout).bytes;
          } catch {
            bytes = 0;
          }
          backups.push({ t, code: r.code, ms: r.ms, bytes, file, seqBefore, stderr: r.stderr.trim() });
          say(`backup ${backups.length}: exit ${r.code}, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${(r.ms / 1000).toFixed(1)} s`);
        })
        .finally(() => {
          backupRunning = undefined;
        });
    };
    const backupTimer = setInterval(takeBackup, options.backupEveryMs);

    sampler.start();
    load.start();
    say(`load: ${options.rate} operations/s for ${options.minutes} min`);
    await Bun.sleep(options.minutes * 60_000);
    clearInterval(backupTimer);
    const stillRunningAtStop = await load.stop();
    await backupRunning;
    await sampler.stop();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const fdsAtStop = openFds(server.pid);
    const fdsAfter = await settledFds(server.pid, fdsBefore);
    const rssAfter = rssMb(server.pid);
    const fdKindsAfter = fdKinds(server.pid);
    const fdsAfterDetail = readFds(server.pid, realDataDir);
    say(
      `load done: ${recorder.records.length} requests; ${fdsAtStop} descriptors at the stop, ${fdsAfter} once idle connections closed; ${rssAfter.toFixed(1)} MB`,
    );

    // The crash under write.
    recorder.phase = "crash";
    let markKilled: () => void = () => {};
    const killed = new Promise<void>((resolve) => (markKilled = resolve));
    const writes = load.crashWrites(4, killed);
    const crashFacts = options.crashFacts ?? 50;
    await waitUntil(60_000, () => load.crashAccepted >= crashFacts, 5);
    const killExit = await server.kill9();
    markKilled();
    const crash = { ...(await writes), killExit };
    say(`kill -9 while teaching: ${crash.accepted} facts acknowledged by the teachers before it, ${crash.unanswered} calls cut off`);

    // The restart.
    const second = await startMemoryd({ binary: options.binary, dataDir, env, cwd: options.workDir, logFile: join(options.outDir, "server-2.log") });
    servers.push(second);
    say(`restarted: pid ${second.pid} at ${second.url}`);
    const whoami = await fetch(`${second.url}/v1/whoami`, { headers: { authorization: `Bearer ${keys[1] ?? keys[0]}` } });
    const keyWorks = whoami.status === 200;
    await whoami.text();
    const listed = await listAllFacts(second.url, adminToken);
    const expected: LedgerFact[] = ledger.expected();
    const lost = expected.filter((f) => !listed.has(f.text)).map((f) => f.text);
    const resurrected = [...ledger.facts.values()].filter((f) => f.deleted && listed.has(f.text)).map((f) => f.text);
    say(`after the restart: ${listed.size} facts listed (history included); ${expected.length} expected, ${lost.length} lost`);

    let answersLeft: any;
    const answersSettled = await waitUntil(settleTimeoutMs, async () => {
      const status = await admin(second.url, adminToken, "GET", "/v1/admin/status");
      answersLeft = status.json?.data?.answers;
      return answersLeft?.queued === 0 && answersLeft?.in_progress === 0;
    });
    const announced = () => expected.filter((f) => !sink.createdTexts.has(f.text));
    await waitUntil(settleTimeoutMs, () => announced().length === 0);
    const webhooksMissing = announced().map((f) => f.text);
    say(`answers settled: ${answersSettled}; webhooks: ${sink.distinct()} events, ${webhooksMissing.length} facts not announced`);
    const restartFds = openFds(second.pid);
    const restartRss = rssMb(second.pid);
    const stopCode = await second.stop(60_000);

    // The stopped data directory: export, doctor.
    const exported = await runMemorydCli(options.binary, ["facts", "export", "--workspace", "default", "--data-dir", dataDir], cliEnv, options.workDir);
    const exportParsed = exported.code === 0 ? parseExport(exported.stdout) : { texts: new Set<string>(), lines: 0, live: 0 };
    const exportLost = expected.filter((f) => !exportParsed.texts.has(f.text)).map((f) => f.text);
    const doctorRun = await runMemorydCli(options.binary, ["doctor", "--data-dir", dataDir, "--json"], cliEnv, options.workDir);
    const doctor = doctorProblems(doctorRun, exported.code === 0 ? exportParsed.live : undefined);

    // The last good backup, restored and exported.
    const lastBackup = [...backups].reverse().find((b) => b.code === 0);
    let backupRestore: SoakReport["backupRestore"] = { file: null, expected: 0, missing: [], code: -1, detail: "no backup succeeded" };
    if (lastBackup !== undefined) {
      const restoredDir = join(options.workDir, "restored");
      const restored = await runMemorydCli(options.binary, ["restore", lastBackup.file, "--data-dir", restoredDir], cliEnv, options.workDir);
      const wanted = [...ledger.facts.values()].filter((f) => f.seq <= lastBackup.seqBefore && !f.deleted);
      if (restored.code !== 0) {
        backupRestore = { file: lastBackup.file, expected: wanted.length, missing: [], code: restored.code, detail: `restore failed: ${restored.stderr}` };
      } else {
        const out = await runMemorydCli(options.binary, ["facts", "export", "--workspace", "default", "--data-dir", restoredDir], cliEnv, options.workDir);
        const texts = out.code === 0 ? parseExport(out.stdout).texts : new Set<string>();
        backupRestore = {
          file: lastBackup.file,
          expected: wanted.length,
          missing: wanted.filter((f) => !texts.has(f.text)).map((f) => f.text),
          code: out.code,
          detail: out.code === 0 ? `backup ${backups.indexOf(lastBackup) + 1} restored and exported` : `export failed: ${out.stderr}`,
        };
      }
    }

    const facts = [...ledger.facts.values()];
    return {
      options: {
        minutes: options.minutes,
        rate: options.rate,
        intervalMs: options.intervalMs,
        backupEveryMs: options.backupEveryMs,
        keys: keys.length,
        binary: options.binary,
      },
      dataDir,
      samples: sampler.samples,
      records: recorder.records,
      failureSamples: recorder.failureSamples,
      loadSeconds,
      fdsBefore,
      fdsAfter,
      fdsAtStop,
      fdsBeforeDetail,
      fdsAfterDetail,
      rssBefore,
      rssAfter,
      fdKindsAfter,
      fdOddities: sampler.oddities,
      shed: load.shed,
      stillRunningAtStop,
      startedOps: load.started,
      appErrors: load.appErrors,
      pairs: { taught: load.pairsTaught, superseded: load.pairsSuperseded },
      restores: load.restores,
      answers: { completed: load.answersCompleted, leftRunning: load.answersLeftRunning },
      ledger: {
        accepted: facts.length,
        viaFacts: facts.filter((f) => f.via === "facts").length,
        viaMessages: facts.filter((f) => f.via === "messages").length,
        viaCrash: facts.filter((f) => f.via === "crash").length,
        deleted: ledger.deletes,
        skippedCalls: ledger.skippedCalls,
        skippedFacts: ledger.skippedFacts,
      },
      crash,
      restart: {
        keyWorks,
        listed: listed.size,
        listedLive: [...listed.values()].filter((f) => !f.superseded).length,
        lost,
        resurrected,
        answersSettled,
        answersLeft,
        webhooksMissing,
        fds: restartFds,
        rssMb: restartRss,
        stopCode,
      },
      export: { code: exported.code, lines: exportParsed.lines, live: exportParsed.live, lost: exportLost, stderr: exported.stderr.trim() },
      doctor: { code: doctorRun.code, report: doctor.report, raw: doctorRun.stdout.trim(), problems: doctor.problems },
      backups,
      backupRestore,
      webhooks: { deliveries: sink.deliveries(), distinct: sink.distinct(), duplicates: sink.duplicates(), malformed: sink.malformed(), byType: sink.byType() },
      logProblems: { first: server.problems(), second: second.problems() },
      logLines: { first: server.logLines(), second: second.logLines() },
    };
  } finally {
    for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) await s.kill9();
    sink.stop();
  }
}
