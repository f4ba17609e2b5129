import type { EndUser, FactKind, SubjectType } from "../schema/memory";

/** What the pipeline knows about one fact before it touches the database. */
export interface CaptureInput {
  text: string;
  /** The end user the call named: facts taught with one are about that person. */
  endUser?: EndUser;
  /** Display names of the workspace's team members. */
  teamMembers: readonly string[];
}

/**
 * A claim that later facts about the same subject can replace. One-valued attributes key on
 * subject + attribute ("one:priya|manager" = "tom"); many-valued relations key on subject +
 * relation + object ("many:sam|plays|guitar"), so only a negation of the same object replaces them.
 */
export interface Claim {
  /** Cardinality, subject and attribute (and object), lower-cased: equal keys mean "the same claim". */
  key: string;
  /** The claimed value, lower-cased and trimmed. */
  value: string;
  /** The fact denies the value ("Priya's manager is no longer Tom", "Sam stopped playing guitar"). */
  negated: boolean;
}

export interface FactAnalysis {
  /** Lower-cased, whitespace-folded, trailing punctuation dropped: equal means exact duplicate. */
  normalized: string;
  subject: string;
  subjectType: SubjectType;
  kind: FactKind;
  sensitive: boolean;
  claim: Claim | null;
}
