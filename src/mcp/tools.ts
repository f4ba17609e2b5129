import type { Tool } from "@modelcontextprotocol/server";
import type { TSchema } from "@sinclair/typebox";
import type { AnswerEngine } from "../answers/engine";
import { askWorker, waitForAnswer } from "../answers/service";
import type { AuthContext } from "../auth/authenticate";
import { whoami } from "../auth/whoami";
import { teachFacts } from "../capture/teach";
import type { Db } from "../db/types";
import { buildContext } from "../memory/context";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import type { Scope } from "../schema/auth";
import { WhoamiResult } from "../schema/auth";
import { Answer, AskWorkerArgs, QueuedAnswer, WaitForAnswerArgs, WaitTimedOut } from "../schema/answers";
import { ContextPacket, ContextRequest, SearchRequest, SearchResult, TeachRequest, TeachResult } from "../schema/memory";
import { GET_MEMORY_CONTEXT, SEARCH_MEMORY, TEACH_MEMORY, wireInputSchema } from "./tool-specs";
import { parseInput } from "../schema/validate";
import { callerOf } from "../service";
import { Type } from "@sinclair/typebox";

export interface ToolContext {
  db: Db;
  index: FactIndexes;
  engine: AnswerEngine;
  auth: AuthContext;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: string;
  /** null: every key may call it. */
  scope: Scope | null;
  description: string;
  inputSchema: TSchema;
  /** What `structuredContent` holds when the call succeeds: the REST response's `data`. */
  outputSchema: TSchema;
  annotations: ToolAnnotations;
  /** Validates with the same schema REST uses, then calls the same service function. */
  call(ctx: ToolContext, args: unknown): Promise<object>;
}

const service = (ctx: ToolContext) => ({ db: ctx.db, index: ctx.index, caller: callerOf(ctx.auth, "mcp"), engine: ctx.engine });

/** The six tools, in one registry: name -> scope -> schema -> service function. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "whoami",
    scope: null,
    description:
      "Describe the API key this session uses: its name, prefix, scopes, audience (internal or external) and rate limit. " +
      "Call it to find out which other tools you may use.",
    inputSchema: Type.Object({}),
    outputSchema: WhoamiResult,
    annotations: { title: "Who am I", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: async (ctx) => whoami(ctx.auth),
  },
  {
    ...SEARCH_MEMORY,
    scope: "memory.read",
    outputSchema: SearchResult,
    annotations: { title: "Search memory", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (ctx, args) => searchFacts(service(ctx), parseInput(SearchRequest, args, "arguments")),
  },
  {
    ...GET_MEMORY_CONTEXT,
    scope: "memory.read",
    outputSchema: ContextPacket,
    annotations: { title: "Memory context block", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (ctx, args) => buildContext(service(ctx), parseInput(ContextRequest, args, "arguments")),
  },
  {
    ...TEACH_MEMORY,
    scope: "memory.write",
    outputSchema: TeachResult,
    annotations: { title: "Teach memory", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (ctx, args) => teachFacts(service(ctx), parseInput(TeachRequest, args, "arguments")),
  },
  {
    name: "ask_worker",
    scope: "answers.write",
    description:
      "Ask the workspace's worker agent a question; it answers from the workspace memory. Waits up to timeout_seconds " +
      "(default 60) and returns the finished answer {answer_id, status, output_text, conversation_id, usage, sources, " +
      "error?}. If time runs out it returns {wait_timed_out: true, answer_id}: call wait_for_answer with that id. " +
      'timeout_seconds 0 returns {answer_id, status: "queued"} at once. Reuse conversation_id to continue a thread; ' +
      "pass idempotency_key to retry safely without starting a second run. Uses workspace credits.",
    inputSchema: AskWorkerArgs,
    outputSchema: Type.Union([Answer, WaitTimedOut, QueuedAnswer]),
    annotations: { title: "Ask the worker", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    call: (ctx, args) => askWorker(service(ctx), parseInput(AskWorkerArgs, args, "arguments")),
  },
  {
    name: "wait_for_answer",
    scope: "answers.write",
    description:
      "Wait up to timeout_seconds (default 60) for an answer started by ask_worker and return it whole, with sources. " +
      "Returns {wait_timed_out: true, answer_id} if it is still running; each call is a fresh wait, so call again.",
    inputSchema: WaitForAnswerArgs,
    outputSchema: Type.Union([Answer, WaitTimedOut]),
    annotations: { title: "Wait for an answer", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (ctx, args) => {
      const input = parseInput(WaitForAnswerArgs, args, "arguments");
      return waitForAnswer(service(ctx), input.answer_id, input.timeout_seconds);
    },
  },
];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): ToolDefinition | undefined {
  return BY_NAME.get(name);
}

/** An output schema's root must be an object: a union of result shapes is an object that is one of them. */
function objectRoot(schema: TSchema): NonNullable<Tool["outputSchema"]> {
  const wire = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return (wire.type === "object" ? wire : { type: "object", ...wire }) as NonNullable<Tool["outputSchema"]>;
}

const listed = new Map<string, Tool[]>();

/** The tools a key's scopes allow, built once per scope set rather than per request. */
export function toolsFor(scopes: readonly Scope[]): Tool[] {
  const cacheKey = [...scopes].sort().join(",");
  let tools = listed.get(cacheKey);
  if (!tools) {
    tools = TOOLS.filter((t) => t.scope === null || scopes.includes(t.scope)).map((t) => ({
      name: t.name,
      title: t.annotations.title,
      description: t.description,
      inputSchema: wireInputSchema<Tool["inputSchema"]>(t.inputSchema),
      outputSchema: objectRoot(t.outputSchema),
      annotations: t.annotations,
    }));
    listed.set(cacheKey, tools);
  }
  return tools;
}
