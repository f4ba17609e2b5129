import { ApiError, internalError } from "../errors";
import type { FactIndexes } from "../memory/index/registry";
import { sourcesFor } from "./service";
import type { RunRow } from "./store";
import type { AnswerEngine } from "./engine";

const KEEP_ALIVE_MS = 15_000;

/**
 * The answer as server-sent events, exactly: answer.created, answer.delta…, then
 * answer.completed or answer.failed, then done. The run belongs to the engine, not to the
 * connection: a client that disconnects only stops the writing; the run completes and is stored.
 */
export function answerEventStream(engine: AnswerEngine, index: FactIndexes, run: RunRow): ReadableStream<Uint8Array> {
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
            send("answer.completed", {
              answer_id: run.id,
              status: "completed",
              output_text: outcome.text,
              conversation_id: run.conversation_id,
              usage: outcome.usage,
              sources: await sourcesFor(
                index,
                { workspaceId: run.workspace_id, audience: run.audience, endUserId: run.end_user_id, kinds: null },
                null,
                outcome.sourceIds,
              ),
            });
          } else if (outcome.status === "failed") {
            send("answer.failed", { error: { code: outcome.code, message: outcome.message } });
          } else {
            const handedOver = `this instance is shutting down; the answer will be completed by another instance, poll GET /v1/answers/${run.id}`;
            send("answer.failed", new ApiError("shutting_down", 503, handedOver).toBody());
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
