import type { Server } from "bun";
import { authenticate, rateHeaders, requireScope, secretFromHeaders, type AuthContext } from "../auth/authenticate";
import type { Db } from "../db/types";
import { ApiError } from "../errors";
import type { Scope } from "../schema/auth";

export const MAX_BODY_BYTES = 1024 * 1024;

type HeaderBag = Record<string, string | number>;

/** The slice of Elysia's context the adapters use; kept structural so any route can pass its own. */
export interface HttpContext {
  request: Request;
  server: Server<unknown> | null;
  set: { headers: HeaderBag; status?: number | string };
}

/** Key prefixes of authenticated requests, for the request log line. */
export const keyPrefixes = new WeakMap<Request, string>();

export function clientAddress(request: Request, server: Server<unknown> | null): string {
  return server?.requestIP(request)?.address ?? "local";
}

/**
 * Authenticates the caller, counts the request against its rate limit and checks the scope,
 * in that order; the rate-limit headers ride on whichever response follows.
 */
export async function authorize(db: Db, ctx: HttpContext, scope: Scope | null): Promise<AuthContext> {
  try {
    const auth = await authenticate(db, secretFromHeaders(ctx.request.headers), clientAddress(ctx.request, ctx.server));
    keyPrefixes.set(ctx.request, auth.keyPrefix);
    Object.assign(ctx.set.headers, rateHeaders(auth.rate));
    if (scope !== null) requireScope(auth, scope);
    return auth;
  } catch (error) {
    if (error instanceof ApiError) Object.assign(ctx.set.headers, error.headers);
    throw error;
  }
}

/**
 * JSON nesting deeper than this is refused before parsing: no request shape goes past a few
 * levels, and validating thousands of levels overflows the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** The body's text within the byte limit (declared and actual): 413 past it. */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw payloadTooLarge();
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return new TextDecoder().decode(bytes);
}

/** True when arrays and objects nest deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* backslash */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 || c === 91 /* { [ */) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 125 || c === 93 /* } ] */) {
      depth -= 1;
    }
  }
  return false;
}

/** Parses a JSON body: 400 when it is empty, nested too deeply, or not JSON. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") {
    throw new ApiError("validation_error", 400, "request body is empty: send a JSON object", {
      fields: [{ path: "body", reason: "required" }],
    });
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError("validation_error", 400, `request body nests deeper than ${MAX_JSON_DEPTH} levels`, {
      fields: [{ path: "body", reason: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("validation_error", 400, "request body is not valid JSON", {
      fields: [{ path: "body", reason: "malformed JSON" }],
    });
  }
}

/** The one way a JSON body is read: byte limit, then parse. */
export async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonBody(await readBodyText(request));
}

export function payloadTooLarge(): ApiError {
  return new ApiError("payload_too_large", 413, `request body exceeds ${MAX_BODY_BYTES} bytes`);
}

/** The success envelope. */
export function ok<T>(ctx: HttpContext, data: T, status = 200): { data: T } {
  ctx.set.status = status;
  return { data };
}
