/**
 * The labelled supersession pairs (*.jsonl: dev, holdout and the sets written blind) and how capture
 * judges one: the newer fact replaces the older only when the lexicon's reading of both is one
 * claim (capture/links.ts). Used by the pipeline's tests and by bench/supersession.ts and
 * bench/current-first.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeFact, normalizeForDuplicates } from "../../../src/capture/analyze";
import { linkOf, type Link } from "../../../src/capture/links";
import { prepareClaim, relatePrepared, restates, type ClaimRelation } from "../../../src/capture/relation";
import type { Claim } from "../../../src/capture/types";

export interface LabelledPair {
  family: "people" | "companies" | "projects" | "decisions";
  older: string;
  newer: string;
  label: "supersede" | "both";
  why: string;
  end_user?: { id: string; name?: string };
  /** For a replacement: what a user would ask afterwards, whose answer is the newer fact. */
  question?: string;
}

export type PairSet = "dev" | "holdout" | "blind" | "blind2" | "blind3" | "blind4" | "blind5" | "blind6" | "blind7" | "blind8";

/** Every labelled set, oldest first. */
export const PAIR_SETS: readonly PairSet[] = ["dev", "holdout", "blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8"];

/**
 * The half of a set that rules may be tuned on and the half kept to check that the tuning carries
 * over: alternate pairs of each label, so both halves hold as many replacements.
 */
export type PairHalf = "tune" | "check";

export function halfOf(pairs: readonly LabelledPair[], half: PairHalf): LabelledPair[] {
  const seen = { supersede: 0, both: 0 };
  return pairs.filter((pair) => {
    const nth = seen[pair.label]++;
    return (nth % 2 === 0) === (half === "tune");
  });
}

export function loadPairs(set: PairSet): LabelledPair[] {
  const text = readFileSync(join(import.meta.dir, `${set}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as LabelledPair);
}

/**
 * What the pipeline would do with the newer fact, given the older one is live: "supersede" when it
 * replaces it (capture/links.ts: only the lexicon's reading of both, the same claim), "duplicate"
 * when it is skipped, else "coexist" (an *updates* link included: nothing is hidden).
 */
export function judgePair(pair: LabelledPair): ClaimRelation {
  return linkPair(pair).relation;
}

/** `judgePair`, with the link the newer fact makes to the older one (null: none). */
export function linkPair(pair: LabelledPair): { relation: ClaimRelation; link: Link | null } {
  const input = (text: string) => ({ text, teamMembers: [], ...(pair.end_user ? { endUser: pair.end_user } : {}) });
  const prepared = (claim: Claim | null) => (claim === null ? null : prepareClaim(claim));
  const older = analyzeFact(input(pair.older));
  const newer = analyzeFact(input(pair.newer));
  const o = { text: pair.older, first: prepared(older.claim) };
  const n = prepared(newer.claim);
  const duplicate = n !== null && o.first !== null && relatePrepared(n, o.first) === "duplicate";
  // As capture does: a same-valued claim is skipped only when it adds no word.
  if (duplicate && restates(normalizeForDuplicates(pair.newer), normalizeForDuplicates(pair.older))) return { relation: "duplicate", link: null };
  const link = linkOf(n, o);
  return { relation: link?.kind === "replaces" ? "supersede" : "coexist", link };
}

export interface Score {
  pairs: number;
  replacements: number;
  supersessions: number;
  right: number;
  /** "both" pairs whose newer fact would be skipped as a duplicate: a lost fact, like a wrong supersession. */
  wronglySkipped: number;
  precision: number;
  recall: number;
  misses: { pair: LabelledPair; got: ClaimRelation }[];
}

export function scorePairs(pairs: readonly LabelledPair[]): Score {
  let supersessions = 0;
  let right = 0;
  let wronglySkipped = 0;
  const misses: Score["misses"] = [];
  for (const pair of pairs) {
    const got = judgePair(pair);
    if (got === "supersede") supersessions += 1;
    if (got === "supersede" && pair.label === "supersede") right += 1;
    if (got === "duplicate") wronglySkipped += 1;
    if ((got === "supersede") !== (pair.label === "supersede") || got === "duplicate") misses.push({ pair, got });
  }
  const replacements = pairs.filter((p) => p.label === "supersede").length;
  return {
    pairs: pairs.length,
    replacements,
    supersessions,
    right,
    wronglySkipped,
    precision: supersessions === 0 ? 1 : right / supersessions,
    recall: replacements === 0 ? 1 : right / replacements,
    misses,
  };
}
