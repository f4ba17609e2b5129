import type { TeachRequest, TeachResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import { factTimes } from "./fact-time";
import { captureFacts } from "./pipeline";

/**
 * 4.3: facts taught by a client; origin `ingested`, about the named end user when one is given,
 * observed when the client says (default now) and expiring when it says.
 */
export async function teachFacts(ctx: ServiceContext, input: TeachRequest): Promise<TeachResult> {
  const now = Date.now();
  const result = await captureFacts(
    ctx.db,
    ctx.caller.workspaceId,
    input.facts.map((f, i) => ({ text: f.text, origin: "ingested" as const, endUser: input.end_user, ...factTimes(f, `facts[${i}]`, now) })),
  );
  return {
    accepted_fact_count: result.accepted_fact_count,
    created: result.created,
    superseded: result.superseded,
    skipped: result.skipped,
  };
}
