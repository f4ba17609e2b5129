import { Elysia } from "elysia";
import type { AnswerEngine } from "./answers/engine";
import type { Config } from "./config";
import type { Db } from "./db/types";
import { ApiError, internalError } from "./errors";
import { answerRoutes } from "./http/answers";
import { healthRoutes } from "./http/health";
import { keyPrefixes, MAX_BODY_BYTES, payloadTooLarge } from "./http/context";
import { mcpRoutes } from "./http/mcp";
import { memoryRoutes } from "./http/memory";
import { whoamiRoutes } from "./http/whoami";
import type { Logger } from "./log";
import type { FactIndexes } from "./memory/index/registry";

export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  engine: AnswerEngine;
  /** The process's search indexes (shared with the engine's runs). */
  index: FactIndexes;
  /** False once shutdown began: /readyz turns 503 so load balancers drain this instance. */
  isAccepting?: () => boolean;
}

const startedAt = new WeakMap<Request, number>();
const errorStatus = new WeakMap<Request, number>();

function errorResponse(request: Request, error: ApiError, headers: Record<string, string | number>): Response {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) merged[name] = String(value);
  errorStatus.set(request, error.status);
  return error.toResponse(merged);
}

/** A caller's own request id is echoed (and logged) when it is safe to; otherwise one is made up. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/** Wires every feature into one Elysia app with the shared request pipeline. */
export function createApp(deps: AppDeps) {
  return new Elysia()
    .onRequest(({ request, set }) => {
      startedAt.set(request, performance.now());
      set.headers["x-request-id"] = requestIdOf(request);
      const declared = Number(request.headers.get("content-length") ?? "0");
      if (declared > MAX_BODY_BYTES) return errorResponse(request, payloadTooLarge(), set.headers as Record<string, string>);
    })
    .onError(({ code, error, request, set }) => {
      const headers = set.headers as Record<string, string>;
      if (error instanceof ApiError) return errorResponse(request, error, headers);
      if (code === "NOT_FOUND") {
        return errorResponse(request, new ApiError("not_found", 404, `no route ${request.method} ${new URL(request.url).pathname}`), headers);
      }
      if (code === "PARSE") {
        return errorResponse(request, new ApiError("validation_error", 400, "request body is not valid JSON"), headers);
      }
      deps.log.error("unexpected error", {
        request_id: headers["x-request-id"],
        error: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
      return errorResponse(request, internalError(), headers);
    })
    .onAfterResponse(({ request, set, route }) => {
      const began = startedAt.get(request);
      deps.log.info("request", {
        request_id: set.headers["x-request-id"],
        method: request.method,
        route: route || new URL(request.url).pathname,
        status: errorStatus.get(request) ?? (typeof set.status === "number" ? set.status : 200),
        duration_ms: began === undefined ? undefined : Math.round((performance.now() - began) * 100) / 100,
        key_prefix: keyPrefixes.get(request),
      });
    })
    .use(healthRoutes(deps))
    .use(whoamiRoutes(deps))
    .use(memoryRoutes(deps))
    .use(answerRoutes(deps))
    .use(mcpRoutes(deps));
}

export type App = ReturnType<typeof createApp>;
