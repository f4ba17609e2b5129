import type { Db, Queryable } from "../db/types";
import type { Logger } from "../log";

/** How long recalls are gathered in memory before one statement writes them. */
const FLUSH_INTERVAL_MS = 5_000;
/** Distinct facts gathered before a write is started early, whatever the interval. */
const FLUSH_AT = 10_000;

/** A fact's recall statistics as stored. */
export interface RecallStats {
  recall_count: number;
  last_recalled_at: string | null;
}

/**
 * Counts the facts searches and context packets return, off the request path: a read adds its
 * fact ids to a map (no I/O), and one statement every few seconds adds the counts to
 * `fact_recalls`. Trade-off: counts reach the database up to FLUSH_INTERVAL_MS late, and a
 * process killed without a clean stop loses what it had not written yet; a statistic, not a fact.
 */
export class RecallLog {
  /** Recalls per fact since the last write; a batch's facts share its latest recall time (seconds apart at most). */
  private pending = new Map<string, number>();
  private lastAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger | null = null,
    private readonly intervalMs = FLUSH_INTERVAL_MS,
  ) {}

  /** Counts one recall of each fact, at `at` (epoch milliseconds). */
  record(factIds: readonly string[], at: number = Date.now()): void {
    if (factIds.length === 0) return;
    const pending = this.pending;
    for (const id of factIds) pending.set(id, (pending.get(id) ?? 0) + 1);
    if (at > this.lastAt) this.lastAt = at;
    if (pending.size >= FLUSH_AT) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Writes what was gathered; resolves once it is written (or failed: then it is kept for the next write). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    if (batch.size === 0) return this.writing;
    const at = this.lastAt;
    this.pending = new Map();
    this.writing = this.writing.then(() =>
      addRecalls(this.db, batch, at).catch((error: unknown) => {
        this.log?.warn("recall counts not written; kept for the next write", { facts: batch.size, error: String(error) });
        for (const [id, count] of batch) this.pending.set(id, (this.pending.get(id) ?? 0) + count);
      }),
    );
    return this.writing;
  }
}

/**
 * Adds counts to the stored ones in one statement. A fact deleted since it was recalled is left out
 * by the join. Trade-off: the upsert takes the rows' locks in the order given, and two instances
 * writing overlapping batches at once wait on each other for that statement's length.
 */
async function addRecalls(db: Queryable, batch: ReadonlyMap<string, number>, at: number): Promise<void> {
  const ids = [...batch.keys()].sort();
  await db.sql`
    INSERT INTO fact_recalls (fact_id, recall_count, last_recalled_at)
    SELECT f.id, r.n, ${new Date(at)}::timestamptz
      FROM unnest(${ids}::text[], ${ids.map((id) => String(batch.get(id)))}::text[]::bigint[]) AS r(id, n)
      JOIN facts f ON f.id = r.id
    ON CONFLICT (fact_id) DO UPDATE
      SET recall_count = fact_recalls.recall_count + excluded.recall_count,
          last_recalled_at = greatest(fact_recalls.last_recalled_at, excluded.last_recalled_at)`;
}

/** The stored recall statistics of these facts (a fact never recalled: count 0, no time). */
export async function recallStats(db: Queryable, factIds: readonly string[]): Promise<Map<string, RecallStats>> {
  const out = new Map<string, RecallStats>(factIds.map((id) => [id, { recall_count: 0, last_recalled_at: null }]));
  if (factIds.length === 0) return out;
  const rows = await db.sql<{ fact_id: string; recall_count: number; last_recalled_at: Date }>`
    SELECT fact_id, recall_count::float8 AS recall_count, last_recalled_at FROM fact_recalls WHERE fact_id = ANY(${[...factIds]}::text[])`;
  for (const r of rows) out.set(r.fact_id, { recall_count: Number(r.recall_count), last_recalled_at: new Date(r.last_recalled_at).toISOString() });
  return out;
}
