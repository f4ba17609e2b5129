import { Type, type Static } from "@sinclair/typebox";
import { EndUser, FactKind, Text } from "./memory";

const ConversationId = Text({ minLength: 1, maxLength: 200, description: "your thread key; reuse it to continue a conversation (1-200 characters)" });
const AgentSlug = Text({ minLength: 1, maxLength: 200, description: "which worker answers (default main)" });
const Input = Text({ minLength: 1, maxLength: 8000, description: "the question or message (1-8000 characters)" });

/** What every way of asking the worker shares (REST POST /v1/answers and the ask_worker tool). */
const Question = Type.Object({
  input: Input,
  conversation_id: Type.Optional(ConversationId),
  end_user: Type.Optional(EndUser),
  agent_slug: Type.String({ ...AgentSlug, default: "main" }),
});

/** POST /v1/answers (docs/api.md, Answers). */
export const AnswerRequest = Type.Composite([
  Question,
  Type.Object({
    stream: Type.Boolean({ default: true, description: "true: server-sent events; false: queued, poll GET /v1/answers/:id" }),
    include: Type.Optional(Type.Array(Type.Literal("sources"), { maxItems: 1, description: '["sources"] adds the facts used' })),
  }),
]);
export type AnswerRequest = Static<typeof AnswerRequest>;

/** Idempotency-Key header (queued mode): 1-200 printable ASCII characters. */
export const IdempotencyKey = Type.String({ pattern: "^[\\x20-\\x7E]{1,200}$", description: "1-200 printable ASCII characters" });

const AnswerId = Text({ minLength: 1, maxLength: 200, description: "the answer_id from POST /v1/answers or ask_worker" });

/** GET /v1/answers/:answer_id path: an id that cannot be stored (NUL, too long) is refused before it reaches the database. */
export const GetAnswerParams = Type.Object({ answer_id: AnswerId });

/** GET /v1/answers/:answer_id query string. */
export const GetAnswerQuery = Type.Object({
  include: Type.Optional(Type.Literal("sources", { description: "sources is the only supported value" })),
});
export type GetAnswerQuery = Static<typeof GetAnswerQuery>;

export const Usage = Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() });
export type Usage = Static<typeof Usage>;

/** The worker's memory tools as the model sees them (the runner binds them to the run's caller). */
export const SearchMemoryToolInput = Type.Object(
  {
    query: Type.String({
      description: 'What to look for: a few keywords or a short question, e.g. "deploy region" or "who owns billing".',
    }),
  },
  { additionalProperties: false },
);
export const RememberToolInput = Type.Object(
  {
    fact: Type.String({
      description: 'The fact as one self-contained sentence, e.g. "Dana prefers PostgreSQL over MySQL for new services."',
    }),
  },
  { additionalProperties: false },
);

export const Source = Type.Object({
  fact_id: Type.String(),
  fact_text: Type.String(),
  kind: FactKind,
  subject: Type.String(),
});
export type Source = Static<typeof Source>;

export const AnswerStatus = Type.Union([Type.Literal("queued"), Type.Literal("in_progress"), Type.Literal("completed"), Type.Literal("failed")]);
export type AnswerStatus = Static<typeof AnswerStatus>;

export const AnswerError = Type.Object({ code: Type.String(), message: Type.String() });

/** An answer (docs/api.md, Answers). */
export const Answer = Type.Object({
  answer_id: Type.String(),
  status: AnswerStatus,
  output_text: Type.String(),
  conversation_id: Type.String(),
  usage: Usage,
  sources: Type.Optional(Type.Array(Source)),
  error: Type.Optional(AnswerError),
});
export type Answer = Static<typeof Answer>;

export const QueuedAnswer = Type.Object({ answer_id: Type.String(), status: Type.Literal("queued") });
export type QueuedAnswer = Static<typeof QueuedAnswer>;

const TimeoutSeconds = Type.Integer({
  minimum: 0,
  maximum: 120,
  default: 60,
  description: "how long to wait for the answer (0-120 s, default 60; 0 returns the answer_id at once)",
});

/** The ask_worker tool (docs/mcp.md): the queued create plus a bounded wait. */
export const AskWorkerArgs = Type.Composite([
  Question,
  Type.Object({
    timeout_seconds: TimeoutSeconds,
    idempotency_key: Type.Optional(
      Text({ minLength: 1, maxLength: 200, description: "reuse with the same arguments to get the same answer_id instead of a second run" }),
    ),
  }),
]);
export type AskWorkerArgs = Static<typeof AskWorkerArgs>;

/** The wait_for_answer tool (docs/mcp.md). */
export const WaitForAnswerArgs = Type.Object({
  answer_id: AnswerId,
  timeout_seconds: TimeoutSeconds,
});
export type WaitForAnswerArgs = Static<typeof WaitForAnswerArgs>;

export const WaitTimedOut = Type.Object({ wait_timed_out: Type.Literal(true), answer_id: Type.String() });
export type WaitTimedOut = Static<typeof WaitTimedOut>;
