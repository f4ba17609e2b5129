/**
 * What the language-model providers share about failing: the stable code for an HTTP status, one
 * wording for every provider's messages, and the rule that a message never carries the API key.
 */
import { ModelError } from "./types";

/** The codes a call to a model API can end with. */
export type ApiCode = Exclude<ModelError["code"], "model_not_configured">;

/** How each code reads after "The <API> ...". */
const PHRASES: Record<ApiCode, string> = {
  model_rate_limited: "rate limit was reached",
  model_overloaded: "is overloaded",
  model_auth_failed: "rejected the API key",
  model_timeout: "timed out",
  model_unavailable: "is unavailable",
  model_error: "returned an error",
};

/** The code for an HTTP status a model API answered with. */
export function codeForStatus(status: number): ApiCode {
  if (status === 429) return "model_rate_limited";
  // 529 is Anthropic's "overloaded"; OpenAI-compatible servers say 503 for the same thing.
  if (status === 529) return "model_overloaded";
  if (status === 401 || status === 403) return "model_auth_failed";
  if (status === 408 || status === 504) return "model_timeout";
  if (status === 502 || status === 503) return "model_unavailable";
  return "model_error";
}

/**
 * A failure as `{code, text}`: `status` undefined means the API reported the error inside a
 * response stream that had already started; `detail` is the API's own message, if any.
 */
export function apiFailure(api: string, code: ApiCode, status: number | undefined, detail: string | undefined): { code: ApiCode; text: string } {
  const where = status === undefined ? "during the response stream" : `(HTTP ${status})`;
  return { code, text: `The ${api} ${PHRASES[code]} ${where}${detail ? `: ${detail}` : ""}` };
}

/** A stream that ended or broke before the model said it was done. */
export function brokenStream(api: string, error: unknown): { code: ApiCode; text: string } {
  if (error instanceof SyntaxError) return { code: "model_error", text: `The ${api} sent a malformed response stream.` };
  return { code: "model_unavailable", text: `The response stream from the ${api} broke off before the answer was complete.` };
}

/** A response that went quiet for longer than the timeout. */
export function stalledStream(api: string, timeoutMs: number): ModelError {
  return new ModelError("model_timeout", `The ${api} response stalled for more than ${timeoutMs} ms.`);
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The ModelError to end a run with: at most 1,000 characters, and never the key. */
export function modelError(failure: { code: ApiCode; text: string }, apiKey: string | undefined): ModelError {
  const text = apiKey === undefined || apiKey === "" ? failure.text : failure.text.split(apiKey).join("[redacted]");
  return new ModelError(failure.code, truncate(text, 1_000));
}
