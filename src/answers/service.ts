import { createHash } from "node:crypto";
import { findAgent } from "../agents/store";
import { ApiError, notFound } from "../errors";
import { sortableId } from "../ids";
import { isVisible, readFilter } from "../memory/index/filter";
import type { FactIndexes } from "../memory/index/registry";
import { visibilityFor, type Visibility } from "../memory/visibility";
import type { Answer, AnswerRequest, AskWorkerArgs, QueuedAnswer, Source, WaitTimedOut } from "../schema/answers";
import type { ServiceContext } from "../service";
import type { AnswerEngine } from "./engine";
import { claimIdempotencyKey, ensureConversation, insertRun, loadRun, workspaceCredits, type RunRow } from "./store";

export interface AnswersContext extends ServiceContext {
  engine: AnswerEngine;
}

export type CreateInput = Pick<AnswerRequest, "input" | "conversation_id" | "end_user" | "agent_slug">;

export interface CreateOptions {
  mode: "queued" | "stream";
  idempotencyKey?: string;
}

/** Key order must not make two identical requests look different. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const requestHash = (input: CreateInput): string =>
  createHash("sha256")
    .update(canonical({ input: input.input, conversation_id: input.conversation_id, end_user: input.end_user, agent_slug: input.agent_slug }))
    .digest("hex");

/**
 * Starts an answer run (POST /v1/answers, docs/api.md). Order of refusals: unknown agent (422), then a replayed
 * Idempotency-Key (the original run, or 409 when the request differs), then credits (402), then a
 * busy conversation (409). Everything is one transaction, so a refused request leaves nothing.
 */
export async function createAnswer(ctx: AnswersContext, input: CreateInput, options: CreateOptions): Promise<{ run: RunRow; replayed: boolean }> {
  if (!(await findAgent(ctx.db, ctx.caller.workspaceId, input.agent_slug))) {
    throw new ApiError("validation_error", `unknown agent_slug "${input.agent_slug}"`, {
      fields: [{ path: "agent_slug", reason: "no agent with this slug" }],
    });
  }
  const answerId = sortableId("ans");
  const conversationId = input.conversation_id ?? sortableId("conv");
  const endUserId = input.end_user?.id ?? null;
  const outcome = await ctx.db.transaction(async (tx): Promise<{ replayedId: string; created?: undefined } | { created: RunRow; replayedId?: undefined }> => {
    if (options.idempotencyKey !== undefined) {
      const hash = requestHash(input);
      const held = await claimIdempotencyKey(tx, ctx.caller.keyId, options.idempotencyKey, hash, answerId);
      if (!held.fresh) {
        if (held.requestHash !== hash) {
          throw new ApiError("idempotency_key_reused", "this Idempotency-Key was already used with a different request; use a fresh key for a new question");
        }
        return { replayedId: held.answerId };
      }
    }
    if ((await workspaceCredits(tx, ctx.caller.workspaceId)) <= 0) {
      throw new ApiError("out_of_credits", "the workspace has no credits left; add credits to run answers");
    }
    await ensureConversation(tx, ctx.caller.workspaceId, conversationId, endUserId);
    const inserted = await insertRun(tx, {
      id: answerId,
      workspaceId: ctx.caller.workspaceId,
      keyId: ctx.caller.keyId,
      audience: ctx.caller.audience,
      conversationId,
      agentSlug: input.agent_slug,
      input: input.input,
      endUserId,
      endUserName: input.end_user?.name ?? null,
      streamed: options.mode === "stream",
      leaseOwner: options.mode === "stream" ? ctx.engine.instanceId : null,
      leaseSeconds: ctx.engine.leaseSeconds,
    });
    if (!inserted) {
      throw new ApiError("conversation_busy", `conversation "${conversationId}" is still answering its previous message; wait for it to finish`);
    }
    return { created: inserted };
  });
  if (outcome.created) {
    if (options.mode === "queued") await ctx.engine.events.queued();
    return { run: outcome.created, replayed: false };
  }
  const run = await loadRun(ctx.db, ctx.caller.workspaceId, outcome.replayedId);
  // A replayed key whose answer was deleted since (end user forgotten) has nothing to return.
  if (!run) throw notFound(`answer "${outcome.replayedId}" of this Idempotency-Key no longer exists; use a fresh key`);
  return { run, replayed: true };
}

/** An answer (docs/api.md, Answers) from a run row; sources only when asked for, filtered by what the caller may see. */
export async function toAnswer(ctx: ServiceContext, run: RunRow, withSources: boolean): Promise<Answer> {
  const v = visibilityFor(ctx.caller, run.end_user_id);
  return {
    answer_id: run.id,
    status: run.status,
    output_text: run.status === "completed" ? run.output_text : "",
    conversation_id: run.conversation_id,
    usage: { input_tokens: run.input_tokens, output_tokens: run.output_tokens },
    ...(withSources ? { sources: await sourcesFor(ctx.index, v, ctx.caller.factSeq, run.source_ids) } : {}),
    ...(run.status === "failed" ? { error: { code: run.error_code ?? "internal_error", message: run.error_message ?? "the run failed" } } : {}),
  };
}

/** The facts a run was built from, as the caller may see them now (visibility applies again). */
export async function sourcesFor(indexes: FactIndexes, v: Visibility, knownSeq: number | null, ids: readonly string[]): Promise<Source[]> {
  if (ids.length === 0) return [];
  const index = await indexes.read(v.workspaceId, knownSeq);
  const filter = readFilter(index, v);
  const sources: Source[] = [];
  for (const id of ids) {
    const ord = index.ordinal(id);
    if (ord === undefined || !isVisible(index, ord, filter)) continue;
    const { fact_id, fact_text, kind, subject } = index.factAt(ord);
    sources.push({ fact_id, fact_text, kind, subject });
  }
  return sources;
}

/**
 * A run the caller may read: in its workspace, and for an external key only runs asked with
 * external visibility (an internal run's answer may repeat what external keys must not see).
 * Anything else is indistinguishable from a missing answer.
 */
async function readableRun(ctx: ServiceContext, answerId: string): Promise<RunRow | undefined> {
  const run = await loadRun(ctx.db, ctx.caller.workspaceId, answerId);
  if (!run || (ctx.caller.audience === "external" && run.audience !== "external")) return undefined;
  return run;
}

/** GET /v1/answers/:answer_id (docs/api.md, Answers). */
export async function getAnswer(ctx: ServiceContext, answerId: string, withSources: boolean): Promise<Answer> {
  const run = await readableRun(ctx, answerId);
  if (!run) throw notFound(`answer "${answerId}"`);
  return toAnswer(ctx, run, withSources);
}

const isFinal = (run: RunRow | undefined): boolean => run?.status === "completed" || run?.status === "failed";

/**
 * A bounded, event-driven wait (no polling): resolves as soon as the run finishes on any
 * instance, else reports the timeout while the run goes on. Finished answers carry sources.
 */
export async function waitForAnswer(ctx: AnswersContext, answerId: string, timeoutSeconds: number): Promise<Answer | WaitTimedOut> {
  let run = await readableRun(ctx, answerId);
  if (!run) throw notFound(`answer "${answerId}"`);
  if (!isFinal(run) && timeoutSeconds > 0) {
    await ctx.engine.events.waitFinished(answerId, timeoutSeconds * 1000, async () => isFinal(await loadRun(ctx.db, ctx.caller.workspaceId, answerId)));
    run = await readableRun(ctx, answerId);
  }
  if (!run || !isFinal(run)) return { wait_timed_out: true, answer_id: answerId };
  return toAnswer(ctx, run, true);
}

/**
 * The ask_worker tool (docs/mcp.md): a queued create (with the optional idempotency key) plus a bounded wait.
 * `timeout_seconds: 0` returns the queued create's result at once.
 */
export async function askWorker(ctx: AnswersContext, input: AskWorkerArgs): Promise<Answer | WaitTimedOut | QueuedAnswer> {
  const { run } = await createAnswer(ctx, input, { mode: "queued", idempotencyKey: input.idempotency_key });
  if (input.timeout_seconds === 0) return { answer_id: run.id, status: "queued" };
  return waitForAnswer(ctx, run.id, input.timeout_seconds);
}
