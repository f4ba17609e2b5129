/**
 * What a newer claim does to a live older claim with the same key: the last step of capture,
 * after tokens and claims. Pure, so the pipeline, `facts reclaim` and the labelled pairs all
 * decide the same way.
 */
import type { Cardinality, Claim } from "./types";

/** What a newer claim does to a live older one with the same key. */
export type ClaimRelation = "supersede" | "duplicate" | "coexist";

/** The part of a claim stored beside its key. */
export type ClaimValue = Pick<Claim, "value" | "negated">;

/**
 * One-valued attributes: a different value replaces, the same value is a duplicate, a negation
 * replaces only the value it denies. Many-valued relations (the object is in the key): only the
 * opposite polarity replaces.
 */
export function relateClaims(cardinality: Cardinality, newer: ClaimValue, older: ClaimValue): ClaimRelation {
  if (cardinality === "many") return newer.negated === older.negated ? "coexist" : "supersede";
  if (newer.negated === older.negated) {
    if (newer.value === older.value) return "duplicate";
    return newer.negated ? "coexist" : "supersede";
  }
  return newer.value === older.value ? "supersede" : "coexist";
}
