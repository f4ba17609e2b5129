import type { Config } from "../config";
import type { Db } from "../db/types";
import type { Logger } from "../log";
import { createModelProviders, type ModelProviders, type ProviderOverrides } from "../models/registry";
import { randomBase62 } from "../ids";
import { AnswerEvents } from "./events";
import type { FactIndexes } from "../memory/index/registry";
import { executeRun, type RunnerDeps, type RunOutcome } from "./runner";
import { claimNextRun, creditsFor, failAbandonedRuns, failRun, pruneIdempotencyKeys, releaseLeases, type RunRow } from "./store";
import type { Metrics } from "../metrics";
import type { DatabaseOutage } from "../db/outage";

export interface EngineOptions {
  db: Db;
  /** The process's search indexes: runs read memory through them like requests do. */
  index: FactIndexes;
  config: Config;
  log: Logger;
  /** Providers built elsewhere (tests); by default the ones the config enables. */
  providers?: ProviderOverrides;
  /** The process's view of a database outage: a claim that fails because it is away is reported there once, not logged each poll. */
  outage?: DatabaseOutage;
  leaseSeconds?: number;
  /** Where finished runs are counted (the server shares one with its app). */
  metrics?: Metrics;
  concurrency?: number;
  pollMs?: number;
}

const DEFAULTS = { concurrency: 4, pollMs: 2000, maxAttempts: 3 } as const;

/**
 * Executes answer runs in this process: a worker that claims queued runs (woken by NOTIFY, with a
 * poll as fallback), the streaming runs that requests start, and graceful shutdown for both.
 */
export class AnswerEngine {
  readonly events: AnswerEvents;
  readonly instanceId = `inst_${randomBase62(12)}`;
  /** The model providers runs use (`describe()` says which, for the operator). */
  readonly models: ModelProviders;
  private readonly runner: RunnerDeps;
  private readonly active = new Map<string, { done: Promise<RunOutcome>; abort: AbortController }>();
  private readonly concurrency: number;
  private readonly pollMs: number;
  private accepting = false;
  private pumping = false;
  private pumpAgain = false;
  private poller: ReturnType<typeof setInterval> | undefined;
  private stopQueuedListener: (() => void) | undefined;

  constructor(private readonly options: EngineOptions) {
    this.events = new AnswerEvents(options.db);
    this.concurrency = options.concurrency ?? DEFAULTS.concurrency;
    this.pollMs = options.pollMs ?? DEFAULTS.pollMs;
    this.models = createModelProviders(options.config, options.providers);
    this.runner = {
      db: options.db,
      index: options.index,
      log: options.log,
      instanceId: this.instanceId,
      leaseSeconds: options.leaseSeconds ?? options.config.answerLeaseSeconds,
      providerFor: (provider) => this.models.resolve(provider),
      onFinished: (id) => this.events.finished(id),
    };
  }

  /** The search indexes runs read through (an app serving this engine's streams shares them). */
  get index(): FactIndexes {
    return this.options.index;
  }

  get leaseSeconds(): number {
    return this.runner.leaseSeconds;
  }

  /** Begins listening for run signals; with `worker`, also claims queued runs. */
  async start(worker: boolean): Promise<void> {
    await this.events.start();
    if (!worker) return;
    this.accepting = true;
    this.stopQueuedListener = this.events.onQueued(() => this.pump());
    this.poller = setInterval(() => {
      failAbandonedRuns(this.options.db, DEFAULTS.maxAttempts)
        .then((ids) => Promise.all(ids.map((id) => this.events.finished(id))))
        .catch((error: unknown) => this.options.log.warn("abandoned-run sweep failed", { error: String(error) }));
      pruneIdempotencyKeys(this.options.db).catch(() => {});
      this.pump();
    }, this.pollMs);
    this.poller.unref?.();
    this.pump();
  }

  /** Runs an answer this instance already holds the lease for (a stream, or a claimed run). */
  run(run: RunRow, onDelta: (text: string) => void): Promise<RunOutcome> {
    const abort = new AbortController();
    const startedAt = performance.now();
    const done = executeRun(this.runner, run, onDelta, abort.signal)
      .then((outcome) => {
        // A released run is another instance's to finish and count.
        if (outcome.status !== "released") {
          const seconds = (performance.now() - startedAt) / 1000;
          if (outcome.status === "completed") this.options.metrics?.answerFinished("completed", seconds, outcome.usage, creditsFor(outcome.usage));
          else this.options.metrics?.answerFinished("failed", seconds);
        }
        return outcome;
      })
      .finally(() => {
        this.active.delete(run.id);
        this.pump();
      });
    this.active.set(run.id, { done, abort });
    return done;
  }

  /**
   * Stops claiming, gives running answers `graceMs` to finish, then aborts the rest and hands
   * their leases back so another instance picks them up.
   */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    if (this.poller) clearInterval(this.poller);
    this.stopQueuedListener?.();
    const running = [...this.active.values()].map((r) => r.done);
    await Promise.race([Promise.allSettled(running), Bun.sleep(graceMs)]);
    const unfinished = [...this.active.entries()];
    for (const [, r] of unfinished) r.abort.abort();
    await releaseLeases(
      this.options.db,
      this.instanceId,
      unfinished.map(([id]) => id),
    );
    await Promise.allSettled(unfinished.map(([, r]) => r.done));
    await this.events.stop();
  }

  /** Claims queued runs while there is capacity; re-entrant calls coalesce into one more pass. */
  private pump(): void {
    if (!this.accepting) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          while (this.accepting && this.active.size < this.concurrency) {
            const run = await claimNextRun(this.options.db, this.instanceId, this.runner.leaseSeconds);
            if (!run) break;
            if (run.attempts > DEFAULTS.maxAttempts) {
              await failRun(this.options.db, run.id, this.instanceId, "run_abandoned", "the run was interrupted too many times; ask again");
              await this.events.finished(run.id);
              continue;
            }
            void this.run(run, () => {});
          }
        } while (this.pumpAgain && this.accepting);
      } catch (error) {
        if (!this.options.outage?.failed(error)) this.options.log.warn("claiming runs failed", { error: String(error) });
      } finally {
        this.pumping = false;
      }
    })();
  }
}
