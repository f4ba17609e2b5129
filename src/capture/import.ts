import type { Db } from "../db/types";
import { listAgentRows } from "../agents/store";
import { ApiError } from "../errors";
import { ImportLine } from "../schema/memory";
import { parseInput } from "../schema/validate";
import { factTimes } from "./fact-time";
import { analyseCapture, storeCaptured, type CaptureItem } from "./pipeline";
import { teamMemberNames } from "./store";

/**
 * Lines captured per transaction. Each batch pays a fixed cost (the lock, the live claims of its
 * keys, the sequence, one insert, one events statement), and its storing overlaps the next batch's
 * analysis. Storing 10,000 analysed chat turns on PostgreSQL (bench/import.ts's database, 2 cores):
 * about 350 µs a fact at 200 a batch, 230 at 500, 170-240 at 1,000 and 2,000. Trade-off: a teach
 * to the same workspace waits for the batch in flight, a few hundred milliseconds at 1,000.
 */
export const IMPORT_BATCH = 1000;

export interface ImportProgress {
  lines: number;
  created: number;
  superseded: number;
  skipped: number;
  rejected: { line: number; reason: string }[];
}

/**
 * Feeds a JSONL stream through the capture pipeline in batches. A bad line is reported with its
 * number and skipped; every good line is captured. Origin, end user, observed time, expiry and pin
 * are kept, so importing an export reproduces the workspace; supersession follows the observed
 * times, so lines out of order keep the newest observation of a claim live.
 *
 * Each batch is analysed while the one before it is stored: analysis is CPU in this process,
 * storing mostly waits on the database, so the two overlap. Batches are still stored one after
 * another, in order, each in its own transaction under the capture lock, so a batch sees every
 * fact of the batches before it, as if they were captured one call at a time. Analysis reads
 * nothing stored but the team's names, read once: a member added during the import is not
 * attributed by it (trade-off: the alternative is a round trip per batch that the overlap waits on).
 */
export async function importFacts(
  db: Db,
  workspaceId: string,
  lines: AsyncIterable<string>,
  onProgress: (p: ImportProgress) => void = () => {},
): Promise<ImportProgress> {
  const progress: ImportProgress = { lines: 0, created: 0, superseded: 0, skipped: 0, rejected: [] };
  const team = await teamMemberNames(db, workspaceId);
  // A line may keep a fact private to one of the workspace's agents, never to one it does not have.
  const agents = new Set((await listAgentRows(db, workspaceId)).map((a) => a.slug));
  /** The batch being stored, settled once it is committed; a rejection waits for the next batch or the end. */
  let storing: Promise<void> = Promise.resolve();
  let batch: CaptureItem[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    const analysed = await analyseCapture(items, team);
    await storing;
    // An import is history brought in, not news: the capture model is not asked about it.
    storing = storeCaptured(db, workspaceId, analysed, { followUp: null }).then((result) => {
      progress.created += result.created;
      progress.superseded += result.superseded;
      progress.skipped += result.skipped;
      onProgress(progress);
    });
    // Handled here so that a failed transaction is not reported as unhandled while the next batch
    // is analysed; the `await storing` that follows rethrows it.
    storing.catch(() => {});
  };
  try {
    for await (const raw of lines) {
      progress.lines += 1;
      if (raw.trim() === "") continue;
      try {
        batch.push(itemOf(raw, agents));
      } catch (error) {
        const reason = error instanceof ApiError ? error.message : "not valid JSON";
        progress.rejected.push({ line: progress.lines, reason });
      }
      if (batch.length >= IMPORT_BATCH) await flush();
    }
    await flush();
  } finally {
    // Whatever ended the import, no transaction of it is left running behind the caller.
    await storing.catch(() => {});
  }
  await storing;
  return progress;
}

/** One import line as a capture item; throws on JSON, a line the schema refuses, or an agent the workspace lacks. */
function itemOf(raw: string, agents: ReadonlySet<string>): CaptureItem {
  const line = parseInput(ImportLine, JSON.parse(raw), "line");
  const agent = line.agent ?? null;
  if (agent !== null && !agents.has(agent)) throw new ApiError("validation_error", `agent "${agent}" is not one of the workspace's agents`);
  const observed = line.observed_at ?? line.recorded_time;
  return {
    text: line.text,
    origin: line.origin ?? "ingested",
    endUser: line.end_user ?? undefined,
    agent,
    source: { keyId: null, agent: null, via: "facts import" },
    ...factTimes({ observed_at: observed, expires_at: line.expires_at ?? undefined }, "line"),
    pinned: line.pinned,
  };
}
