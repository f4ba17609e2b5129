import { Elysia } from "elysia";
import type { AnswerEngine } from "../answers/engine";
import { createAnswer, getAnswer } from "../answers/service";
import { answerEventStream } from "../answers/sse";
import type { Db } from "../db/types";
import type { FactIndexes } from "../memory/index/registry";
import { Answer, AnswerRequest, GetAnswerParams, GetAnswerQuery, IdempotencyKey, QueuedAnswer } from "../schema/answers";
import { input, parseInput } from "../schema/validate";
import type { RequestPipeline } from "./pipeline";

const STREAM_EVENTS =
  "stream: true. Events, in order: answer.created {answer_id, conversation_id}; answer.delta {text}…; " +
  "then answer.completed (an Answer) or answer.failed {error: {code, message}}; then done {ok: true}.";

/** The answer routes (docs/api.md, Answers): streamed or queued answers, and polling. */
export function answerRoutes(deps: { db: Db; index: FactIndexes; engine: AnswerEngine; pipeline: RequestPipeline }) {
  const { db, index, engine } = deps;
  return new Elysia({ name: "answers" })
    .use(deps.pipeline)
    .post(
      "/v1/answers",
      async ({ caller, body, request }) => {
        const service = { db, index, caller, engine };
        if (!body.stream) {
          const header = request.headers.get("idempotency-key");
          const idempotencyKey = header === null ? undefined : parseInput(IdempotencyKey, header, "Idempotency-Key");
          const { run } = await createAnswer(service, body, { mode: "queued", idempotencyKey });
          return { answer_id: run.id, status: "queued" as const };
        }
        const { run } = await createAnswer(service, body, { mode: "stream" });
        return new Response(answerEventStream({ db, index, caller }, engine, run), {
          status: 200,
          headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" },
        });
      },
      {
        auth: "answers.write",
        json: true,
        body: input(AnswerRequest),
        returns: {
          status: 202,
          data: QueuedAnswer,
          description: "stream: false: queued; poll GET /v1/answers/{answer_id}",
          or: { status: 200, media: "text/event-stream", description: STREAM_EVENTS },
        },
        detail: {
          summary: "Ask the worker: streamed (server-sent events) or queued",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              schema: { type: "string", pattern: IdempotencyKey.pattern },
              description: "queued mode: a replay returns the same answer_id",
            },
          ],
        },
      },
    )
    .get("/v1/answers/:answer_id", ({ caller, params, query }) => getAnswer({ db, index, caller }, params.answer_id, query.include === "sources"), {
      auth: "answers.write",
      params: input(GetAnswerParams, "path"),
      query: input(GetAnswerQuery, "query"),
      returns: { data: Answer },
      detail: { summary: "Poll an answer" },
    });
}
