import type { EndUser, FactKind, SubjectType } from "../schema/memory";

/** What the pipeline knows about one fact before it touches the database. */
export interface CaptureInput {
  text: string;
  /** The end user the call named: facts taught with one are about that person. */
  endUser?: EndUser;
  /** Display names of the workspace's team members. */
  teamMembers: readonly string[];
}

export type Cardinality = "one" | "many";

/**
 * A claim that later facts about the same subject can replace. One-valued attributes hold one
 * value per subject ("Priya's manager" = "tom"); many-valued relations hold many, each its own
 * claim with the object in it ("Sam plays guitar"), so only a denial of the same object replaces
 * it. `claimKey` (capture/claim-key.ts) is the only serialiser to the stored key.
 */
export interface Claim {
  cardinality: Cardinality;
  /** Lower-cased: a name, "team", or `user:<id>` for an end user. */
  subject: string;
  /** The attribute ("manager", "location") or, for many-valued claims, the relation ("speaks"). */
  attribute: string;
  /** Many-valued claims only: the object the relation holds with. */
  object?: string;
  /** The claimed value, lower-cased and trimmed (the object again for many-valued claims). */
  value: string;
  /** The fact denies the value ("Priya's manager is no longer Tom", "Sam stopped playing guitar"). */
  negated: boolean;
  /**
   * The value the fact says it replaces ("switched from Postgres to CockroachDB": "postgres"):
   * it supersedes the subject's live claim with that value, whatever its attribute.
   */
  replaces?: string;
}

export interface FactAnalysis {
  /** Lower-cased, whitespace-folded, trailing punctuation dropped: equal means exact duplicate. */
  normalized: string;
  subject: string;
  subjectType: SubjectType;
  kind: FactKind;
  sensitive: boolean;
  /** The attribute lexicon's reading: the only one that may replace a fact (capture/links.ts). */
  claim: Claim | null;
  /**
   * False when the fact carries markup or role markers, instructs the system, asks, tells what was
   * once true, or is about someone of its subject's: it updates nothing (capture/updates.ts).
   */
  mayReplace: boolean;
}
