/**
 * CORS for the REST API, for the browser origins listed in MEMORYD_ALLOWED_ORIGINS (pages that
 * call memoryd with an external key): preflights answered, the auth, content-type and
 * Idempotency-Key headers allowed, the request-id and rate-limit headers readable. Other origins
 * get no CORS header at all, so browsers keep their pages out. The tool server has its own Origin
 * rule (origin.ts) and the admin API is same-origin only.
 */
const ALLOWED_HEADERS = "authorization, x-api-key, content-type, idempotency-key, x-request-id";
const EXPOSED_HEADERS = "x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after";
const ALLOWED_METHODS = "GET, POST, DELETE";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/** The request's Origin when it may call this path cross-origin, else null. */
export function corsOrigin(request: Request, allowedOrigins: readonly string[]): string | null {
  const origin = request.headers.get("origin");
  if (origin === null || !allowedOrigins.includes(origin)) return null;
  const path = new URL(request.url).pathname;
  return path.startsWith("/v1/") && !path.startsWith("/v1/admin") && path !== "/v1/mcp" ? origin : null;
}

/** Headers every response to an allowed origin carries. */
export function corsHeaders(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED_HEADERS, vary: "Origin" };
}

/** The answer to a preflight (`OPTIONS`): what may be sent, for how long. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    ...corsHeaders(origin),
    "access-control-allow-methods": ALLOWED_METHODS,
    "access-control-allow-headers": ALLOWED_HEADERS,
    "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
  };
}
