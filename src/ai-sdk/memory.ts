/**
 * withMemory: a language model of the AI SDK (package `ai`, v7) wrapped in middleware that puts the
 * memory relevant to the user's last message into the system prompt before each call, and teaches
 * the turn to memoryd after it. Memory is an extra: when memoryd is slow or down the call goes on
 * without it, and onError hears why.
 */
import { type LanguageModelMiddleware, wrapLanguageModel } from "ai";
import type { Memoryd } from "../client";
import type { EndUser, FactScope, TeachMessagesRequest } from "../schema/memory";

/*
 * The model-level types, read off `ai`'s own exports: `ai` re-exports them from @ai-sdk/provider,
 * which is its dependency, not ours, so naming that package here would be a phantom import.
 */
type Middleware = LanguageModelMiddleware;
type CallOptions = Parameters<NonNullable<Middleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type GenerateResult = Awaited<ReturnType<NonNullable<Middleware["wrapGenerate"]>>>;
type StreamResult = Awaited<ReturnType<NonNullable<Middleware["wrapStream"]>>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

export type WrappableModel = Parameters<typeof wrapLanguageModel>[0]["model"];
export type MemoryModel = ReturnType<typeof wrapLanguageModel>;

export interface WithMemoryOptions {
  client: Memoryd;
  /** The person the conversation is with: their facts join the context, and what they say is taught about them. */
  endUser?: EndUser;
  /**
   * The agent the model answers as: its own facts join the context (a key bound to an agent acts
   * as it without this). What the user says is taught to the workspace unless `teachScope` is "agent".
   */
  agent?: string;
  /** Where taught turns go: the workspace (default) or the agent's own memory (needs an agent). */
  teachScope?: FactScope;
  /** Upper bound on the memory block's tokens (the server's default when left out). */
  tokenBudget?: number;
  /** Teach each finished turn (default true). */
  teach?: boolean;
  /** How long a call waits for memory before going on without it (default 1000 ms). */
  timeoutMs?: number;
  /** Hears every failure to read or teach memory; the call itself never fails for one. */
  onError?: (error: Error) => void;
}

/** The context API's query limit: a longer message still makes a good query from its start. */
const MAX_QUERY_CHARS = 2000;
/** The messages API's per-message limit: the assistant's text is context for the user's, never taught itself. */
const MAX_MESSAGE_CHARS = 8000;

export function withMemory(model: WrappableModel, options: WithMemoryOptions): MemoryModel {
  const { client, endUser, agent, teachScope, tokenBudget, teach = true, timeoutMs = 1000, onError } = options;
  const report = (error: unknown): void => onError?.(error instanceof Error ? error : new Error(String(error)));

  /** Fire and forget: the response never waits for the teach, and a failed teach only reaches onError. */
  const teachTurn = (userText: string, assistantText: string): void => {
    if (!teach) return;
    const messages: TeachMessagesRequest["messages"] = [{ role: "user", content: userText }];
    if (assistantText.trim() !== "") messages.push({ role: "assistant", content: assistantText.slice(0, MAX_MESSAGE_CHARS) });
    client.teachMessages({ messages, ...(endUser && { end_user: endUser }), ...(agent && { agent }), ...(teachScope && { scope: teachScope }) }).catch(report);
  };

  const middleware: Middleware = {
    specificationVersion: "v4",

    transformParams: async ({ params }) => {
      const query = lastUserText(params.prompt);
      if (query === undefined) return params;
      const rendered = await memoryFor(query.slice(0, MAX_QUERY_CHARS), params.abortSignal);
      return rendered === undefined ? params : { ...params, prompt: withSystemText(params.prompt, rendered) };
    },

    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const userText = lastUserText(params.prompt);
      if (userText !== undefined && finishesTurn(result)) teachTurn(userText, textOf(result));
      return result;
    },

    wrapStream: async ({ doStream, params }) => {
      const { stream, ...rest } = await doStream();
      const userText = lastUserText(params.prompt);
      if (userText === undefined || !teach) return { stream, ...rest };
      let text = "";
      let turnGoesOn = false;
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") text += part.delta;
          // A tool call means the turn continues in the next step, which teaches it; an error means no answer to teach.
          if (part.type === "tool-call" || part.type === "error") turnGoesOn = true;
          controller.enqueue(part);
        },
        flush() {
          if (!turnGoesOn) teachTurn(userText, text);
        },
      });
      return { stream: stream.pipeThrough(watch), ...rest };
    },
  };

  /**
   * The context packet's block, or undefined when there is none to add (no facts, or memoryd failed
   * or ran out of time). The race stands guard even if a custom fetch ignores the abort signal.
   */
  async function memoryFor(query: string, callerSignal: AbortSignal | undefined): Promise<string | undefined> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`memoryd gave no context within ${timeoutMs} ms`)), timeoutMs);
    const signal = callerSignal ? AbortSignal.any([timeout.signal, callerSignal]) : timeout.signal;
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const packet = await Promise.race([
        client.context(
          { query, ...(tokenBudget !== undefined && { token_budget: tokenBudget }), ...(endUser && { end_user: endUser }), ...(agent && { agent }) },
          { signal },
        ),
        aborted,
      ]);
      return packet.facts.length > 0 ? packet.rendered : undefined;
    } catch (error) {
      // The caller's own abort ends the call anyway: that is no memoryd failure to report.
      if (!callerSignal?.aborted) report(error);
      return undefined;
    } finally {
      // Neither a late timer nor a later abort of the caller's signal may reject the settled race.
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  return wrapLanguageModel({ model, middleware });
}

/** The text of the prompt's last user message; undefined when it has none (nothing to look up or teach). */
function lastUserText(prompt: Prompt): string | undefined {
  const message = prompt.findLast((m) => m.role === "user");
  if (message?.role !== "user") return undefined;
  const text = message.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n")
    .trim();
  return text === "" ? undefined : text;
}

/** The memory block joins the system prompt: appended to the first system message, or as one at the front. */
function withSystemText(prompt: Prompt, block: string): Prompt {
  const [first, ...rest] = prompt;
  if (first?.role === "system") return [{ ...first, content: `${first.content}\n\n${block}` }, ...rest];
  return [{ role: "system", content: block }, ...prompt];
}

/** A step that calls tools is not the turn's answer: the step after the tool results is. */
function finishesTurn(result: GenerateResult): boolean {
  return !result.content.some((part) => part.type === "tool-call");
}

function textOf(result: GenerateResult): string {
  return result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}
