import type { Db } from "../db/types";

const FINISHED_CHANNEL = "memoryd_answer_finished";
const QUEUED_CHANNEL = "memoryd_answer_queued";

/**
 * Run lifecycle signals across instances: LISTEN/NOTIFY carries "queued" (wake a worker) and
 * "finished" (wake waiters) between processes sharing the database; in-process listeners hear the
 * same signals without a round trip.
 */
export class AnswerEvents {
  private readonly finishedWaiters = new Map<string, Set<() => void>>();
  private readonly queuedListeners = new Set<() => void>();
  private unlisten: (() => Promise<void>)[] = [];

  constructor(private readonly db: Db) {}

  async start(): Promise<void> {
    this.unlisten.push(await this.db.listen(FINISHED_CHANNEL, (id) => this.wakeFinished(id)));
    this.unlisten.push(await this.db.listen(QUEUED_CHANNEL, () => this.wakeQueued()));
  }

  async stop(): Promise<void> {
    const pending = this.unlisten;
    this.unlisten = [];
    await Promise.allSettled(pending.map((u) => u()));
  }

  async queued(): Promise<void> {
    this.wakeQueued();
    await this.db.notify(QUEUED_CHANNEL, "");
  }

  async finished(answerId: string): Promise<void> {
    this.wakeFinished(answerId);
    await this.db.notify(FINISHED_CHANNEL, answerId);
  }

  onQueued(listener: () => void): () => void {
    this.queuedListeners.add(listener);
    return () => this.queuedListeners.delete(listener);
  }

  /** Resolves when the answer finishes (true) or the timeout passes (false). */
  waitFinished(answerId: string, timeoutMs: number, isFinished: () => Promise<boolean>): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (value: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const waiters = this.finishedWaiters.get(answerId);
        waiters?.delete(onFinished);
        if (waiters?.size === 0) this.finishedWaiters.delete(answerId);
        resolve(value);
      };
      const onFinished = (): void => settle(true);
      const timer = setTimeout(() => settle(false), timeoutMs);
      let waiters = this.finishedWaiters.get(answerId);
      if (!waiters) {
        waiters = new Set();
        this.finishedWaiters.set(answerId, waiters);
      }
      waiters.add(onFinished);
      // Subscribed first, then checked: a finish between the two cannot be missed.
      isFinished().then(
        (done) => {
          if (done) settle(true);
        },
        () => settle(false),
      );
    });
  }

  private wakeFinished(answerId: string): void {
    const waiters = this.finishedWaiters.get(answerId);
    if (!waiters) return;
    this.finishedWaiters.delete(answerId);
    for (const wake of waiters) wake();
  }

  private wakeQueued(): void {
    for (const listener of this.queuedListeners) listener();
  }
}
