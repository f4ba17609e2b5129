import type { TeachRequest, TeachResult } from "../schema/memory";
import type { ServiceContext } from "../service";
import { captureFacts } from "./pipeline";

/** 4.3: facts taught by a client; origin `ingested`, about the named end user when one is given. */
export async function teachFacts(ctx: ServiceContext, input: TeachRequest): Promise<TeachResult> {
  const result = await captureFacts(
    ctx.db,
    ctx.caller.workspaceId,
    input.facts.map((f) => ({ text: f.text, origin: "ingested" as const, endUser: input.end_user })),
  );
  return {
    accepted_fact_count: result.accepted_fact_count,
    created: result.created,
    superseded: result.superseded,
    skipped: result.skipped,
  };
}
