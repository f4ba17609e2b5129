import { Elysia } from "elysia";
import type { AnswerEngine } from "../answers/engine";
import { createAnswer, getAnswer } from "../answers/service";
import { answerEventStream } from "../answers/sse";
import type { Db } from "../db/types";
import type { FactIndexes } from "../memory/index/registry";
import { AnswerRequest, GetAnswerParams, GetAnswerQuery, IdempotencyKey } from "../schema/answers";
import { parseInput } from "../schema/validate";
import { readJsonBody } from "./body";
import { ok, type RequestPipeline } from "./pipeline";

/** The answer routes (docs/api.md, Answers): streamed or queued answers, and polling. */
export function answerRoutes(deps: { db: Db; index: FactIndexes; engine: AnswerEngine; pipeline: RequestPipeline }) {
  const { db, index, engine } = deps;
  return new Elysia({ name: "answers" })
    .use(deps.pipeline)
    .post(
      "/v1/answers",
      async ({ caller, request, set }) => {
        const input = parseInput(AnswerRequest, await readJsonBody(request));
        const service = { db, index, caller, engine };
        if (!input.stream) {
          const header = request.headers.get("idempotency-key");
          const idempotencyKey = header === null ? undefined : parseInput(IdempotencyKey, header, "Idempotency-Key");
          const { run } = await createAnswer(service, input, { mode: "queued", idempotencyKey });
          return ok(set, { answer_id: run.id, status: "queued" as const }, 202);
        }
        const { run } = await createAnswer(service, input, { mode: "stream" });
        return new Response(answerEventStream({ db, index, caller }, engine, run), {
          status: 200,
          headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" },
        });
      },
      { auth: "answers.write", parse: "none" },
    )
    .get(
      "/v1/answers/:answer_id",
      async ({ caller, params, query, set }) => {
        const { answer_id: answerId } = parseInput(GetAnswerParams, params, "path");
        const { include } = parseInput(GetAnswerQuery, query, "query");
        return ok(set, await getAnswer({ db, index, caller }, answerId, include === "sources"));
      },
      { auth: "answers.write" },
    );
}
