import { Elysia } from "elysia";
import type { AnswerEngine } from "../answers/engine";
import { createAnswer, getAnswer } from "../answers/service";
import { answerEventStream } from "../answers/sse";
import type { Db } from "../db/types";
import type { FactIndexes } from "../memory/index/registry";
import { AnswerRequest, GetAnswerParams, GetAnswerQuery, IdempotencyKey } from "../schema/answers";
import { parseInput } from "../schema/validate";
import { authorize, ok, readJsonBody } from "./context";

/** 4.4 and 4.5: streamed or queued answers, and polling. */
export function answerRoutes(deps: { db: Db; index: FactIndexes; engine: AnswerEngine }) {
  const { db, index, engine } = deps;
  return new Elysia({ name: "answers" })
    .post(
      "/v1/answers",
      async (ctx) => {
        const auth = await authorize(db, ctx, "answers.write");
        const input = parseInput(AnswerRequest, await readJsonBody(ctx.request));
        const service = { db, index, auth, channel: "rest" as const, engine };
        if (!input.stream) {
          const header = ctx.request.headers.get("idempotency-key");
          const idempotencyKey = header === null ? undefined : parseInput(IdempotencyKey, header, "Idempotency-Key");
          const { run } = await createAnswer(service, input, { mode: "queued", idempotencyKey });
          return ok(ctx, { answer_id: run.id, status: "queued" as const }, 202);
        }
        const { run } = await createAnswer(service, input, { mode: "stream" });
        return new Response(answerEventStream(engine, index, run), {
          status: 200,
          headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" },
        });
      },
      { parse: "none" },
    )
    .get("/v1/answers/:answer_id", async (ctx) => {
      const auth = await authorize(db, ctx, "answers.write");
      const { answer_id: answerId } = parseInput(GetAnswerParams, ctx.params, "path");
      const query = parseInput(GetAnswerQuery, ctx.query, "query");
      return ok(ctx, await getAnswer({ db, index, auth, channel: "rest" }, answerId, query.include === "sources"));
    });
}
