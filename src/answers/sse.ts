import { ApiError, internalError } from "../errors";
import type { ServiceContext } from "../service";
import { toAnswer } from "./service";
import type { RunRow } from "./store";
import type { AnswerEngine } from "./engine";

const KEEP_ALIVE_MS = 15_000;

/**
 * The answer as server-sent events, exactly: answer.created, answer.delta…, then
 * answer.completed or answer.failed, then done. The run belongs to the engine, not to the
 * connection: a client that disconnects only stops the writing; the run completes and is stored.
 */
export function answerEventStream(ctx: ServiceContext, engine: AnswerEngine, run: RunRow): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let open = true;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (chunk: string): void => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          open = false;
        }
      };
      const send = (event: string, data: unknown): void => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      keepAlive = setInterval(() => write(": keep-alive\n\n"), KEEP_ALIVE_MS);

      send("answer.created", { answer_id: run.id, conversation_id: run.conversation_id });
      void engine
        .run(run, (text) => {
          if (text !== "") send("answer.delta", { text });
        })
        .then(async (outcome) => {
          if (outcome.status === "completed") {
            const completed: RunRow = {
              ...run,
              status: "completed",
              output_text: outcome.text,
              input_tokens: outcome.usage.input_tokens,
              output_tokens: outcome.usage.output_tokens,
              source_ids: outcome.sourceIds,
            };
            // The same Answer GET returns, sources as the caller may see them; the run wrote facts
            // of its own since the request was authenticated, so the index asks for the head.
            send("answer.completed", await toAnswer({ ...ctx, caller: { ...ctx.caller, factSeq: null } }, completed, true));
          } else if (outcome.status === "failed") {
            send("answer.failed", { error: { code: outcome.code, message: outcome.message } });
          } else {
            const handedOver = `this instance is shutting down; the answer will be completed by another instance, poll GET /v1/answers/${run.id}`;
            send("answer.failed", new ApiError("shutting_down", handedOver).toBody());
          }
        })
        .catch(() => send("answer.failed", internalError().toBody()))
        .finally(() => {
          send("done", { ok: true });
          clearInterval(keepAlive);
          if (open) {
            open = false;
            try {
              controller.close();
            } catch {
              // already closed by the client
            }
          }
        });
    },
    cancel() {
      open = false;
      clearInterval(keepAlive);
    },
  });
}
