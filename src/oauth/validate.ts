/** What OAuth input memoryd accepts: request fields in the RFC's error shape, and redirect URIs. */
import type { Static, TSchema } from "@sinclair/typebox";
import { ApiError } from "../errors";
import { parseInput } from "../schema/validate";

export const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Schemes that run or read something in the browser instead of reaching a client. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "blob:", "about:"]);

/** Validates OAuth input: the RFC's invalid_request (or the given code) instead of the envelope's 422. */
export function parseOAuthInput<T extends TSchema>(
  schema: T,
  input: unknown,
  code: "invalid_request" | "invalid_client_metadata" = "invalid_request",
): Static<T> {
  try {
    return parseInput(schema, input);
  } catch (error) {
    if (error instanceof ApiError) throw ApiError.oauth(code, error.message);
    throw error;
  }
}

/**
 * OAuth 2.1 §8.4.2 / RFC 8252: https anywhere, plain http only to a loopback address (native
 * apps), a private-use scheme for apps (cursor://…); never a fragment or a browser-internal scheme.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI`;
  }
  if (url.hash !== "" || uri.includes("#")) return `"${uri}" has a fragment`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `"${url.protocol}" redirect URIs are not allowed`;
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) return `"${uri}": plain http is allowed only to a loopback address`;
  // Only plain host names: the origin goes into the consent page's CSP, where odd characters would not parse.
  if ((url.protocol === "http:" || url.protocol === "https:") && !/^[A-Za-z0-9.-]+$|^\[::1\]$/.test(url.hostname)) {
    return `"${uri}": the host name has characters a host name cannot have`;
  }
  return null;
}
