/**
 * The capture model's worker: every instance claims ready jobs (queue.ts), groups them by
 * workspace, checks the workspace's model and its day's token budget, and runs them: conversations
 * are extracted one by one, new facts judged in batches. A failed call gives its jobs back with a
 * backoff (1 s doubling, at most `maxBackoffMs`), so they drain when the provider returns; a job
 * retried for longer than `giveUpAfterMs` ends `failed`. Facts wait as the model-free path left
 * them whatever happens here: nothing the worker does is needed for a read to be right.
 */
import type { DatabaseOutage } from "../../db/outage";
import type { Db } from "../../db/types";
import { sortableId } from "../../ids";
import type { Logger } from "../../log";
import type { FactIndexes } from "../../memory/index/registry";
import type { ModelProviders } from "../../models/registry";
import { ModelError } from "../../models/types";
import type { CaptureModel, ModelReply } from "./call";
import type { NewDecision } from "./decisions";
import { claimCaptureJobs, extendLeases, finishCaptureJobs, releaseAllLeases, retryCaptureJobs, type CaptureJob } from "./queue";
import { captureSettingOf, recordRefusals, recordUsage, usageToday } from "./settings";

export interface CaptureWorkerOptions {
  /** Jobs claimed per round. */
  batch: number;
  /** Rounds running at once on this instance (each claims its own jobs). */
  concurrency: number;
  /** How long one model call may take. */
  timeoutMs: number;
  leaseSeconds: number;
  /** How often an idle instance looks for work. */
  pollMs: number;
  maxBackoffMs: number;
  /** A job failing for longer than this ends `failed`. */
  giveUpAfterMs: number;
}

export const CAPTURE_WORKER_DEFAULTS: CaptureWorkerOptions = {
  batch: 32,
  concurrency: 4,
  timeoutMs: 60_000,
  leaseSeconds: 300,
  pollMs: 500,
  maxBackoffMs: 60_000,
  giveUpAfterMs: 24 * 3600_000,
};

/** What the worker reports, for metrics. */
export interface CaptureEvents {
  call(kind: "judge" | "extract", outcome: "ok" | "unparsed" | string, reply: ModelReply | null): void;
  decisions(applied: readonly NewDecision[], vetoed: readonly NewDecision[], dropped: number): void;
  refused(jobs: number): void;
}

const NO_EVENTS: CaptureEvents = { call() {}, decisions() {}, refused() {} };

export class CaptureWorker {
  private readonly options: CaptureWorkerOptions;
  private readonly owner = sortableId("cjob").replace("cjob_", "worker_");
  private loops: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  private stopped = true;
  private lastWarnAt = 0;

  constructor(
    private readonly deps: { db: Db; index: FactIndexes; models: ModelProviders; log: Logger; outage?: DatabaseOutage },
    options: Partial<CaptureWorkerOptions> = {},
    private readonly events: CaptureEvents = NO_EVENTS,
  ) {
    this.options = { ...CAPTURE_WORKER_DEFAULTS, ...options };
  }

  start(): void {
    this.stopped = false;
    const released = (this.deps.db.kind === "embedded" ? releaseAllLeases(this.deps.db) : Promise.resolve()).catch((error: unknown) =>
      this.deps.log.warn("could not release capture jobs", { error: String(error) }),
    );
    this.loops = Array.from({ length: this.options.concurrency }, () => released.then(() => this.loop()));
  }

  /** Stops claiming and waits for the rounds under way (each bounded by the call timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
  }

  /**
   * One of `concurrency` loops: each claims what is ready when it looks, so a call under way never
   * holds back the facts taught meanwhile (SKIP LOCKED keeps two loops off one job).
   */
  private async loop(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      try {
        worked = await this.runRound();
      } catch (error) {
        if (!this.deps.outage?.failed(error)) this.warn("capture model round failed", String(error));
      }
      if (!worked && !this.stopped) await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.sleepers.add(wake);
    });
  }

  /** One round: claims ready jobs and runs them. True when there was work (look again at once). */
  async runRound(): Promise<boolean> {
    const jobs = await claimCaptureJobs(this.deps.db, this.owner, this.options.batch, this.options.leaseSeconds);
    if (jobs.length === 0) return false;
    const byWorkspace = new Map<string, CaptureJob[]>();
    for (const job of jobs) byWorkspace.set(job.workspace_id, [...(byWorkspace.get(job.workspace_id) ?? []), job]);
    await Promise.all([...byWorkspace].map(([workspaceId, list]) => this.runWorkspace(workspaceId, list)));
    return true;
  }

  private async runWorkspace(workspaceId: string, jobs: CaptureJob[]): Promise<void> {
    const { db } = this.deps;
    const setting = await captureSettingOf(db, workspaceId);
    const ids = jobs.map((j) => j.id);
    if (setting === null) return finishCaptureJobs(db, ids, "failed", "the capture model was turned off");
    let model: CaptureModel;
    try {
      const resolved = this.deps.models.resolve(setting.provider);
      const name = setting.model ?? resolved.defaultModel;
      model = { provider: resolved.provider, model: name, name: `${setting.provider}/${name}` };
    } catch (error) {
      return this.failed(jobs, error);
    }
    // The capture rules (which the gates read with) load with the first job, not when the server starts.
    const [{ extractFacts }, { judgeFacts }] = await Promise.all([import("./extract"), import("./judge")]);
    const extract = jobs.filter((j) => j.kind === "extract");
    const judge = jobs.filter((j) => j.kind === "judge");
    const renew = (): Promise<void> => extendLeases(db, ids, this.owner, this.options.leaseSeconds);
    for (const job of extract) {
      if (await this.overBudget(workspaceId, setting.dailyTokens, [job])) continue;
      try {
        await renew();
        const outcome = await extractFacts(db, model, job, this.options.timeoutMs, sortableId("batch"));
        await this.spent(workspaceId, outcome.reply);
        this.events.call("extract", outcome.unparsed ? "unparsed" : "ok", outcome.reply);
        this.events.decisions(
          outcome.decisions.filter((d) => d.vetoedBy === null),
          outcome.decisions.filter((d) => d.vetoedBy !== null),
          0,
        );
        await finishCaptureJobs(db, [job.id], "done", outcome.unparsed ? "the model's reply did not parse" : null);
      } catch (error) {
        await this.failed([job], error);
      }
    }
    if (judge.length === 0 || (await this.overBudget(workspaceId, setting.dailyTokens, judge))) return;
    try {
      const outcome = await judgeFacts(
        this.deps,
        model,
        workspaceId,
        judge.flatMap((j) => j.fact_ids),
        this.options.timeoutMs,
        { id: () => sortableId("batch"), beforeCall: renew },
      );
      for (const { reply, parsed } of outcome.replies) {
        await this.spent(workspaceId, reply);
        this.events.call("judge", parsed ? "ok" : "unparsed", reply);
      }
      this.events.decisions(outcome.applied, outcome.vetoed, outcome.dropped);
      await finishCaptureJobs(
        db,
        judge.map((j) => j.id),
        "done",
        outcome.replies.some((r) => !r.parsed) ? "the model's reply did not parse" : null,
      );
    } catch (error) {
      await this.failed(judge, error);
    }
  }

  /** Refuses the jobs when the day's tokens are spent: their facts stay as the model-free path left them. */
  private async overBudget(workspaceId: string, dailyTokens: number, jobs: readonly CaptureJob[]): Promise<boolean> {
    const today = await usageToday(this.deps.db, workspaceId);
    if (today.tokens < dailyTokens) return false;
    await finishCaptureJobs(
      this.deps.db,
      jobs.map((j) => j.id),
      "refused",
      `the daily token budget (${dailyTokens}) is spent`,
    );
    await recordRefusals(this.deps.db, workspaceId, jobs.length);
    this.events.refused(jobs.length);
    return true;
  }

  private async spent(workspaceId: string, reply: ModelReply): Promise<void> {
    await recordUsage(this.deps.db, workspaceId, reply.usage);
  }

  /** A call failed: the jobs go back to the queue with a backoff, or end `failed` once retried for too long. */
  private async failed(jobs: readonly CaptureJob[], error: unknown): Promise<void> {
    const code = error instanceof ModelError ? error.code : "internal";
    const message = error instanceof Error ? error.message : String(error);
    this.events.call(jobs[0]?.kind ?? "judge", code, null);
    this.warn("capture model call failed; the facts stay as captured and the jobs are retried", message, code);
    const now = Date.now();
    const expired = jobs.filter((j) => now - new Date(j.created_at).getTime() > this.options.giveUpAfterMs);
    const retried = jobs.filter((j) => !expired.includes(j));
    await finishCaptureJobs(
      this.deps.db,
      expired.map((j) => j.id),
      "failed",
      message,
    );
    const attempts = Math.max(1, ...retried.map((j) => j.attempts));
    await retryCaptureJobs(
      this.deps.db,
      retried.map((j) => j.id),
      Math.min(this.options.maxBackoffMs, 1_000 * 2 ** (attempts - 1)),
      message,
    );
  }

  /** One line a minute at most: a provider down for hours must not fill the log. */
  private warn(message: string, error: string, code?: string): void {
    if (Date.now() - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = Date.now();
    this.deps.log.warn(message, { error, ...(code !== undefined && { code }) });
  }
}
