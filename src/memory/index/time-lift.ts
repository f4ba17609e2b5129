import type { FactIndex } from "./fact-index";
import type { RankingParams } from "./params";
import type { QueryPlan } from "./plan";
import { factLift } from "../time/fact-lift";

/**
 * The time signal, per fact: `time` times the fact's lift by the windows the query names
 * (`factLift`, docs/memory.md, "Time in the question"); 0 when the query names no time.
 */
export function timeSignalFor(index: FactIndex, plan: QueryPlan, p: RankingParams): (ord: number) => number {
  const timed = plan.time.windows.length > 0;
  return (ord: number): number => (timed ? p.time * factLift(index, plan.time.windows, ord) : 0);
}
