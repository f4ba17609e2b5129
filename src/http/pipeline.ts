import type { Server } from "bun";
import { Elysia } from "elysia";
import { authenticate, rateHeaders, requireScope, secretFromHeaders, type AuthContext } from "../auth/authenticate";
import { authorizeAdmin } from "../admin/credential";
import { authorizeSession } from "../admin/session";
import type { Config } from "../config";
import type { DatabaseOutage } from "../db/outage";
import type { Db } from "../db/types";
import { isDatabaseUnavailable } from "../db/unavailable";
import { ApiError, internalError } from "../errors";
import type { Logger } from "../log";
import type { Metrics } from "../metrics";
import type { Scope } from "../schema/auth";
import { callerOf } from "../service";
import { issuerOf, MCP_PATH, withResourceMetadata } from "../oauth/metadata";
import { parseCidr, type Cidr } from "../net/cidr";
import { forwardedClient, rememberClient, rememberedClient } from "../net/proxies";
import { parseJsonInput } from "./body";
import { corsHeaders, corsOrigin, preflightHeaders } from "./cors";
import { ADMIN_SECURITY, KEY_SECURITY, replyResponses, type Reply } from "./openapi";

type HeaderBag = Record<string, string | number>;

/** The slice of Elysia's context authentication needs. */
interface AuthInput {
  request: Request;
  server: Server<unknown> | null;
  set: { headers: HeaderBag };
}

/** A caller's own request id is echoed (and logged) when it is safe to; otherwise one is made up. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

export function clientAddress(request: Request, server: Server<unknown> | null): string {
  return rememberedClient(request)?.address ?? peerAddress(request, server);
}

/** The TCP peer: the client itself, or the last proxy in front of it. */
function peerAddress(request: Request, server: Server<unknown> | null): string {
  return server?.requestIP(request)?.address ?? "local";
}

/**
 * Authenticates the caller, counts the request against its rate limit and checks the scope,
 * in that order; the rate-limit headers (or the 401/429's own) ride on whichever response follows.
 */
async function authorize(db: Db, config: Config, ctx: AuthInput, scope: Scope | null): Promise<AuthContext> {
  try {
    const auth = await authenticate(db, secretFromHeaders(ctx.request.headers), clientAddress(ctx.request, ctx.server));
    Object.assign(ctx.set.headers, rateHeaders(auth.rate));
    if (scope !== null) requireScope(auth, scope);
    return auth;
  } catch (error) {
    if (error instanceof ApiError) {
      // The tool server is the OAuth protected resource: its 401 says where authorization starts.
      const challenge = error.headers["www-authenticate"];
      if (challenge !== undefined && new URL(ctx.request.url).pathname === MCP_PATH) {
        error.headers["www-authenticate"] = withResourceMetadata(challenge, issuerOf(ctx.request, config));
      }
      Object.assign(ctx.set.headers, error.headers);
    }
    throw error;
  }
}

/** What a route's `auth` option asks for: a scope, or any valid key. */
export type RouteAuth = Scope | "any-scope";

/**
 * Who the pipeline authenticated, per request. Authentication runs in the transform phase,
 * before Elysia validates the route's input, so a caller without a valid key learns nothing
 * about the input and every attempt counts against its rate limit; `resolve` then hands the
 * result to the handler.
 */
const authenticated = new WeakMap<Request, AuthContext>();

/**
 * The one request pipeline every feature plugin uses (Elysia's named-plugin pattern: registered
 * once, whatever the number of `.use`). Per request: an id (`x-request-id`) and a start time;
 * every error mapped to the envelope by `ApiError` in one place; one JSON log line after each
 * response; and a 404 in the envelope for unknown routes. Per route, its one declaration:
 * - `auth: "memory.read"` (or `"any-scope"`): authentication, rate limit and scope; handlers
 *   receive `auth` (the key) and `caller` (what service functions take). `admin: true`: the
 *   admin credential or a settings-app session instead.
 * - `json: true` with `body: input(Schema)`, and `query`/`params: input(Schema, …)`: the body
 *   read within the limits and every input validated before the handler, which receives it typed.
 * - `returns: { data: Schema, status }`: the handler's value sent as `{ data }` with that status.
 * - `detail: { summary }`: with the above, the route's entry in the OpenAPI document.
 */
export function requestPipeline(deps: { db: Db; log: Logger; config: Config; metrics: Metrics; outage: DatabaseOutage }) {
  const trusted = deps.config.trustedProxies.map(parseCidr).filter((range): range is Cidr => range !== null);
  const countFailure = (error: unknown): never => {
    if (error instanceof ApiError && (error.status === 401 || error.status === 429)) deps.metrics.authFailure(error.code);
    throw error;
  };
  return (
    new Elysia({ name: "request-pipeline" })
      .derive({ as: "global" }, ({ request, server, set }) => {
        rememberClient(request, forwardedClient(peerAddress(request, server), request.headers, trusted));
        const requestId = requestIdOf(request);
        set.headers["x-request-id"] = requestId;
        const origin = corsOrigin(request, deps.config.allowedOrigins);
        if (origin !== null) Object.assign(set.headers, corsHeaders(origin));
        return { requestId, startedAt: performance.now() };
      })
      .macro({
        // The settings app's credential (MEMORYD_ADMIN_TOKEN or the stored admin token), or a
        // settings-app session cookie (with its CSRF token on changes).
        admin: {
          detail: { security: ADMIN_SECURITY },
          async transform({ request, server }) {
            const secret = secretFromHeaders(request.headers);
            if (secret !== undefined || !(await authorizeSession(deps.db, request))) {
              await authorizeAdmin(deps.db, deps.config, secret, clientAddress(request, server)).catch((error: unknown) => {
                if (error instanceof ApiError) deps.metrics.authFailure(error.code);
                throw error;
              });
            }
          },
        },
        auth: (required: RouteAuth) => ({
          detail: { security: KEY_SECURITY, ...(required === "any-scope" ? {} : { description: `Needs the \`${required}\` scope.` }) },
          async transform({ request, server, set }) {
            const auth = await authorize(deps.db, deps.config, { request, server, set }, required === "any-scope" ? null : required).catch(countFailure);
            authenticated.set(request, auth);
          },
          resolve({ request }) {
            const auth = authenticated.get(request);
            if (auth === undefined) throw internalError();
            return { auth, caller: callerOf(auth, "rest") };
          },
        }),
        json: { parse: parseJsonInput },
        returns: (reply: Reply) => {
          const detail = { responses: replyResponses(reply) };
          // A reply of its own media type is the handler's own Response: nothing to wrap.
          if ("media" in reply) return { detail };
          const status = reply.status ?? 200;
          return {
            detail,
            afterHandle({ responseValue, set }) {
              // A handler may still answer with its own Response (the answer stream).
              if (responseValue instanceof Response) return;
              set.status = status;
              return { data: responseValue };
            },
          };
        },
      })
      .onError({ as: "global" }, ({ code, error, request, set }) => {
        const apiError =
          error instanceof ApiError
            ? error
            : code === "NOT_FOUND"
              ? new ApiError("not_found", `no route ${request.method} ${new URL(request.url).pathname}`)
              : code === "PARSE"
                ? new ApiError("validation_error", "request body is not valid JSON")
                : isDatabaseUnavailable(error)
                  ? deps.outage.refused(error)
                  : null;
        if (apiError === null) {
          deps.log.error("unexpected error", {
            request_id: set.headers["x-request-id"],
            error: error instanceof Error ? error.message : String(error),
            stack: error instanceof Error ? error.stack : undefined,
          });
        }
        const failure = apiError ?? internalError();
        set.status = failure.status;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(set.headers)) if (value !== undefined) headers[name] = String(value);
        // The tool server's clients read JSON-RPC: a database that is away is a JSON-RPC error there too.
        if (failure.code === "database_unavailable" && new URL(request.url).pathname === MCP_PATH) return failure.toJsonRpcResponse(null, headers);
        return failure.toResponse(headers);
      })
      .onAfterResponse({ as: "global" }, (ctx) => {
        const { request, set, route } = ctx;
        const startedAt = "startedAt" in ctx && typeof ctx.startedAt === "number" ? ctx.startedAt : undefined;
        const auth = authenticated.get(request);
        const status = typeof set.status === "number" ? set.status : 200;
        // An authenticated request read its key from the database: if it did not fail, the database answers.
        if (deps.outage.active && status < 500 && auth !== undefined) deps.outage.reachable();
        // Route patterns only ("/v1/answers/:answer_id"): a raw path could carry ids or names.
        const pattern = route && route !== "/*" ? route : "unmatched";
        deps.metrics.request(pattern, request.method, status, startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000);
        deps.log.info("request", {
          request_id: set.headers["x-request-id"],
          method: request.method,
          route: route && route !== "/*" ? route : new URL(request.url).pathname,
          client: rememberedClient(request)?.address,
          status: typeof set.status === "number" ? set.status : 200,
          duration_ms: startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 100) / 100,
          key_prefix: auth?.keyPrefix,
        });
      })
      // A preflight from an allowed origin is answered; from any other, nothing is allowed.
      .options("/v1/*", ({ request, set }) => {
        const origin = corsOrigin(request, deps.config.allowedOrigins);
        if (origin !== null) Object.assign(set.headers, preflightHeaders(origin));
        set.status = 204;
        return "";
      })
      .all(
        "/*",
        ({ request }): never => {
          throw new ApiError("not_found", `no route ${request.method} ${new URL(request.url).pathname}`);
        },
        { detail: { hide: true } },
      )
  );
}

export type RequestPipeline = ReturnType<typeof requestPipeline>;
