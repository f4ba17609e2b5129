/**
 * Soak test of the compiled binary on the embedded database (issue 53).
 *
 *   bun run build
 *   bun bench/soak.ts [--minutes 10] [--binary dist/memoryd] [--rate 25] [--interval 5] [--backup-every 60]
 *
 * Starts `memoryd serve` on a fresh embedded data directory (a temp directory, removed at the end
 * unless --keep) with MEMORYD_ADMIN_TOKEN and MEMORYD_OUTBOUND_ALLOW_PRIVATE=true, registers a
 * webhook endpoint (every fact and answer event) on a loopback sink, and runs a mixed load for
 * --minutes: teach (unique facts, with and without an end user, and one-valued claims whose second
 * value replaces the first), teach from messages, search, context, answers on the local provider
 * (streamed, and queued then polled), the facts API (list, get, delete), the admin review
 * (supersessions, restore) and the admin facts listing, at --rate operations a second (open loop;
 * about 1.1 requests an operation), over a pool of API keys so no key reaches its limit of 120
 * requests a minute; and `memoryd backup FILE --url` every --backup-every seconds. Every --interval
 * seconds it samples the server's open descriptors (/proc/PID/fd, median of once-a-second
 * readings), RSS (VmRSS), the search index's size and live facts (GET /v1/admin/status), and the
 * latency of the requests completed in the interval. At the end it keeps teaching while it kills
 * the server with SIGKILL, restarts it on the same directory, and checks what survived
 * (bench/support/soak-run.ts has the sequence).
 *
 * Targets (exit 1 when any is missed; bench/support/soak-report.ts holds the limits):
 *  - 0 facts lost: every fact acknowledged with 202 (nothing skipped) and not deliberately
 *    deleted is listed by GET /v1/admin/workspaces/default/facts (history included) after the
 *    kill -9 and restart, and is in `memoryd facts export` once the server is stopped; no fact
 *    deleted with a 200 is back; every fact acknowledged before the last backup began is in that
 *    backup, restored with `memoryd restore`;
 *  - 0 responses 5xx, 0 requests without an answer during the load, 0 failed answers, 0 `error`
 *    lines in the server's log, every backup exit 0, every fact's `fact.created` delivered to the
 *    sink, the queued answers finished after the restart, a graceful stop exit 0;
 *  - `memoryd doctor --data-dir DIR --json` clean: exit 0, no lock held, migrations applied ==
 *    latest with none pending, no answer queued or in progress, one workspace, no capture model
 *    job, and its live facts equal to the export's facts that are not superseded;
 *  - descriptors without a growth trend. They are counted in three parts: files of the data
 *    directory (PGlite opens a relation's file the first time it touches it and keeps it open, so
 *    this part rises to a plateau no higher than the files there: reported, not judged), the
 *    clients' open connections (ESTABLISHED sockets: they follow the load, and pile up while a
 *    backup holds the server: reported) and everything else (the listening socket, CLOSE_WAIT
 *    sockets, pipes, event, timer, memfd and /dev descriptors), where a leak shows. That last part
 *    must have a least-squares slope over the last half of the load under 1 a minute, and a
 *    last-half mean at most max(first half + 5, first half x 1.1). Besides, once the load is over
 *    no data file may be open twice and no deleted file open;
 *  - RSS without a growth trend, judged by its floor: the lowest sample of each minute. Each
 *    backup lifts RSS by 100 MB or more for 30-45 s until the collector frees its snapshot, and
 *    where those bumps fall in the window would decide a slope over every sample. The floors'
 *    least-squares slope over the last half must stay under 2 MB a minute (a leak of 1 KB a
 *    request at 30 requests a second is 1.8 MB a minute) plus the slopes of the data directory's
 *    size and of the search index's over the same half: PGlite keeps the pages it reads in its
 *    buffer cache (shared_buffers 128 MB, inside the process) and the index holds every live
 *    fact, so while the load teaches, RSS rises with the data until that cache is full. And the
 *    floors' last-half mean within 1.1 x the first half's. A 10-minute run tells a leak of a few
 *    MB a minute from the collector's noise, not a slow one: run --minutes 60 for that;
 *  - p95 latency per route: the last third of the load's p95 at most 1.5 x the first third's, or
 *    less than 5 ms above it (below that the ratio of two small numbers is noise on 2 shared
 *    cores); only routes with 200 or more requests in each third are compared (so that a p95
 *    rests on 10 or more requests, not on the two or three that met a backup), with all routes
 *    together, and not the sampler's own GET /v1/admin/status probe. The CLI backup's duration grows with the database
 *    and is reported, not compared. The samples table has the machine's load average: on a
 *    shared machine, other work moves every latency.
 *
 * Tables: samples, trend, p95 by third, totals by route and status, backups, durability, webhook
 * deliveries, doctor, the server's warn/error log lines, targets. The raw report (every request)
 * and the servers' logs go to bench/out/soak-TIMESTAMP/.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { argValue } from "./support/args";
import { printReport, SAMPLE_HEADER, sampleRow, table } from "./support/soak-report";
import { runSoak } from "./support/soak-run";
import { killStartedServers } from "./support/soak-server";

const minutes = Number(argValue("--minutes") ?? 10);
const binary = resolve(argValue("--binary") ?? join(import.meta.dir, "..", "dist", "memoryd"));
const rate = Number(argValue("--rate") ?? 25);
const intervalS = Number(argValue("--interval") ?? 5);
const backupEveryS = Number(argValue("--backup-every") ?? 60);
const keep = process.argv.includes("--keep");
for (const [name, value] of Object.entries({ minutes, rate, intervalS, backupEveryS })) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
}
if (!(await Bun.file(binary).exists())) throw new Error(`no binary at ${binary}: run bun run build first`);

const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const outDir = join(import.meta.dir, "out", `soak-${stamp}`);
const workDir = mkdtempSync(join(tmpdir(), "memoryd-soak-"));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
let printedHeader = false;

// Interrupted: stop the servers it started and remove the scratch directory before going.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    console.log(`\n${signal}: stopping the servers started and removing ${keep ? "nothing" : workDir}`);
    killStartedServers();
    if (!keep) rmSync(workDir, { recursive: true, force: true });
    process.exit(code);
  });
}

try {
  const report = await runSoak({
    binary,
    minutes,
    rate,
    intervalMs: intervalS * 1000,
    backupEveryMs: backupEveryS * 1000,
    workDir,
    outDir,
    progress: log,
    onSample: (s) => {
      // A live line per sample; the full table is printed at the end.
      const lines = table([SAMPLE_HEADER, sampleRow(s)]).split("\n");
      if (!printedHeader) {
        console.log(lines[0]);
        printedHeader = true;
      }
      console.log(lines[2]);
    },
  });
  writeFileSync(join(outDir, "report.json"), JSON.stringify(report));
  const { ok } = printReport(report, (text) => console.log(text), { timing: true });
  console.log(`\nraw report and server logs: ${outDir}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  if (keep) console.log(`kept the data directory and backups in ${workDir}`);
  else rmSync(workDir, { recursive: true, force: true });
}
