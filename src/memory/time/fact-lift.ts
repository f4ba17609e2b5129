/**
 * How the windows a query names lift one fact of an index, and what `explain` shows of it
 * (docs/memory.md, "Time in the question").
 */
import type { ScoreExplanation } from "../../schema/memory";
import type { FactIndex } from "../index/fact-index";
import { timeLift, type TimeWindow } from "./query-time";

/**
 * How much the query's windows lift a fact: by when it was observed, or by the time it names
 * ("last month" in a fact observed in May is April), whichever is nearer.
 */
export function factLift(index: FactIndex, windows: readonly TimeWindow[], ord: number): number {
  const observed = timeLift(windows, index.recordedAt[ord]!);
  const [from, to] = [index.aboutFrom[ord]!, index.aboutTo[ord]!];
  return from === to ? observed : Math.max(observed, timeLift(windows, from, to));
}

/** What explain shows of the window that lifts a fact most (the first when none does). */
export function windowShown(index: FactIndex, windows: readonly TimeWindow[], ord: number): NonNullable<ScoreExplanation["time_window"]> {
  let best: TimeWindow = windows[0]!;
  for (const w of windows) if (factLift(index, [w], ord) > factLift(index, [best], ord)) best = w;
  return { expression: best.expression, from: new Date(best.from).toISOString(), to: new Date(best.to).toISOString() };
}

/**
 * The explanation of a fact listed by time alone (a query whose only known words name a time):
 * its lift is the whole score.
 */
export function timeOnlyExplanation(index: FactIndex, windows: readonly TimeWindow[], ord: number, weight: number): ScoreExplanation {
  const time = Math.round(weight * factLift(index, windows, ord) * 10_000) / 10_000;
  return {
    score: time,
    words: [],
    meaning: [],
    subject: 0,
    end_user: 0,
    confidence: 0,
    recency: 0,
    question: 0,
    phrasing: 0,
    time,
    time_window: windowShown(index, windows, ord),
  };
}
