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
  | "agent_mismatch"
  | "agent_in_use"
  | "not_superseded"
  | "decision_not_applied"
  | "forget_count_changed"
  | "shutting_down"
  | "database_unavailable"
  | "internal_error"
  | OAuthErrorCode;

/**
 * The HTTP status of every error code: the one table. An error's status comes from its code, so
 * two places cannot answer the same code differently (the OpenAPI document lists this table).
 */
export const ERROR_STATUS = {
  api_key_invalid: 401,
  api_key_revoked: 401,
  api_key_expired: 401,
  admin_token_invalid: 401,
  scope_missing: 403,
  forbidden_origin: 403,
  agent_mismatch: 403,
  out_of_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  conversation_busy: 409,
  idempotency_key_reused: 409,
  already_exists: 409,
  agent_in_use: 409,
  not_superseded: 409,
  decision_not_applied: 409,
  forget_count_changed: 409,
  backup_unsupported: 409,
  payload_too_large: 413,
  validation_error: 422,
  rate_limited: 429,
  internal_error: 500,
  data_dir_locked: 500,
  shutting_down: 503,
  database_unavailable: 503,
  invalid_request: 400,
  invalid_client: 400,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
} as const satisfies Record<ErrorCode, number>;

/** The one error type; `toResponse` is the one place an error becomes a wire response. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly headers: Record<string, string>;
  #status: number;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.#status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }

  /** The HTTP status, from the code (`ERROR_STATUS`). */
  get status(): number {
    return this.#status;
  }

  /**
   * An OAuth endpoint's error: same type, rendered in the RFC's shape by toResponse. The one
   * status that may differ from the table: RFC 6749 §5.2 answers a failed client authentication
   * at the token endpoint with 401.
   */
  static oauth(code: OAuthErrorCode, message: string, status: 400 | 401 = 400): ApiError {
    const error = new ApiError(code, message, undefined, { "cache-control": "no-store" });
    error.shape = "oauth";
    error.#status = status;
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

  /**
   * The error as a JSON-RPC 2.0 error response (the tool server's wire): `code` -32603, the
   * message led by our code, and `data` carrying the code and HTTP status, at the same HTTP
   * status and headers as the REST answer.
   */
  toJsonRpcResponse(id: string | number | null, extraHeaders: Record<string, string> = {}): Response {
    const body = {
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: `${this.code}: ${redactUrlCredentials(this.message)}`, data: { error: this.code, http_status: this.status } },
    };
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { "content-type": "application/json", ...extraHeaders, ...this.headers },
    });
  }

  toResponse(extraHeaders: Record<string, string> = {}): Response {
    const body: ErrorEnvelope | OAuthErrorBody = this.shape === "oauth" ? { error: this.code, error_description: this.message } : this.toBody();
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { "content-type": "application/json", ...extraHeaders, ...this.headers },
    });
  }
}

export const internalError = (): ApiError => new ApiError("internal_error", "internal error; retry the request, and report the request id if it persists");

export const notFound = (what: string): ApiError => new ApiError("not_found", `${what} not found`);
