import type { FactKind } from "../../schema/memory";
import { INFERRED, LIVE, SENSITIVE, TEAM, type FactIndex } from "./fact-index";
import { KINDS } from "./fact-table";

/** Who may see what: the visibility rules of docs/memory.md, compiled against one index. */
export interface ReadFilter {
  /** Index of the end user named in the call; negative when none is named or the index has none. */
  endUser: number;
  /** Index of the agent the call acts as; negative when it acts as none or the index holds none of its facts. */
  agent: number;
  internal: boolean;
  /** Bit i set: kind KINDS[i] may be returned. */
  kindMask: number;
  /** The read's clock, epoch milliseconds: facts that expired by then are not returned. */
  now: number;
  /** Only facts observed in [observedFrom, observedTo), epoch milliseconds (REST's observed_after / observed_before). */
  observedFrom: number;
  observedTo: number;
}

export function readFilter(
  index: FactIndex,
  v: { endUserId: string | null; agent?: string | null; audience: "internal" | "external"; kinds: readonly FactKind[] | null },
  now: number = Date.now(),
  observed: { from: number; to: number } = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY },
): ReadFilter {
  const kindMask = v.kinds === null ? 0xff : v.kinds.reduce((mask, kind) => mask | (1 << KINDS.indexOf(kind)), 0);
  return {
    endUser: v.endUserId === null ? -1 : index.endUserIndex(v.endUserId),
    agent: v.agent === undefined || v.agent === null ? -1 : index.agentIndex(v.agent),
    internal: v.audience === "internal",
    kindMask,
    now,
    observedFrom: observed.from,
    observedTo: observed.to,
  };
}

const HIDDEN_FROM_EXTERNAL = SENSITIVE | TEAM | INFERRED;

/**
 * The one visibility test: live and not expired, in the observed range, end user only when named,
 * an agent's own facts only to that agent, external limits, kinds.
 */
export function isVisible(index: FactIndex, ord: number, filter: ReadFilter): boolean {
  const flags = index.flags[ord]!;
  if ((flags & LIVE) === 0 || index.expiresAt[ord]! <= filter.now) return false;
  const observed = index.recordedAt[ord]!;
  if (observed < filter.observedFrom || observed >= filter.observedTo) return false;
  const endUser = index.endUserOf[ord]!;
  if (endUser >= 0 && endUser !== filter.endUser) return false;
  const agent = index.agentOf[ord]!;
  if (agent >= 0 && agent !== filter.agent) return false;
  if (!filter.internal && (flags & HIDDEN_FROM_EXTERNAL) !== 0) return false;
  return ((filter.kindMask >>> index.kindOf[ord]!) & 1) === 1;
}
