import { fragment, type Fragment } from "../db/fragment";
import type { Audience } from "../schema/auth";
import { EXTERNAL_MCP_KINDS, type FactKind } from "../schema/memory";
import type { Caller } from "../service";

/** Everything that decides which facts one call may see. */
export interface Visibility {
  workspaceId: string;
  audience: Audience;
  /** The end user named in the call; facts about any other end user stay hidden. */
  endUserId: string | null;
  /** The agent the call acts as; other agents' own facts stay hidden. */
  agent: string | null;
  /** null = every kind. */
  kinds: readonly FactKind[] | null;
}

export function visibilityFor(caller: Caller, endUserId: string | null): Visibility {
  return {
    workspaceId: caller.workspaceId,
    audience: caller.audience,
    endUserId,
    agent: caller.agent,
    kinds: caller.audience === "external" && caller.channel === "mcp" ? EXTERNAL_MCP_KINDS : null,
  };
}

/**
 * The one visibility predicate, applied inside the SQL of every read (facts aliased `f`), before
 * ranking, so nothing outside it can reach a response, a packet or a model:
 * - only this workspace, never superseded or expired facts;
 * - facts about an end user only when that end user is named in the call;
 * - an agent's own facts only to calls acting as that agent;
 * - external keys: no sensitive facts, no team facts, nothing the agent inferred;
 * - external keys on the tool server: only the listed kinds.
 */
export function visibleFacts(v: Visibility, options: { history?: boolean } = {}): Fragment {
  const internal = v.audience === "internal";
  const kinds = v.kinds === null ? null : [...v.kinds];
  // `history`: superseded versions too, under every other rule (a claim's history as this caller may see it).
  return fragment`f.workspace_id = ${v.workspaceId}
    AND (${options.history === true}::boolean OR (f.superseded_by IS NULL AND (f.expires_at IS NULL OR f.expires_at > now())))
    AND (f.end_user_id IS NULL OR f.end_user_id = ${v.endUserId}::text)
    AND (f.agent_slug IS NULL OR f.agent_slug = ${v.agent}::text)
    AND (${internal}::boolean OR (NOT f.sensitive AND f.subject_type <> 'team' AND f.origin <> 'agent_inferred'))
    AND (${kinds}::text[] IS NULL OR f.kind = ANY(${kinds}::text[]))`;
}
