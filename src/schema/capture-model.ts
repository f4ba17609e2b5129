import { Type, type Static } from "@sinclair/typebox";
import { Text } from "./memory";

/** The providers a capture model may use: the answers' registry, less `local` (it cannot read text). */
export const CaptureProvider = Type.Union([Type.Literal("anthropic"), Type.Literal("openai")], {
  description: "anthropic (ANTHROPIC_API_KEY) or openai (any OpenAI-compatible server: OPENAI_BASE_URL, OPENAI_API_KEY)",
});
export type CaptureProvider = Static<typeof CaptureProvider>;

/** PUT /v1/admin/workspaces/:slug/capture-model */
export const CaptureModelRequest = Type.Object(
  {
    provider: CaptureProvider,
    model: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "the model name; default: the provider's default model on this server" })),
    daily_token_budget: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: "tokens (input + output) the model may use per UTC day; default 200000" }),
    ),
  },
  { additionalProperties: false },
);
export type CaptureModelRequest = Static<typeof CaptureModelRequest>;

/** How many jobs of a workspace wait, run, gave up, or were refused by the budget. */
export const CaptureQueueCounts = Type.Object({
  queued: Type.Integer(),
  running: Type.Integer(),
  done: Type.Integer(),
  failed: Type.Integer(),
  refused: Type.Integer(),
});

/** GET /v1/admin/workspaces/:slug/capture-model: the setting, today's spending and the queue. */
export const CaptureModelStatus = Type.Object({
  enabled: Type.Boolean({ description: "false: capture is model-free only" }),
  provider: Type.Union([CaptureProvider, Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()], { description: "the model name in use (the provider's default when none was set)" }),
  daily_token_budget: Type.Integer(),
  tokens_today: Type.Integer({ description: "input + output tokens used since 00:00 UTC" }),
  calls_today: Type.Integer(),
  budget_spent: Type.Boolean({ description: "true: new work is refused until 00:00 UTC (and counted in jobs.refused)" }),
  jobs: CaptureQueueCounts,
  last_error: Type.Union([Type.String(), Type.Null()], { description: "the last failure of a model call, without any secret" }),
});
export type CaptureModelStatus = Static<typeof CaptureModelStatus>;

export const DecisionLabel = Type.Union([Type.Literal("replaces"), Type.Literal("updates"), Type.Literal("duplicate"), Type.Literal("extracted")]);
export type DecisionLabel = Static<typeof DecisionLabel>;

/** One decision of the capture model, applied or vetoed by a gate (docs/memory.md, "The gates"). */
export const CaptureDecision = Type.Object({
  decision_id: Type.String(),
  batch_id: Type.String({ description: "the model call it came from" }),
  model: Type.String({ description: "provider/model" }),
  prompt: Type.String({ description: "the prompt's version" }),
  label: DecisionLabel,
  fact_id: Type.Union([Type.String(), Type.Null()], {
    description: "the newer fact (for extracted: the fact drawn from the conversation; null when a gate refused to store it)",
  }),
  proposed_text: Type.Union([Type.String(), Type.Null()], { description: "for an extracted fact a gate refused: what the model wrote" }),
  target_id: Type.Union([Type.String(), Type.Null()], { description: "the older fact (for extracted: the verbatim statement it replaced)" }),
  reason: Type.String(),
  applied: Type.Boolean(),
  vetoed_by: Type.Union([Type.String(), Type.Null()], { description: "the gate that refused it" }),
  undone: Type.Boolean({ description: "an operator undid it in Review" }),
  created_at: Type.String(),
});
export type CaptureDecision = Static<typeof CaptureDecision>;

/** GET /v1/admin/workspaces/:slug/capture-decisions */
export const CaptureDecisionQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: "1-200, default 50" }),
  vetoed: Type.Optional(Type.Boolean({ description: "true: only vetoed decisions; false: only applied ones" })),
});
export type CaptureDecisionQuery = Static<typeof CaptureDecisionQuery>;

export const CaptureDecisionList = Type.Object({ decisions: Type.Array(CaptureDecision) });
export type CaptureDecisionList = Static<typeof CaptureDecisionList>;

/** The judging model's reply: a label per candidate it relates to the new fact ("N1", "C2": the prompt's own names). */
export const JudgeReply = Type.Object({
  decisions: Type.Array(
    Type.Object({
      fact: Type.String({ maxLength: 20 }),
      candidate: Type.String({ maxLength: 20 }),
      label: Type.Union([Type.Literal("replaces"), Type.Literal("updates"), Type.Literal("duplicate"), Type.Literal("unrelated")]),
      reason: Type.String({ maxLength: 2_000 }),
    }),
    { maxItems: 500 },
  ),
});
export type JudgeReply = Static<typeof JudgeReply>;

/** The extracting model's reply: standalone facts drawn from the conversation. */
export const ExtractReply = Type.Object({
  facts: Type.Array(Type.Object({ text: Type.String({ minLength: 1, maxLength: 2_000 }) }), { maxItems: 100 }),
});
export type ExtractReply = Static<typeof ExtractReply>;

export const DecisionParams = Type.Object({ decision_id: Text({ minLength: 1, maxLength: 200, description: "a capture decision id" }) });

/** POST /v1/admin/capture-decisions/:decision_id/undo */
export const UndoDecisionResult = Type.Object({
  decision_id: Type.String(),
  label: DecisionLabel,
  restored: Type.Union([Type.String(), Type.Null()], { description: "the fact live again (replaces, duplicate, extracted)" }),
  unlinked: Type.Boolean({ description: "updates: the link from the newer fact is gone" }),
});
export type UndoDecisionResult = Static<typeof UndoDecisionResult>;
