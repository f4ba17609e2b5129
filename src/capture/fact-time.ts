import { ApiError } from "../errors";

/** How far ahead of this server's clock an observation may be: clients' clocks drift. */
export const CLOCK_SKEW_MS = 5 * 60_000;

export interface FactTimes {
  /** When the fact was observed (true); the fact's `recorded_time`. Undefined: now. */
  recordedAt?: Date;
  /** When it stops being true. Undefined: never. */
  expiresAt?: Date;
}

/**
 * The observation and expiry times of one taught fact, checked: an observation may not lie in
 * the future beyond the clock skew, and a fact must expire after it was observed. `path` names
 * the fact in the error (`facts[2]`); "" for fields at the top of the body.
 */
export function factTimes(fact: { observed_at?: string; expires_at?: string }, path: string, now: number = Date.now()): FactTimes {
  const times: FactTimes = {};
  if (fact.observed_at !== undefined) {
    times.recordedAt = new Date(fact.observed_at);
    if (times.recordedAt.getTime() > now + CLOCK_SKEW_MS) {
      throw invalid(fieldOf(path, "observed_at"), "an observation cannot lie in the future (more than 5 minutes ahead of the server's clock)");
    }
  }
  if (fact.expires_at !== undefined) {
    times.expiresAt = new Date(fact.expires_at);
    if (times.expiresAt.getTime() <= (times.recordedAt?.getTime() ?? now)) {
      throw invalid(fieldOf(path, "expires_at"), "a fact must expire after it was observed (after observed_at, or after now when observed_at is not given)");
    }
  }
  return times;
}

/**
 * A read's observed-time filters (`observed_after`, `observed_before`) as epoch milliseconds,
 * unbounded where not given; an empty range is refused, naming `observed_before`.
 */
export function observedRange(input: { observed_after?: string; observed_before?: string }): { from: number; to: number } {
  const from = input.observed_after === undefined ? Number.NEGATIVE_INFINITY : Date.parse(input.observed_after);
  const to = input.observed_before === undefined ? Number.POSITIVE_INFINITY : Date.parse(input.observed_before);
  if (from >= to) throw invalid("observed_before", "the range is empty: observed_before must be later than observed_after");
  return { from, to };
}

function invalid(path: string, reason: string): ApiError {
  return new ApiError("validation_error", `invalid ${path}: ${reason}`, { fields: [{ path, reason }] });
}

const fieldOf = (path: string, name: string): string => (path === "" ? name : `${path}.${name}`);
