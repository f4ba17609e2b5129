/**
 * A database that is away, as the process sees it: requests it refuses answer 503
 * `database_unavailable` with `Retry-After`, counted in a metric; the log gets one line when the
 * outage starts and one when the database answers again, never one per request.
 */
import { ApiError } from "../errors";
import type { Logger } from "../log";
import { isDatabaseUnavailable } from "./unavailable";

/** Seconds a client is told to wait before retrying. */
export const RETRY_AFTER_SECONDS = 5;

export class DatabaseOutage {
  private since: number | null = null;
  private refusedCount = 0;

  constructor(
    private readonly log: Logger,
    private readonly onRefused: () => void = () => {},
  ) {}

  /** A request failed because the database is away: the error to answer with. */
  refused(cause: unknown): ApiError {
    this.onRefused();
    this.refusedCount += 1;
    this.begin(cause);
    return new ApiError("database_unavailable", `the database is not reachable; retry in ${RETRY_AFTER_SECONDS} seconds`, undefined, {
      "retry-after": String(RETRY_AFTER_SECONDS),
    });
  }

  /**
   * A background task (a worker's round, maintenance) failed: true when it was the database being
   * away, which the outage's one line reports; false for any other failure, for the task to log.
   */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.begin(error);
    return true;
  }

  private begin(cause: unknown): void {
    if (this.since !== null) return;
    this.since = Date.now();
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.log.warn("database unavailable: requests answer 503 until it is back", { error: reason });
  }

  /** A request that needed the database succeeded: an outage, if there was one, is over. */
  reachable(): void {
    if (this.since === null) return;
    this.log.info("database reachable again", { outage_seconds: Math.round((Date.now() - this.since) / 100) / 10, refused_requests: this.refusedCount });
    this.since = null;
    this.refusedCount = 0;
  }

  get active(): boolean {
    return this.since !== null;
  }
}
