import type { Static, TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Db } from "../db/types";
import { ApiError } from "../errors";
import { randomBase62 } from "../ids";
import { checkAuthorizationRequest, ConsentProblem, decideConsent, registerClient } from "../oauth/authorize";
import { renderAuthorizationError, renderConsentPage } from "../oauth/consent-page";
import {
  AUTHORIZATION_SERVER_PATH,
  authorizationServerMetadata,
  issuerOf,
  MCP_PATH,
  OAUTH_PATHS,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
} from "../oauth/metadata";
import { exchangeToken, revokeToken } from "../oauth/tokens";
import { parseOAuthInput } from "../oauth/validate";
import {
  AuthorizationRequest,
  AuthorizationServerMetadata,
  ClientRegistration,
  ClientRegistrationRequest,
  ConsentForm,
  ProtectedResourceMetadata,
  RevocationRequest,
  TokenRequest,
  TokenResponse,
} from "../schema/oauth";
import { input } from "../schema/validate";
import { pageSecurityHeaders } from "../web/page";
import { bodyParser, parseJsonBody, readBodyText } from "./body";
import { pageInput } from "./openapi";
import { cookieValue } from "./cookies";
import { clientAddress, type RequestPipeline } from "./pipeline";

/**
 * MCP authorization (OAuth 2.1, as the MCP authorization spec profiles it): the two metadata
 * documents, dynamic client registration, the consent page and the token and revocation
 * endpoints. Machine endpoints answer any origin (no cookies are involved, and browser-based MCP
 * clients call them); the consent page is for people and is never framed.
 */

const ANY_ORIGIN: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "600",
};
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };
const CSRF_COOKIE = "memoryd_oauth_csrf";

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  Response.json(body, { status, headers: { ...ANY_ORIGIN, ...headers } });

/** A form post's fields; a field given several times (ticked boxes) becomes a list. */
function formFields(text: string, lists: readonly string[] = []): Record<string, string | string[]> {
  const params = new URLSearchParams(text);
  const fields: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) fields[name] = lists.includes(name) ? params.getAll(name) : (params.get(name) ?? "");
  for (const name of lists) fields[name] ??= [];
  return fields;
}

/** A JSON body whose parse errors are in the OAuth shape too. */
function oauthJson(text: string, code: "invalid_request" | "invalid_client_metadata"): unknown {
  try {
    return parseJsonBody(text);
  } catch (error) {
    if (error instanceof ApiError) throw ApiError.oauth(code, error.message);
    throw error;
  }
}

/** Token and revocation requests are form-encoded (RFC 6749 §4.1.3); JSON is accepted too. */
const parseOAuthBody = bodyParser(async (request) => {
  const text = await readBodyText(request);
  const type = request.headers.get("content-type") ?? "";
  return type.includes("application/json") ? oauthJson(text, "invalid_request") : formFields(text);
});

const parseRegistration = bodyParser(async (request) => oauthJson(await readBodyText(request), "invalid_client_metadata"));

/** An OAuth endpoint's input: validation failures in the RFC's shape, with the given error code. */
function oauthInput<T extends TSchema>(schema: T, code: "invalid_request" | "invalid_client_metadata" = "invalid_request") {
  const media = code === "invalid_request" ? "application/x-www-form-urlencoded" : "application/json";
  return input(schema, "body", { media, parse: (s: T, value: unknown): Static<T> => parseOAuthInput(s, value, code) });
}

/**
 * The form-action the page needs besides its own origin: the client's redirect target, as a CSP
 * host-source when it is a plain host name, else its scheme ("http:" for an IPv6 loopback, "cursor:").
 */
function redirectSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return /^https?:\/\/[A-Za-z0-9.-]+(?::\d+)?$/.test(url.origin) ? url.origin : url.protocol;
}

function htmlPage(body: string, status: number, formActions: string[] = [], headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...pageSecurityHeaders(formActions), "content-type": "text/html; charset=utf-8", ...headers } });
}

function redirect(location: string, status: number): Response {
  return new Response(null, { status, headers: { location, ...NO_STORE } });
}

export function oauthRoutes(deps: { db: Db; config: Config; pipeline: RequestPipeline }) {
  const { db, config } = deps;
  const preflight = () => new Response(null, { status: 204, headers: ANY_ORIGIN });

  /** The page again (fresh CSRF pair) for a request that is known good. */
  const consentPage = async (request: Request, input: AuthorizationRequest, problem?: string): Promise<Response> => {
    const checked = await checkAuthorizationRequest(db, config, input, issuerOf(request, config));
    const csrf = randomBase62(32);
    // Behind a TLS proxy the request itself is plain http; the public URL says what the browser used.
    const secure = issuerOf(request, config).startsWith("https:") ? "; Secure" : "";
    const page = renderConsentPage({ request: input, clientName: checked.client.client_name, scopes: checked.scopes, csrf, problem });
    return htmlPage(page, problem === undefined ? 200 : 400, [redirectSource(checked.redirectUri)], {
      "set-cookie": `${CSRF_COOKIE}=${csrf}; Path=${OAUTH_PATHS.authorize}; HttpOnly; SameSite=Strict; Max-Age=900${secure}`,
    });
  };

  /** A request that cannot be completed is shown to the person (see checkAuthorizationRequest). */
  const authorizationFailure = (error: unknown): Response => {
    if (error instanceof ApiError && error.status < 500) return htmlPage(renderAuthorizationError(error.message), error.status);
    throw error;
  };

  const machinePaths = new Set<string>([OAUTH_PATHS.register, OAUTH_PATHS.token, OAUTH_PATHS.revoke]);
  const preflightOnly = { detail: { hide: true } } as const;
  const metadata = (schema: TSchema) => ({ returns: { media: "application/json", schema, oauth: true } });
  return (
    new Elysia({ name: "oauth" })
      .use(deps.pipeline)
      // Errors of the machine endpoints, validation's included, are readable cross-origin too (the
      // pipeline's error mapping keeps set.headers).
      .onTransform(({ request, set }) => {
        if (machinePaths.has(new URL(request.url).pathname)) Object.assign(set.headers, ANY_ORIGIN);
      })
      .get(PROTECTED_RESOURCE_PATH, ({ request }) => json(protectedResourceMetadata(issuerOf(request, config))), {
        ...metadata(ProtectedResourceMetadata),
        detail: { summary: "MCP authorization: protected-resource metadata (RFC 9728)" },
      })
      .get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, ({ request }) => json(protectedResourceMetadata(issuerOf(request, config))), {
        ...metadata(ProtectedResourceMetadata),
        detail: { summary: "The same, at the path RFC 9728 derives from /v1/mcp" },
      })
      .get(AUTHORIZATION_SERVER_PATH, ({ request }) => json(authorizationServerMetadata(issuerOf(request, config))), {
        ...metadata(AuthorizationServerMetadata),
        detail: { summary: "MCP authorization: authorization-server metadata (RFC 8414)" },
      })
      .options(PROTECTED_RESOURCE_PATH, preflight, preflightOnly)
      .options(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, preflight, preflightOnly)
      .options(AUTHORIZATION_SERVER_PATH, preflight, preflightOnly)
      .options(OAUTH_PATHS.register, preflight, preflightOnly)
      .options(OAUTH_PATHS.token, preflight, preflightOnly)
      .options(OAUTH_PATHS.revoke, preflight, preflightOnly)
      .post(OAUTH_PATHS.register, async ({ body, request, server }) => json(await registerClient(db, body, clientAddress(request, server)), 201, NO_STORE), {
        parse: parseRegistration,
        body: oauthInput(ClientRegistrationRequest, "invalid_client_metadata"),
        returns: { status: 201, media: "application/json", schema: ClientRegistration, oauth: true },
        detail: { summary: "Dynamic client registration (RFC 7591); every client is public" },
      })
      // The consent page answers a person: bad input is shown on a page, so it validates itself.
      .get(
        OAUTH_PATHS.authorize,
        async ({ request }) => {
          try {
            const input = parseOAuthInput(AuthorizationRequest, Object.fromEntries(new URL(request.url).searchParams));
            return await consentPage(request, input);
          } catch (error) {
            return authorizationFailure(error);
          }
        },
        {
          returns: { media: "text/html", oauth: true },
          detail: { summary: "The consent page (authorization code with PKCE S256)", ...pageInput("query", AuthorizationRequest) },
        },
      )
      .post(
        OAUTH_PATHS.authorize,
        async ({ request, server }) => {
          try {
            const form = parseOAuthInput(ConsentForm, formFields(await readBodyText(request), ["granted_scopes"]));
            // The form must come from a page this browser loaded from us (double-submit cookie).
            if (cookieValue(request, CSRF_COOKIE) !== form.csrf) {
              return htmlPage(renderAuthorizationError("this form expired or did not come from this server; start again from the application"), 403);
            }
            try {
              return redirect(await decideConsent(db, config, form, issuerOf(request, config), clientAddress(request, server)), 303);
            } catch (error) {
              if (error instanceof ConsentProblem) return await consentPage(request, form, error.message);
              throw error;
            }
          } catch (error) {
            return authorizationFailure(error);
          }
        },
        {
          parse: "none",
          returns: { status: 303, media: "text/html", description: "redirect to the client", oauth: true },
          detail: {
            summary: "The consent page's answer: 303 to the client's redirect URI with a code or an error",
            ...pageInput("form", ConsentForm),
          },
        },
      )
      .post(
        OAUTH_PATHS.token,
        async ({ body, request, server }) => json(await exchangeToken(db, body, issuerOf(request, config), clientAddress(request, server)), 200, NO_STORE),
        {
          parse: parseOAuthBody,
          body: oauthInput(TokenRequest),
          returns: { media: "application/json", schema: TokenResponse, oauth: true },
          detail: { summary: "Tokens for a code (PKCE) or a refresh token (rotated)" },
        },
      )
      .post(
        OAUTH_PATHS.revoke,
        async ({ body }) => {
          await revokeToken(db, body);
          return json({}, 200, NO_STORE);
        },
        {
          parse: parseOAuthBody,
          body: oauthInput(RevocationRequest),
          returns: { media: "application/json", oauth: true },
          detail: { summary: "Revoke a token and its grant (RFC 7009)" },
        },
      )
  );
}
