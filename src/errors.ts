import { redactUrlCredentials } from "./redact";
import type { ErrorEnvelope } from "./schema/errors";

/** Every failure the service reports, in the one shape the wire knows. */
export type ErrorCode =
  | "api_key_invalid"
  | "api_key_revoked"
  | "api_key_expired"
  | "admin_token_invalid"
  | "scope_missing"
  | "out_of_credits"
  | "rate_limited"
  | "conversation_busy"
  | "idempotency_key_reused"
  | "validation_error"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "forbidden_origin"
  | "data_dir_locked"
  | "already_exists"
  | "shutting_down"
  | "database_unavailable"
  | "internal_error";

/** The one error type; `toResponse` is the one place an error becomes a wire response. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    status: number,
    message: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.details = details;
    this.headers = headers;
  }

  toBody(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: redactUrlCredentials(this.message),
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }

  toResponse(extraHeaders: Record<string, string> = {}): Response {
    return new Response(JSON.stringify(this.toBody()), {
      status: this.status,
      headers: { "content-type": "application/json", ...extraHeaders, ...this.headers },
    });
  }
}

export const internalError = (): ApiError =>
  new ApiError("internal_error", 500, "internal error; retry the request, and report the request id if it persists");

export const notFound = (what: string): ApiError => new ApiError("not_found", 404, `${what} not found`);
