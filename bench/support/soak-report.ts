/**
 * The soak run's verdict and tables. `evaluate` turns a `SoakReport` into targets (each measured
 * against its limit); `printReport` prints the tables bench/soak.ts shows.
 *
 * The limits (bench/soak.ts's header explains them):
 *  - durability: 0 facts lost after kill -9 and restart (admin listing and `facts export`), 0
 *    deliberately deleted facts back, 0 facts missing from the last backup, every fact's
 *    `fact.created` delivered;
 *  - errors: 0 responses 5xx, 0 requests without an answer during the load, 0 answers failed,
 *    0 `error` lines in the server's log, every backup exit 0, a graceful stop exit 0;
 *  - `memoryd doctor --json` clean (soak-run.ts `doctorProblems`);
 *  - after the load, no data file open twice and no deleted file open;
 *  - timing trends (bench only, `timing: true`): see `FD_*`, `RSS_*`, `P95_*` below;
 *  - without timing (the CI test): descriptors after the load at most `FD_BOUND` above before it.
 */
import { ROUTES } from "./soak-load";
import type { SoakReport } from "./soak-run";
import { mean, percentile, slope, sortedMs, type IntervalSample, type RequestRecord } from "./soak-stats";

/**
 * Descriptors other than data-directory files and open client connections (the listening socket,
 * CLOSE_WAIT sockets, pipes, event, timer and /dev descriptors): the least-squares slope over the
 * last half of the load, per minute…
 */
export const FD_SLOPE_PER_MIN = 1;
/** …and the last half's mean at most max(first half + this, first half x `FD_MEAN_RATIO`). */
export const FD_MEAN_SLACK = 5;
export const FD_MEAN_RATIO = 1.1;
/**
 * RSS, by the floor of each minute (see `floors`): the slope over the last half, MB per minute, at
 * most this much above what the data's own caches explain (`rssAllowance`)…
 */
export const RSS_SLOPE_MB_PER_MIN = 2;
/** …and the last half's mean of the floors at most this ratio of the first half's. */
export const RSS_MEAN_RATIO = 1.1;
/** p95 of a route in the last third of the load at most this ratio of its first third… */
export const P95_RATIO = 1.5;
/** …unless it grew by less than this many ms (below it, the ratio of two small numbers is noise). */
export const P95_FLOOR_MS = 5;
/**
 * A route's thirds are compared only when each holds at least this many requests: a p95 then rests
 * on 10 or more requests above it, not on the two or three that happened to meet a backup.
 */
export const P95_MIN_SAMPLES = 200;
/** Without timing: descriptors after the load at most this many above before it. */
export const FD_BOUND = 50;

export interface Target {
  name: string;
  measured: string;
  limit: string;
  ok: boolean;
}

export interface Trend {
  metric: string;
  firstHalfMean: number;
  lastHalfMean: number;
  slopePerMin: number;
  slopeOk: boolean;
  meanOk: boolean;
}

export interface ThirdsRow {
  route: string;
  firstN: number;
  firstP95: number;
  lastN: number;
  lastP95: number;
  ratio: number;
  /** null: too few requests to compare. */
  ok: boolean | null;
}

const loadRecords = (report: SoakReport): RequestRecord[] => report.records.filter((r) => r.phase === "load");

interface Limits {
  slope: number;
  /** The last half's mean may be at most max(first + add, first x ratio). */
  add: number;
  ratio: number;
}

/** A series' trend: the means of its halves and the least-squares slope (per minute) of its last half. */
export function trendOf(points: readonly { t: number; y: number }[], metric: string, limits?: Limits): Trend {
  const usable = points.filter((p) => Number.isFinite(p.y));
  const end = usable.at(-1)?.t ?? 0;
  const first = usable.filter((p) => p.t <= end / 2);
  const last = usable.filter((p) => p.t > end / 2);
  const firstHalfMean = mean(first.map((p) => p.y));
  const lastHalfMean = mean(last.map((p) => p.y));
  const slopePerMin = slope(last.map((p) => ({ x: p.t / 60, y: p.y })));
  if (limits === undefined) return { metric, firstHalfMean, lastHalfMean, slopePerMin, slopeOk: true, meanOk: true };
  return {
    metric,
    firstHalfMean,
    lastHalfMean,
    slopePerMin,
    slopeOk: slopePerMin < limits.slope,
    meanOk: lastHalfMean <= Math.max(firstHalfMean + limits.add, firstHalfMean * limits.ratio),
  };
}

const series = (samples: readonly IntervalSample[], pick: (s: IntervalSample) => number) => samples.map((s) => ({ t: s.t, y: pick(s) }));

/**
 * The lowest reading of each minute of the load (t: the minute's end). Each backup lifts RSS by
 * 100 MB or more for 30-45 s until the collector frees its snapshot; the floor between them is
 * what a leak raises.
 */
export function floors(samples: readonly IntervalSample[], pick: (s: IntervalSample) => number): { t: number; y: number }[] {
  const byMinute = new Map<number, number>();
  for (const s of samples) {
    // Samples come at multiples of the interval plus the timers' drift (well under 2 s).
    const minute = Math.max(1, Math.ceil((s.t - 2) / 60));
    const y = pick(s);
    if (Number.isFinite(y)) byMinute.set(minute, Math.min(byMinute.get(minute) ?? Number.POSITIVE_INFINITY, y));
  }
  return [...byMinute.entries()].sort((a, b) => a[0] - b[0]).map(([minute, y]) => ({ t: minute * 60, y }));
}

/** The trends the bench reports: the gated ones (descriptors other than data files and connections, RSS floor) and the informative ones. */
/**
 * The RSS slope (MB a minute) the run allows: `RSS_SLOPE_MB_PER_MIN` (a leak of 1 KB a request at
 * 30 requests a second is 1.8 MB a minute) plus how fast the data directory and the search index
 * grew over the last half. PGlite keeps the pages it reads in its buffer cache (128 MB of
 * shared_buffers, in the process), and the index holds every live fact, so while the load teaches
 * RSS rises with the data until that cache is full; a longer run (--minutes 60) shows the plateau.
 */
export function rssAllowance(report: SoakReport): number {
  const s = report.samples;
  const dataSlope = trendOf(
    series(s, (x) => x.dataMb),
    "data",
  ).slopePerMin;
  const indexSlope = trendOf(
    series(s, (x) => x.indexMb),
    "index",
  ).slopePerMin;
  return RSS_SLOPE_MB_PER_MIN + Math.max(0, Number.isFinite(dataSlope) ? dataSlope : 0) + Math.max(0, Number.isFinite(indexSlope) ? indexSlope : 0);
}

export function trends(report: SoakReport): { gated: [Trend, Trend]; info: Trend[] } {
  const s = report.samples;
  return {
    gated: [
      trendOf(
        series(s, (x) => x.otherFds),
        "descriptors but data files and connections",
        { slope: FD_SLOPE_PER_MIN, add: FD_MEAN_SLACK, ratio: FD_MEAN_RATIO },
      ),
      trendOf(
        floors(s, (x) => x.rssMb),
        "RSS MB, floor of each minute",
        { slope: rssAllowance(report), add: 0, ratio: RSS_MEAN_RATIO },
      ),
    ],
    info: [
      trendOf(
        series(s, (x) => x.fds),
        "descriptors, all (info)",
      ),
      trendOf(
        series(s, (x) => x.dataFds),
        "data-directory files open (info)",
      ),
      trendOf(
        series(s, (x) => x.connections),
        "open connections (info)",
      ),
      trendOf(
        series(s, (x) => x.rssMb),
        "RSS MB, every sample (info)",
      ),
      trendOf(
        series(s, (x) => x.dataMb),
        "data directory MB (info)",
      ),
      trendOf(
        series(s, (x) => x.indexMb),
        "search index MB (info)",
      ),
    ],
  };
}

/** p95 per route (and all routes together) in the first and the last third of the load. */
export function thirds(report: SoakReport): ThirdsRow[] {
  const records = loadRecords(report).filter((r) => r.status > 0);
  const span = report.loadSeconds * 1000;
  const first = records.filter((r) => r.end <= span / 3);
  const last = records.filter((r) => r.end > (2 * span) / 3);
  const routes = [...new Set(records.map((r) => r.route))].sort();
  const row = (route: string, a: RequestRecord[], b: RequestRecord[]): ThirdsRow => {
    const firstP95 = percentile(sortedMs(a), 0.95);
    const lastP95 = percentile(sortedMs(b), 0.95);
    const ratio = lastP95 / firstP95;
    // The sampler's own probe comes every interval, at the same moment of each backup's minute: not compared.
    const comparable = a.length >= P95_MIN_SAMPLES && b.length >= P95_MIN_SAMPLES && route !== ROUTES.status;
    return {
      route,
      firstN: a.length,
      firstP95,
      lastN: b.length,
      lastP95,
      ratio,
      ok: comparable ? ratio <= P95_RATIO || lastP95 - firstP95 < P95_FLOOR_MS : null,
    };
  };
  return [
    ...routes.map((route) =>
      row(
        route,
        first.filter((r) => r.route === route),
        last.filter((r) => r.route === route),
      ),
    ),
    row(
      "all routes but the probe",
      first.filter((r) => r.route !== ROUTES.status),
      last.filter((r) => r.route !== ROUTES.status),
    ),
  ];
}

export function evaluate(report: SoakReport, options: { timing: boolean }): { targets: Target[]; ok: boolean } {
  const records = loadRecords(report);
  const n5xx = report.records.filter((r) => r.status >= 500).length;
  const noAnswer = records.filter((r) => r.status === 0).length;
  const errorLines = [...report.logProblems.first, ...report.logProblems.second].filter((l) => l.level === "error").length;
  const failedBackups = report.backups.filter((b) => b.code !== 0).length;
  const t = (name: string, measured: string | number, limit: string, ok: boolean): Target => ({ name, measured: String(measured), limit, ok });
  const targets: Target[] = [
    t("facts lost after kill -9 + restart (admin listing)", report.restart.lost.length, "0", report.restart.lost.length === 0),
    t(
      "facts lost (facts export, server stopped)",
      report.export.code === 0 ? report.export.lost.length : `export exit ${report.export.code}`,
      "0",
      report.export.code === 0 && report.export.lost.length === 0,
    ),
    t("deleted facts back after restart", report.restart.resurrected.length, "0", report.restart.resurrected.length === 0),
    t(
      "facts acknowledged before the last backup, missing from it",
      report.backupRestore.file === null || report.backupRestore.code !== 0 ? report.backupRestore.detail : report.backupRestore.missing.length,
      "0",
      report.backupRestore.code === 0 && report.backupRestore.missing.length === 0,
    ),
    t("crash under write acknowledged facts", report.crash.accepted, "> 0", report.crash.accepted > 0),
    t("responses 5xx", n5xx, "0", n5xx === 0),
    t("requests without an answer during the load", noAnswer, "0", noAnswer === 0),
    t("answers failed / teach results that do not add up", report.appErrors.length, "0", report.appErrors.length === 0),
    t("error lines in the server's log", errorLines, "0", errorLines === 0),
    t(
      "backups (memoryd backup --url) that failed",
      `${failedBackups} of ${report.backups.length}`,
      "0, at least 1 taken",
      failedBackups === 0 && report.backups.length > 0,
    ),
    t(
      "queued answers finished after the restart",
      report.restart.answersSettled ? "yes" : JSON.stringify(report.restart.answersLeft),
      "yes",
      report.restart.answersSettled,
    ),
    t("facts whose fact.created never reached the sink", report.restart.webhooksMissing.length, "0", report.restart.webhooksMissing.length === 0),
    t("an API key works after the restart", report.restart.keyWorks ? "yes" : "no", "yes", report.restart.keyWorks),
    t("graceful stop after the restart (exit code)", report.restart.stopCode ?? "did not exit", "0", report.restart.stopCode === 0),
    t(
      "memoryd doctor --json clean",
      report.doctor.problems.length === 0 ? "clean" : report.doctor.problems.join("; "),
      "clean",
      report.doctor.problems.length === 0,
    ),
  ];
  // A file is open twice, or deleted while open, for a moment now and then (a checkpoint, a WAL
  // segment recycled); what is still so once the load is over would be a leak.
  const after = report.fdsAfterDetail;
  targets.push(
    t("data-directory files held open twice, after the load", after.duplicateDataFiles, "0", after.duplicateDataFiles === 0),
    t("descriptors of deleted files, after the load", after.deletedFiles, "0", after.deletedFiles === 0),
  );
  if (options.timing) {
    const [fd, rss] = trends(report).gated;
    targets.push(
      t(`${fd.metric}: slope over the last half`, `${fd.slopePerMin.toFixed(2)}/min`, `< ${FD_SLOPE_PER_MIN}/min`, fd.slopeOk),
      t(
        `${fd.metric}: last-half mean vs first-half mean`,
        `${fd.lastHalfMean.toFixed(1)} vs ${fd.firstHalfMean.toFixed(1)}`,
        `<= max(first + ${FD_MEAN_SLACK}, first x ${FD_MEAN_RATIO})`,
        fd.meanOk,
      ),
      t(
        `${rss.metric}: slope over the last half`,
        `${rss.slopePerMin.toFixed(2)} MB/min`,
        `< ${rssAllowance(report).toFixed(2)} MB/min (${RSS_SLOPE_MB_PER_MIN} + data and index growth)`,
        rss.slopeOk,
      ),
      t(
        `${rss.metric}: last-half mean vs first-half mean`,
        `${rss.lastHalfMean.toFixed(1)} vs ${rss.firstHalfMean.toFixed(1)} MB`,
        `<= first x ${RSS_MEAN_RATIO}`,
        rss.meanOk,
      ),
    );
    const bad = thirds(report).filter((row) => row.ok === false);
    targets.push(
      t(
        "p95 last third / first third, per route",
        bad.length === 0 ? "all within" : bad.map((b) => `${b.route} ${b.ratio.toFixed(2)}x`).join("; "),
        `<= ${P95_RATIO}x (or < +${P95_FLOOR_MS} ms)`,
        bad.length === 0,
      ),
    );
  } else {
    targets.push(
      t(
        "descriptors after the load vs before",
        `${report.fdsAfter} vs ${report.fdsBefore}`,
        `<= before + ${FD_BOUND}`,
        report.fdsAfter <= report.fdsBefore + FD_BOUND,
      ),
    );
  }
  return { targets, ok: targets.every((x) => x.ok) };
}

// ---- printing ----------------------------------------------------------------------------

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : "-");

/** A plain-text table: first row is the header; numbers right-aligned. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const numeric = (s: string) => /^[-+]?[\d.,/]+( ?[a-zA-Z%/x]*)?$/.test(s) || s === "-";
  const line = (r: string[]) => r.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  const out = [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)];
  return out.map((l) => l.trimEnd()).join("\n");
}

export function sampleRow(s: IntervalSample): (string | number)[] {
  return [
    fmt(s.t, 0),
    fmt(s.fds, 0),
    fmt(s.dataFds, 0),
    fmt(s.connections, 0),
    fmt(s.otherFds, 0),
    fmt(s.rssMb),
    fmt(s.cpuPct, 0),
    fmt(s.loadAvg, 2),
    fmt(s.dataMb),
    fmt(s.indexMb, 2),
    fmt(s.liveFacts, 0),
    s.requests,
    fmt(s.p50),
    fmt(s.p95),
    s.n5xx,
    s.noAnswer,
  ];
}

export const SAMPLE_HEADER = [
  "t (s)",
  "fds",
  "data fds",
  "conns",
  "other fds",
  "RSS MB",
  "cpu %",
  "load avg",
  "data MB",
  "index MB",
  "live facts",
  "requests",
  "p50 ms",
  "p95 ms",
  "5xx",
  "no answer",
];

const SHORT: Record<string, string> = {
  [ROUTES.teach]: "teach",
  [ROUTES.messages]: "messages",
  [ROUTES.search]: "search",
  [ROUTES.context]: "context",
  [ROUTES.answerStream]: "ans stream",
  [ROUTES.answerQueued]: "ans queued",
  [ROUTES.answerPoll]: "ans poll",
  [ROUTES.factsList]: "facts list",
  [ROUTES.factGet]: "fact get",
  [ROUTES.factDelete]: "fact delete",
  [ROUTES.supersessions]: "supersessions",
  [ROUTES.restore]: "restore",
  [ROUTES.adminFacts]: "admin facts",
  [ROUTES.status]: "status",
};

/** p50/p95 of each route in each `bucketS`-second slice of the load. */
function perRouteBuckets(report: SoakReport, bucketS: number): (string | number)[][] {
  const records = loadRecords(report).filter((r) => r.status > 0);
  const routes = Object.values(ROUTES).filter((route) => records.some((r) => r.route === route));
  const rows: (string | number)[][] = [["until (s)", ...routes.map((r) => SHORT[r] ?? r)]];
  const buckets = Math.ceil(report.loadSeconds / bucketS);
  for (let b = 0; b < buckets; b++) {
    const inBucket = records.filter((r) => r.end > b * bucketS * 1000 && r.end <= (b + 1) * bucketS * 1000);
    rows.push([
      Math.min((b + 1) * bucketS, Math.round(report.loadSeconds)),
      ...routes.map((route) => {
        const sorted = sortedMs(inBucket.filter((r) => r.route === route));
        return sorted.length === 0 ? "-" : `${fmt(percentile(sorted, 0.5), 0)}/${fmt(percentile(sorted, 0.95), 0)}`;
      }),
    ]);
  }
  return rows;
}

function routeTotals(report: SoakReport): (string | number)[][] {
  const byRoute = new Map<string, RequestRecord[]>();
  for (const r of report.records) {
    const key = r.phase === "crash" ? `${r.route} [crash phase]` : r.route;
    byRoute.set(key, [...(byRoute.get(key) ?? []), r]);
  }
  const order = [...Object.values(ROUTES)];
  const keys = [...byRoute.keys()].sort((a, b) => {
    const ia = order.findIndex((r) => a.startsWith(r));
    const ib = order.findIndex((r) => b.startsWith(r));
    return ia - ib || a.localeCompare(b);
  });
  const rows: (string | number)[][] = [["route", "requests", "by status", "5xx", "p50 ms", "p95 ms", "max ms"]];
  for (const key of keys) {
    const list = byRoute.get(key)!;
    const statuses = new Map<number, number>();
    for (const r of list) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const by = [...statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s === 0 ? "none" : s}:${n}`)
      .join(" ");
    const answered = list.filter((r) => r.status > 0);
    const sorted = sortedMs(answered);
    rows.push([
      key,
      list.length,
      by,
      list.filter((r) => r.status >= 500).length,
      fmt(percentile(sorted, 0.5)),
      fmt(percentile(sorted, 0.95)),
      fmt(sorted.at(-1) ?? Number.NaN),
    ]);
  }
  const all = report.records;
  const sortedAll = sortedMs(all.filter((r) => r.status > 0));
  rows.push([
    "all",
    all.length,
    "",
    all.filter((r) => r.status >= 500).length,
    fmt(percentile(sortedAll, 0.5)),
    fmt(percentile(sortedAll, 0.95)),
    fmt(sortedAll.at(-1) ?? Number.NaN),
  ]);
  return rows;
}

export function printReport(report: SoakReport, print: (text: string) => void, options: { timing: boolean }): { ok: boolean } {
  const o = report.options;
  print(
    `\n## memoryd soak: ${o.minutes} min at ${o.rate} operations/s, samples every ${o.intervalMs / 1000} s, backup every ${o.backupEveryMs / 1000} s, ${o.keys} API keys`,
  );
  print(`binary ${o.binary}; data directory ${report.dataDir}`);

  print("\n### Samples (per interval: descriptors and RSS of the server, the search index's size, requests completed in the interval)\n");
  print(table([SAMPLE_HEADER, ...report.samples.map(sampleRow)]));

  const bucketS = report.loadSeconds > 300 ? 60 : 15;
  print(`\n### Latency per route, p50/p95 ms, per ${bucketS} s of the load\n`);
  print(table(perRouteBuckets(report, bucketS)));

  print("\n### Trend\n");
  const { gated, info } = trends(report);
  const [fd, rss] = gated as [Trend, Trend];
  print(
    table([
      ["metric", "first-half mean", "last-half mean", "last-half slope /min", "slope limit", "mean limit", "ok"],
      [
        fd.metric,
        fmt(fd.firstHalfMean),
        fmt(fd.lastHalfMean),
        fmt(fd.slopePerMin, 2),
        `< ${FD_SLOPE_PER_MIN}`,
        `<= max(+${FD_MEAN_SLACK}, x${FD_MEAN_RATIO})`,
        fd.slopeOk && fd.meanOk ? "yes" : "NO",
      ],
      [
        rss.metric,
        fmt(rss.firstHalfMean),
        fmt(rss.lastHalfMean),
        fmt(rss.slopePerMin, 2),
        `< ${fmt(rssAllowance(report), 2)}`,
        `<= x${RSS_MEAN_RATIO}`,
        rss.slopeOk && rss.meanOk ? "yes" : "NO",
      ],
      ...info.map((x) => [x.metric, fmt(x.firstHalfMean, 2), fmt(x.lastHalfMean, 2), fmt(x.slopePerMin, 3), "-", "-", "-"]),
    ]),
  );
  print(
    `\nbefore the load (after the warm-up) ${report.fdsBefore} descriptors, ${fmt(report.rssBefore)} MB; at its end ${report.fdsAtStop} descriptors, ` +
      `${report.fdsAfter} once idle connections closed, ${fmt(report.rssAfter)} MB`,
  );
  const d = (x: SoakReport["fdsBeforeDetail"]) =>
    `${x.total} (${x.dataFiles} data files, ${x.connections} connections, ${x.other} other of which ${x.closeWait} CLOSE_WAIT; ` +
    `${x.duplicateDataFiles} open twice, ${x.deletedFiles} deleted)`;
  print(`before: ${d(report.fdsBeforeDetail)}; after: ${d(report.fdsAfterDetail)}`);
  print(`descriptors after the load by kind: ${JSON.stringify(report.fdKindsAfter)}`);
  print(
    `RSS floor of each minute (MB): ${floors(report.samples, (x) => x.rssMb)
      .map((p) => fmt(p.y, 0))
      .join(", ")}`,
  );
  const most = (pick: (x: IntervalSample) => number) => Math.max(0, ...report.samples.map(pick).filter(Number.isFinite));
  print(
    `during the load, at most ${most((x) => x.duplicateFds)} data files open twice, ${most((x) => x.deletedFds)} descriptors of deleted files and ` +
      `${most((x) => x.closeWait)} sockets in CLOSE_WAIT at one reading${report.fdOddities.length > 0 ? `:\n  ${report.fdOddities.join("\n  ")}` : ""}`,
  );

  print(`\n### p95 by third of the load (last / first <= ${P95_RATIO}, or < +${P95_FLOOR_MS} ms; compared with >= ${P95_MIN_SAMPLES} requests in each)\n`);
  print(
    table([
      ["route", "n first", "p95 first ms", "n last", "p95 last ms", "ratio", "ok"],
      ...thirds(report).map((r) => [r.route, r.firstN, fmt(r.firstP95), r.lastN, fmt(r.lastP95), fmt(r.ratio, 2), r.ok === null ? "n/a" : r.ok ? "yes" : "NO"]),
    ]),
  );

  print("\n### Totals by route and status\n");
  print(table(routeTotals(report)));
  print(
    `\noperations started: ${JSON.stringify(report.startedOps)}; shed (over ${"max in flight"}): ${report.shed}; still running at the stop: ${report.stillRunningAtStop}`,
  );
  print(
    `one-valued pairs taught: ${report.pairs.taught}, the second replaced the first: ${report.pairs.superseded}; restores: ${JSON.stringify(report.restores)}; answers completed: ${report.answers.completed}, queued ones left running at the stop: ${report.answers.leftRunning}`,
  );
  if (report.failureSamples.length > 0) print(`failures (first ${report.failureSamples.length}):\n  ${report.failureSamples.join("\n  ")}`);
  if (report.appErrors.length > 0) print(`application errors (first 10):\n  ${report.appErrors.slice(0, 10).join("\n  ")}`);

  print("\n### Backups (memoryd backup FILE --url; the longest request in flight while each ran)\n");
  const load = loadRecords(report).filter((r) => r.status > 0);
  print(
    table([
      ["#", "t (s)", "exit", "MB", "seconds", "facts acknowledged before", "longest request during it (ms)", "requests over 500 ms"],
      ...report.backups.map((b, i) => {
        const from = b.t * 1000;
        const to = from + b.ms;
        const during = load.filter((r) => r.end > from && r.end - r.ms < to);
        return [
          i + 1,
          fmt(b.t, 0),
          b.code,
          fmt(b.bytes / 1024 / 1024),
          fmt(b.ms / 1000),
          b.seqBefore,
          fmt(Math.max(0, ...during.map((r) => r.ms)), 0),
          during.filter((r) => r.ms > 500).length,
        ];
      }),
    ]),
  );
  for (const b of report.backups.filter((x) => x.code !== 0)) print(`backup at ${fmt(b.t, 0)} s failed: ${b.stderr}`);

  print("\n### Durability (kill -9 at the end, restart on the same data directory)\n");
  const l = report.ledger;
  print(
    table([
      ["what", "count"],
      ["facts acknowledged (202, nothing skipped)", l.accepted],
      ["  by POST /v1/memory/facts", l.viaFacts],
      ["  by POST /v1/memory/messages (statements)", l.viaMessages],
      ["  in the crash under write (last seconds before kill -9)", l.viaCrash],
      ["deliberately deleted (DELETE 200)", l.deleted],
      ["calls with facts skipped (not expected to be stored)", `${l.skippedCalls} (${l.skippedFacts} facts)`],
      ["calls cut off by the kill", report.crash.unanswered],
      ["facts listed after the restart, history included", report.restart.listed],
      ["  of them live", report.restart.listedLive],
      ["lost after restart (admin listing)", report.restart.lost.length],
      ["lost (facts export, server stopped)", report.export.code === 0 ? report.export.lost.length : `export exit ${report.export.code}`],
      ["deleted but back after restart", report.restart.resurrected.length],
      [
        `missing from the last backup (${report.backupRestore.expected} expected)`,
        report.backupRestore.code === 0 ? report.backupRestore.missing.length : report.backupRestore.detail,
      ],
    ]),
  );
  for (const text of report.restart.lost.slice(0, 10)) print(`  lost: ${text}`);
  for (const text of report.restart.resurrected.slice(0, 10)) print(`  back: ${text}`);
  for (const text of report.backupRestore.missing.slice(0, 10)) print(`  missing from the backup: ${text}`);
  print(
    `\nafter the restart: ${fmt(report.restart.fds, 0)} descriptors, ${fmt(report.restart.rssMb)} MB; graceful stop exit ${report.restart.stopCode}; kill -9 exit ${report.crash.killExit}`,
  );

  print("\n### Webhooks (loopback sink, internal endpoint, every event)\n");
  const w = report.webhooks;
  print(
    table([
      ["what", "count"],
      ["deliveries received", w.deliveries],
      ["distinct webhook-ids", w.distinct],
      ["redeliveries (same id again)", w.duplicates],
      ["malformed", w.malformed],
      ...Object.entries(w.byType)
        .sort()
        .map(([type, n]) => [`  ${type}`, n]),
      ["acknowledged facts never announced by fact.created", report.restart.webhooksMissing.length],
    ]),
  );

  print("\n### memoryd doctor --data-dir DIR --json (server stopped)\n");
  print(report.doctor.raw);
  print(report.doctor.problems.length === 0 ? "doctor: clean" : `doctor: NOT clean: ${report.doctor.problems.join("; ")}`);

  const problems = [...report.logProblems.first.map((p) => ({ ...p, run: 1 })), ...report.logProblems.second.map((p) => ({ ...p, run: 2 }))];
  print(`\n### Server log: ${report.logLines.first} + ${report.logLines.second} lines; warn/error lines: ${problems.length}\n`);
  const grouped = new Map<string, { n: number; example: string }>();
  for (const p of problems) {
    const key = `server ${p.run} ${p.level}: ${p.msg}`;
    const g = grouped.get(key) ?? { n: 0, example: p.line };
    g.n += 1;
    grouped.set(key, g);
  }
  for (const [key, g] of grouped) print(`${g.n} x ${key}\n    e.g. ${g.example.slice(0, 600)}`);

  const verdict = evaluate(report, options);
  print("\n### Targets\n");
  print(table([["target", "measured", "limit", "ok"], ...verdict.targets.map((x) => [x.name, x.measured, x.limit, x.ok ? "yes" : "NO"])]));
  print(`\n${verdict.ok ? "PASS" : "FAIL"}: ${verdict.targets.filter((x) => !x.ok).length} of ${verdict.targets.length} targets missed`);
  return { ok: verdict.ok };
}
