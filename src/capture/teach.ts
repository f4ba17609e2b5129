import { actingAs, ownerOf } from "../agents/acting";
import type { TeachRequest, TeachResult } from "../schema/memory";
import { type Caller, OPERATOR_KEY_ID, provenanceOf, type ServiceContext } from "../service";

/** The route or tool a teach came through, as provenance names it. */
function teachRoute(caller: Caller): string {
  if (caller.keyId === OPERATOR_KEY_ID) return "admin API (teach as the workspace)";
  return caller.channel === "mcp" ? "MCP tool teach_memory" : "POST /v1/memory/facts";
}
import { factTimes } from "./fact-time";
import { captureFacts } from "./pipeline";

/**
 * 4.3: facts taught by a client; origin `ingested`, about the named end user when one is given,
 * observed when the client says (default now) and expiring when it says; the workspace's, or with
 * scope "agent" the acting agent's own.
 */
export async function teachFacts(caller: ServiceContext, input: TeachRequest): Promise<TeachResult> {
  const now = Date.now();
  const ctx = await actingAs(caller, input.agent);
  const agent = ownerOf(ctx, input.scope);
  const source = provenanceOf(ctx.caller, teachRoute(ctx.caller));
  const result = await captureFacts(
    ctx.db,
    ctx.caller.workspaceId,
    input.facts.map((f, i) => ({ text: f.text, origin: "ingested" as const, endUser: input.end_user, agent, source, ...factTimes(f, `facts[${i}]`, now) })),
  );
  return {
    accepted_fact_count: result.accepted_fact_count,
    created: result.created,
    superseded: result.superseded,
    skipped: result.skipped,
  };
}
