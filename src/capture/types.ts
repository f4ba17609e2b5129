import type { FactKind, SubjectType } from "../schema/memory";

/** What the pipeline knows about one fact before it touches the database. */
export interface CaptureInput {
  text: string;
  /** The end user the call named: facts taught with one are about that person. */
  endUser?: { id: string; name?: string };
  /** Display names of the workspace's team members. */
  teamMembers: readonly string[];
}

/** A claim that later facts about the same subject can replace ("Priya's manager" = "Tom"). */
export interface Claim {
  /** Subject + attribute, lower-cased: equal keys mean "the same claim". */
  key: string;
  /** The claimed value, lower-cased and trimmed: a different value supersedes. */
  value: string;
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
