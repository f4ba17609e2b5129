import { redactUrlCredentials } from "./redact";
import type { ErrorEnvelope, OAuthErrorBody } from "./schema/errors";

/** The OAuth endpoints' error codes (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2). */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata";

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
  | "backup_unsupported"
  | "already_exists"
  | "shutting_down"
  | "database_unavailable"
  | "internal_error"
  | OAuthErrorCode;

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

  /** An OAuth endpoint's error: same type, rendered in the RFC's shape by toResponse. */
  static oauth(code: OAuthErrorCode, message: string, status = 400): ApiError {
    const error = new ApiError(code, status, message, undefined, { "cache-control": "no-store" });
    error.shape = "oauth";
    return error;
  }

  private shape: "envelope" | "oauth" = "envelope";

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
    const body: ErrorEnvelope | OAuthErrorBody =
      this.shape === "oauth" ? { error: this.code, error_description: this.message } : this.toBody();
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { "content-type": "application/json", ...extraHeaders, ...this.headers },
    });
  }
}

export const internalError = (): ApiError =>
  new ApiError("internal_error", 500, "internal error; retry the request, and report the request id if it persists");

export const notFound = (what: string): ApiError => new ApiError("not_found", 404, `${what} not found`);
