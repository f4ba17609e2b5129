/**
 * The soak test (bench/soak.ts) in short, against the compiled binary on the embedded database:
 * about 50 s of the mixed load at a low rate (teach, teach from messages, search, context,
 * answers streamed and queued, the facts API, the admin review, `memoryd backup --url`, webhooks to
 * a loopback sink), then teaching while the server is killed with SIGKILL, a restart on the same
 * data directory and `memoryd doctor`.
 *
 * Only what does not depend on how fast the machine runs is asserted: nothing acknowledged is
 * lost (admin listing after the restart, `facts export`, the last backup), nothing deleted comes
 * back, no 5xx, every fact announced to the webhook, the descriptors back near where they were
 * before the load, doctor clean. The latency and memory trends belong to the bench.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { evaluate, FD_BOUND, printReport } from "../../bench/support/soak-report";
import { runSoak } from "../../bench/support/soak-run";
import { cleanup, ensureBinary, tempDir } from "./binary";

setDefaultTimeout(600_000);
afterAll(cleanup, 30_000);

/** Targets that may depend on timing (a connection race while the server is busy): printed, not asserted. */
const REPORTED_ONLY = new Set(["requests without an answer during the load"]);

describe("soak of the binary on the embedded database", () => {
  test("50 s of mixed load, kill -9 under write and a restart: nothing lost, no 5xx, descriptors bounded, doctor clean", async () => {
    const binary = await ensureBinary();
    const workDir = tempDir("memoryd-e2e-soak-");
    const report = await runSoak({
      binary,
      minutes: 50 / 60,
      rate: 8,
      intervalMs: 5_000,
      backupEveryMs: 20_000,
      crashFacts: 20,
      workDir,
      outDir: join(workDir, "out"),
    });
    const verdict = evaluate(report, { timing: false });
    const missed = verdict.targets.filter((t) => !t.ok && !REPORTED_ONLY.has(t.name));
    if (!verdict.ok) printReport(report, (text) => console.error(text), { timing: false });

    // The load did run: facts taught every way, deleted, backed up, announced.
    expect(report.ledger.viaFacts).toBeGreaterThan(0);
    expect(report.ledger.viaMessages).toBeGreaterThan(0);
    expect(report.ledger.viaCrash).toBeGreaterThan(0);
    expect(report.ledger.deleted).toBeGreaterThan(0);
    expect(report.backups.length).toBeGreaterThan(0);
    expect(report.webhooks.byType["fact.created"]).toBeGreaterThan(0);

    expect(report.restart.lost).toEqual([]);
    expect(report.export.lost).toEqual([]);
    expect(report.restart.resurrected).toEqual([]);
    expect(report.backupRestore.missing).toEqual([]);
    expect(report.records.filter((r) => r.status >= 500).map((r) => `${r.route} ${r.status} ${r.error ?? ""}`)).toEqual([]);
    expect(report.restart.webhooksMissing).toEqual([]);
    expect(report.fdsAfter).toBeLessThanOrEqual(report.fdsBefore + FD_BOUND);
    expect(report.doctor.problems).toEqual([]);
    expect(missed.map((t) => `${t.name}: ${t.measured} (limit ${t.limit})`)).toEqual([]);
  });
});
