import type { FactIndex } from "./fact-index";
import type { RankingParams } from "./params";

/** The confidence signal, per fact: `confidence` times the fact's confidence (0-1). */
export function confidenceSignalFor(index: FactIndex, p: RankingParams): (ord: number) => number {
  return (ord: number): number => p.confidence * index.confidence[ord]!;
}

/** The recency signal, per fact: `recency` times exp(-age / recencyDays), the age at the read's clock `now`. */
export function recencySignalFor(index: FactIndex, p: RankingParams, now: number): (ord: number) => number {
  const recencyMs = p.recencyDays * 86_400_000;
  return (ord: number): number => p.recency * Math.exp(-(now - index.recordedAt[ord]!) / recencyMs);
}
