/**
 * The one place a claim becomes its stored key. A claim is typed (cardinality, subject,
 * attribute, object); the key is how the database groups the live values of one claim, so two
 * facts contradict or confirm each other only when their keys are equal.
 */
import type { Claim } from "./types";

/** A one-valued attribute: "Priya's manager is Tom" holds one manager, so a new one replaces it. */
export function oneValued(subject: string, attribute: string, value: string, negated = false): Claim {
  return { cardinality: "one", subject, attribute, value, negated };
}

/**
 * A many-valued relation: "Tom speaks French" beside "Tom speaks German". The object is part of
 * the claim, so only a denial of the same object ("Tom no longer speaks French") replaces it.
 */
export function manyValued(subject: string, relation: string, object: string, negated = false): Claim {
  return { cardinality: "many", subject, attribute: relation, object, value: object, negated };
}

/**
 * "one:priya|manager", "many:tom|speaks|french". The form is stable: stored keys written by
 * earlier versions keep grouping with new ones, and `facts reclaim` rewrites those that changed.
 */
export function claimKey(claim: Pick<Claim, "cardinality" | "subject" | "attribute" | "object">): string {
  const parts = [claim.subject, claim.attribute, ...(claim.cardinality === "many" ? [claim.object ?? ""] : [])];
  return `${claim.cardinality}:${parts.join("|")}`;
}

/** A stored key read back into its parts; null for a key this model never writes. */
export function parseClaimKey(key: string): Pick<Claim, "cardinality" | "subject" | "attribute" | "object"> | null {
  const colon = key.indexOf(":");
  const cardinality = key.slice(0, colon);
  const [subject, attribute, object, ...extra] = key.slice(colon + 1).split("|");
  if (subject === undefined || attribute === undefined || extra.length > 0) return null;
  if (cardinality === "one" && object === undefined) return { cardinality, subject, attribute };
  if (cardinality === "many" && object !== undefined) return { cardinality, subject, attribute, object };
  return null;
}
