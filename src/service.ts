import type { AuthContext } from "./auth/authenticate";
import type { Db } from "./db/types";
import type { FactIndexes } from "./memory/index/registry";
import type { Audience } from "./schema/auth";

/** Where a call comes in: the tool server narrows what external keys receive; the worker is a run. */
export type Channel = "rest" | "mcp" | "worker";

/** Who is calling, as much as a service function needs to know and no more. */
export interface Caller {
  workspaceId: string;
  /** The key that asked (for an answer run: the key that created it). */
  keyId: string;
  audience: Audience;
  channel: Channel;
  /**
   * The agent the call acts as: its key's, the one it named (`actAs`), or the agent an answer
   * runs. Its own facts are visible to the call, other agents' are not. null: no agent.
   */
  agent: string | null;
  /** The agent the key is bound to; a bound caller may act as no other. */
  boundAgent: string | null;
  /**
   * The workspace's fact change sequence as of authentication (null: unknown, ask the database).
   * A search index at or past it has every write committed before this request began.
   */
  factSeq: number | null;
}

/** The key id of the operator acting as a workspace (the admin API, the settings app). */
export const OPERATOR_KEY_ID = "admin";

/**
 * Whether what the caller is shown counts as recalled: every key's and answer run's reads do; an
 * operator reviewing memory ("Ask memory") does not, or the review would keep its subject alive.
 */
export function countsRecalls(caller: Caller): boolean {
  return caller.keyId !== OPERATOR_KEY_ID;
}

/** Where a fact a caller teaches comes from (capture stores it with the fact). */
export function provenanceOf(caller: Caller, via: string): { keyId: string | null; agent: string | null; via: string } {
  return { keyId: caller.keyId === OPERATOR_KEY_ID ? null : caller.keyId, agent: caller.agent, via };
}

/** The caller an authenticated request is. */
export function callerOf(auth: AuthContext, channel: Channel): Caller {
  return {
    workspaceId: auth.workspaceId,
    keyId: auth.keyId,
    audience: auth.audience,
    channel,
    agent: auth.agent,
    boundAgent: auth.agent,
    factSeq: auth.factSeq,
  };
}

/**
 * What every service function gets besides its input: the database, the process's search
 * indexes and the caller. REST routes, MCP tools and answer runs each build one per call.
 */
export interface ServiceContext {
  db: Db;
  index: FactIndexes;
  caller: Caller;
}
