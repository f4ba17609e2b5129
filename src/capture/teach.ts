import { actingAs, ownerOf } from "../agents/acting";
import type { TeachRequest, TeachResult } from "../schema/memory";
import type { ServiceContext } from "../service";
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
  const result = await captureFacts(
    ctx.db,
    ctx.caller.workspaceId,
    input.facts.map((f, i) => ({ text: f.text, origin: "ingested" as const, endUser: input.end_user, agent, ...factTimes(f, `facts[${i}]`, now) })),
  );
  return {
    accepted_fact_count: result.accepted_fact_count,
    created: result.created,
    superseded: result.superseded,
    skipped: result.skipped,
  };
}
