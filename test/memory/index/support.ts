import type { Db } from "../../../src/db/types";
import type { IndexedFact } from "../../../src/memory/index/fact-index";
import type { FactIndexes } from "../../../src/memory/index/registry";
import type { Caller, Channel, ServiceContext } from "../../../src/service";
import type { Audience } from "../../../src/schema/auth";

/** A fixed instant the unit tests rank against, so recency never depends on the clock. */
export const NOW = Date.UTC(2026, 0, 15);

let counter = 0;

/** An indexed fact with sortable ids in creation order; override any field. */
export function indexedFact(text: string, overrides: Partial<IndexedFact> = {}): IndexedFact {
  counter += 1;
  return {
    id: `fact_${String(counter).padStart(8, "0")}`,
    text,
    kind: "observation",
    origin: "ingested",
    subject: "workspace",
    subjectType: "workspace",
    endUserId: null,
    agent: null,
    confidence: 0.8,
    recordedAt: NOW - 86_400_000,
    expiresAt: null,
    sensitive: false,
    pinned: false,
    ...overrides,
  };
}

/** What a service function needs, as authentication would build it for a key of `workspaceId`. */
export function serviceContext(
  db: Db,
  index: FactIndexes,
  workspaceId: string,
  options: { audience?: Audience; channel?: Channel; factSeq?: number | null; agent?: string | null; boundAgent?: string | null } = {},
): ServiceContext {
  const caller: Caller = {
    workspaceId,
    keyId: "key_test",
    audience: options.audience ?? "internal",
    channel: options.channel ?? "rest",
    agent: options.agent ?? options.boundAgent ?? null,
    boundAgent: options.boundAgent ?? null,
    factSeq: options.factSeq ?? null,
  };
  return { db, index, caller };
}
