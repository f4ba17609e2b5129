import { QUESTION, type FactIndex } from "./fact-index";
import type { RankingParams } from "./params";

/** A question this long or shorter is only a question; a longer text asks after saying something. */
const QUESTION_MAX_TERMS = 24;

/** The question penalty, per fact: `question` for a short fact phrased as a question (it asks rather than records), else 0. */
export function questionSignalFor(index: FactIndex, p: RankingParams): (ord: number) => number {
  const { flags, lengthOf } = index;
  return (ord: number): number => ((flags[ord]! & QUESTION) !== 0 && lengthOf[ord]! <= QUESTION_MAX_TERMS ? p.question : 0);
}
