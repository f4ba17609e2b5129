/**
 * The soak test's numbers: every request's outcome, percentiles, the per-interval samples of the
 * server process (open descriptors, RSS, the requests that completed in the interval and their
 * latency) and the least-squares slope the trend checks use.
 */
import { cpuSeconds, directoryMb, loadAverage, readFds, rssMb, type FdReading } from "./soak-server";

/** One request (or CLI run) the load made. `status` 0: no HTTP answer (connection refused, reset, timeout). */
export interface RequestRecord {
  route: string;
  status: number;
  ms: number;
  /** Milliseconds since the run's clock started, when the request completed. */
  end: number;
  /** Which phase the request belonged to: the timed load, or the crash under write at the end. */
  phase: "load" | "crash";
  error?: string;
}

/** Collects every request's outcome. */
export class Recorder {
  readonly records: RequestRecord[] = [];
  phase: RequestRecord["phase"] = "load";
  /** The first answers of each kind that were failures (5xx, network errors), for the report. */
  readonly failureSamples: string[] = [];

  constructor(private clockStart: number) {}

  /** Forgets every record and starts the clock again (after a warm-up). */
  reset(): void {
    this.records.length = 0;
    this.failureSamples.length = 0;
    this.clockStart = performance.now();
  }

  now(): number {
    return performance.now() - this.clockStart;
  }

  add(route: string, status: number, ms: number, detail?: string): void {
    const record: RequestRecord = { route, status, ms, end: this.now(), phase: this.phase };
    if (detail !== undefined) record.error = detail;
    this.records.push(record);
    if ((status >= 500 || status === 0) && this.phase === "load" && this.failureSamples.length < 20) {
      this.failureSamples.push(`${route} -> ${status === 0 ? "no answer" : status}${detail === undefined ? "" : `: ${detail}`}`);
    }
  }
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export function sortedMs(records: readonly RequestRecord[]): Float64Array {
  return Float64Array.from(records.map((r) => r.ms)).sort();
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** Least-squares slope of y over x (NaN with fewer than two distinct x). */
export function slope(points: readonly { x: number; y: number }[]): number {
  const usable = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (usable.length < 2) return Number.NaN;
  const mx = mean(usable.map((p) => p.x));
  const my = mean(usable.map((p) => p.y));
  let num = 0;
  let den = 0;
  for (const p of usable) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

/** One interval of the run. */
export interface IntervalSample {
  /** Seconds since the load started, at the interval's end. */
  t: number;
  /** Descriptors: median of the once-a-second readings in the interval (robust to a burst of open connections). */
  fds: number;
  fdsMax: number;
  /** Of them, files under the data directory (median). */
  dataFds: number;
  /** Of them, TCP connections in ESTABLISHED: the clients' (median). */
  connections: number;
  /** Of them, everything but data files and open connections (median): the listening socket, CLOSE_WAIT sockets, pipes, event, timer and /dev descriptors. */
  otherFds: number;
  /** Most sockets in CLOSE_WAIT at any reading. */
  closeWait: number;
  /** Most data-directory files held open twice, and most descriptors of deleted files, at any reading. */
  duplicateFds: number;
  deletedFds: number;
  rssMb: number;
  /** The server's CPU use over the interval, % of one core. */
  cpuPct: number;
  /** The machine's 1-minute load average at the interval's end (2 cores: above 2, something waited for a CPU). */
  loadAvg: number;
  requests: number;
  p50: number;
  p95: number;
  n5xx: number;
  /** Requests without an HTTP answer. */
  noAnswer: number;
  /** Size of the data directory's files (the database on disk). */
  dataMb: number;
  /** The search index's own size, as GET /v1/admin/status reports it, when the sampler read it. */
  indexMb: number;
  liveFacts: number;
  perRoute: Record<string, { n: number; p50: number; p95: number }>;
}

export interface SamplerOptions {
  pid: number;
  /** The data directory as /proc shows it (a real path), to tell its files from other descriptors. */
  dataDir: string;
  recorder: Recorder;
  intervalMs: number;
  /** Called once an interval, for extra readings (the admin status). */
  status?: () => Promise<{ indexMb: number; liveFacts: number } | undefined>;
  onSample?: (sample: IntervalSample) => void;
}

/**
 * Reads the server's descriptors and RSS once a second, and every `intervalMs` folds the readings
 * and the requests that completed since the last sample into an `IntervalSample`.
 */
export class Sampler {
  readonly samples: IntervalSample[] = [];
  /** Duplicate or deleted descriptors seen, with the second of the load they were seen at (the first 30). */
  readonly oddities: string[] = [];
  private fdReadings: FdReading[] = [];
  private rssReadings: number[] = [];
  private consumed = 0;
  private tick: ReturnType<typeof setInterval> | undefined;
  private fold: ReturnType<typeof setInterval> | undefined;
  private startedAt: number;
  private lastFold: number;
  private lastCpu = Number.NaN;

  constructor(private readonly options: SamplerOptions) {
    this.startedAt = options.recorder.now();
    this.lastFold = this.startedAt;
  }

  start(): void {
    this.startedAt = this.options.recorder.now();
    this.lastFold = this.startedAt;
    this.lastCpu = cpuSeconds(this.options.pid);
    this.read();
    this.tick = setInterval(() => this.read(), 1000);
    this.fold = setInterval(() => void this.sample(), this.options.intervalMs);
  }

  private read(): void {
    const reading = readFds(this.options.pid, this.options.dataDir);
    this.fdReadings.push(reading);
    const t = ((this.options.recorder.now() - this.startedAt) / 1000).toFixed(0);
    for (const oddity of reading.oddities) if (this.oddities.length < 30) this.oddities.push(`${t} s: ${oddity}`);
    this.rssReadings.push(rssMb(this.options.pid));
  }

  private async sample(): Promise<void> {
    const foldedFrom = this.lastFold;
    this.lastFold = this.options.recorder.now();
    const cpu = cpuSeconds(this.options.pid);
    const cpuPct = ((cpu - this.lastCpu) / ((this.lastFold - foldedFrom) / 1000)) * 100;
    this.lastCpu = cpu;
    const records = this.options.recorder.records;
    const fresh = records.slice(this.consumed).filter((r) => r.phase === "load");
    this.consumed = records.length;
    const fds = this.fdReadings;
    const rss = this.rssReadings;
    this.fdReadings = [];
    this.rssReadings = [];
    const t = (this.options.recorder.now() - this.startedAt) / 1000;
    const status = await this.options.status?.().catch(() => undefined);
    const sorted = sortedMs(fresh);
    const perRoute: IntervalSample["perRoute"] = {};
    const byRoute = new Map<string, RequestRecord[]>();
    for (const r of fresh) byRoute.set(r.route, [...(byRoute.get(r.route) ?? []), r]);
    for (const [route, list] of byRoute) {
      const s = sortedMs(list);
      perRoute[route] = { n: list.length, p50: percentile(s, 0.5), p95: percentile(s, 0.95) };
    }
    const finiteMax = (values: number[]) => Math.max(...values.filter(Number.isFinite));
    const sample: IntervalSample = {
      t,
      fds: median(fds.map((f) => f.total)),
      fdsMax: finiteMax(fds.map((f) => f.total)),
      dataFds: median(fds.map((f) => f.dataFiles)),
      connections: median(fds.map((f) => f.connections)),
      otherFds: median(fds.map((f) => f.other)),
      closeWait: finiteMax(fds.map((f) => f.closeWait)),
      duplicateFds: finiteMax(fds.map((f) => f.duplicateDataFiles)),
      deletedFds: finiteMax(fds.map((f) => f.deletedFiles)),
      rssMb: median(rss),
      cpuPct,
      loadAvg: loadAverage(),
      dataMb: directoryMb(this.options.dataDir),
      requests: fresh.length,
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      n5xx: fresh.filter((r) => r.status >= 500).length,
      noAnswer: fresh.filter((r) => r.status === 0).length,
      indexMb: status?.indexMb ?? Number.NaN,
      liveFacts: status?.liveFacts ?? Number.NaN,
      perRoute,
    };
    this.samples.push(sample);
    this.options.onSample?.(sample);
  }

  /** Stops sampling; a last partial interval is folded in when it lasted at least half an interval. */
  async stop(): Promise<void> {
    clearInterval(this.tick);
    clearInterval(this.fold);
    if (this.options.recorder.now() - this.lastFold >= this.options.intervalMs / 2) await this.sample();
  }
}
