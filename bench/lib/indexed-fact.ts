import type { IndexedFact } from "../../src/memory/index/fact-index";

/** A text as an import stores it in the index: a workspace observation, ingested, default confidence. */
export function ingestedFact(id: string, text: string, recordedAt: number): IndexedFact {
  return {
    id,
    text,
    kind: "observation",
    origin: "ingested",
    subject: "workspace",
    subjectType: "workspace",
    endUserId: null,
    agent: null,
    confidence: 0.8,
    recordedAt,
    expiresAt: null,
    sensitive: false,
    pinned: false,
  };
}
