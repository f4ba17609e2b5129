import { actingAs, ownerOf } from "../agents/acting";
import type { TeachMessagesRequest, TeachMessagesResult } from "../schema/memory";
import { provenanceOf, type ServiceContext } from "../service";
import { factTimes } from "./fact-time";
import { captureFacts, type ModelFollowUp } from "./pipeline";
import { enqueueCaptureJobs } from "./model/queue";
import { statementsIn } from "./statements";

/**
 * POST /v1/memory/messages: a conversation taught as the answers worker keeps what a user says.
 * The statements of the user's messages (`statementsIn`: questions, requests, greetings and
 * fragments left out, a sentence joining independent statements split into them) are captured
 * as `user_stated`, about the named end user when one is given, all observed when the client says
 * (default now), the workspace's or (scope "agent") the acting agent's own. What an assistant, a system prompt or a tool
 * said is never taught as something the user said: it may quote the user wrongly, or carry
 * instructions. With a capture model, the conversation (user and assistant messages) is queued
 * for it: the facts it draws replace these verbatim statements later (src/capture/model/extract.ts).
 */
export async function teachMessages(caller: ServiceContext, input: TeachMessagesRequest): Promise<TeachMessagesResult> {
  const ctx = await actingAs(caller, input.agent);
  const agent = ownerOf(ctx, input.scope);
  const times = factTimes({ ...(input.observed_at !== undefined && { observed_at: input.observed_at }) }, "");
  const statements: string[] = [];
  for (const message of input.messages) if (message.role === "user") statements.push(...(await statementsIn(message.content)));
  const followUp: ModelFollowUp = {
    kind: "extract",
    messages: input.messages.flatMap((m) => (m.role === "user" || m.role === "assistant" ? [{ role: m.role, content: m.content }] : [])),
    endUserId: input.end_user?.id ?? null,
    endUserName: input.end_user?.name ?? null,
    agent,
    observedAt: times.recordedAt ?? new Date(),
  };
  if (statements.length === 0) await enqueueCaptureJobs(ctx.db, ctx.caller.workspaceId, [{ ...followUp, factIds: [] }]);
  const result =
    statements.length === 0
      ? { created: 0, superseded: 0, skipped: 0 }
      : await captureFacts(
          ctx.db,
          ctx.caller.workspaceId,
          statements.map((text) => ({
            text,
            origin: "user_stated" as const,
            endUser: input.end_user,
            agent,
            source: provenanceOf(ctx.caller, "POST /v1/memory/messages"),
            ...times,
          })),
          { followUp },
        );
  return {
    accepted_message_count: input.messages.length,
    statements,
    created: result.created,
    superseded: result.superseded,
    skipped: result.skipped,
  };
}
