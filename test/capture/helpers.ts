import { explainFact, type FactExplanation } from "../../src/capture/analyze";
import type { CaptureInput } from "../../src/capture/types";

/** Optional parts of a capture input, so tables only spell out what matters for the row. */
export interface Extra {
  members?: readonly string[];
  endUser?: CaptureInput["endUser"];
}

export function explain(text: string, extra: Extra = {}): FactExplanation {
  return explainFact(inputOf(text, extra));
}

function inputOf(text: string, extra: Extra): CaptureInput {
  const input: CaptureInput = { text, teamMembers: extra.members ?? [] };
  if (extra.endUser) input.endUser = extra.endUser;
  return input;
}

/** Two end users used across tables. */
export const ANA: NonNullable<CaptureInput["endUser"]> = { id: "U-7", name: "Ana" };
export const NAMELESS: NonNullable<CaptureInput["endUser"]> = { id: "u_42" };
