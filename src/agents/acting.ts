import { ApiError } from "../errors";
import type { ServiceContext } from "../service";
import { findAgent } from "./store";

/**
 * The context of a call acting as the agent it names (`agent` in its input), checked. A key bound
 * to an agent acts as that agent whether it names it or not, and naming another is refused (403
 * agent_mismatch): a bound key is how an agent's tools get its own memory and no other's. Any
 * other caller acts as the agent it names, which must be one of the workspace's (422 naming the
 * field), or as none.
 */
export async function actingAs(ctx: ServiceContext, named: string | undefined): Promise<ServiceContext> {
  const bound = ctx.caller.boundAgent;
  if (named === undefined || named === bound) return ctx;
  if (bound !== null) {
    throw new ApiError("agent_mismatch", `this key acts as agent "${bound}" and cannot act as agent "${named}"`, { agent: bound });
  }
  if (!(await findAgent(ctx.db, ctx.caller.workspaceId, named))) {
    throw new ApiError("validation_error", `no agent "${named}" in this workspace`, { fields: [{ path: "agent", reason: "no such agent in this workspace" }] });
  }
  return { ...ctx, caller: { ...ctx.caller, agent: named } };
}

/**
 * The agent a taught fact belongs to: none for the workspace's (the default), the acting agent
 * for scope "agent", which needs one (422 naming the field).
 */
export function ownerOf(ctx: ServiceContext, scope: "workspace" | "agent" | undefined): string | null {
  if (scope !== "agent") return null;
  if (ctx.caller.agent === null) {
    throw new ApiError("validation_error", 'scope "agent" needs an agent: name it in `agent`, or use a key bound to one', {
      fields: [{ path: "scope", reason: "no agent to keep the facts for" }],
    });
  }
  return ctx.caller.agent;
}
