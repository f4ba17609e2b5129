import type { Config } from "../config";
import { rememberedClient } from "../net/proxies";
import { ALL_SCOPES } from "../schema/auth";
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from "../schema/oauth";

/** Where the MCP tool server lives: the protected resource of RFC 9728. */
export const MCP_PATH = "/v1/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";

export const OAUTH_PATHS = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

/**
 * The origin clients reach us at. MEMORYD_PUBLIC_URL wins: behind a TLS proxy the request's own
 * URL says http://127.0.0.1:8787, which a hosted client cannot reach. Without it, a trusted
 * proxy's X-Forwarded-Proto/Host, else the Host the client used, which is right for direct
 * connections and loopback.
 */
export function issuerOf(request: Request, config: Config): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  // Behind a trusted proxy, the scheme and host the client used (net/proxies.ts).
  const url = new URL(request.url);
  const client = rememberedClient(request);
  return `${client?.protocol ?? url.protocol}//${client?.host ?? url.host}`;
}

export function mcpResourceOf(issuer: string): string {
  return `${issuer}${MCP_PATH}`;
}

/** RFC 9728 §3.1: the metadata URL of a resource with a path inserts the path after the well-known name. */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;
}

/**
 * RFC 8707: the resource a client names must be this tool server (or the server as a whole,
 * which clients derive when they skip the resource metadata). Returns the canonical resource.
 */
export function acceptedResource(issuer: string, requested: string | undefined): string | null {
  const canonical = mcpResourceOf(issuer);
  if (requested === undefined) return canonical;
  const trimmed = requested.replace(/\/+$/u, "");
  return trimmed === canonical || trimmed === issuer ? canonical : null;
}

export function protectedResourceMetadata(issuer: string): ProtectedResourceMetadata {
  return {
    resource: mcpResourceOf(issuer),
    authorization_servers: [issuer],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "memoryd",
    resource_documentation: `${issuer}/docs`,
  };
}

export function authorizationServerMetadata(issuer: string): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    // OAuth 2.1: PKCE with S256 only; public clients only, so no client secrets exist to leak.
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_response_iss_parameter_supported: true,
    // A client_id may be the https URL of its metadata document (oauth/client-metadata.ts).
    client_id_metadata_document_supported: true,
  };
}

/** RFC 9728 §5.1: a 401 from the tool server tells an OAuth client where to start. */
export function withResourceMetadata(challenge: string, issuer: string): string {
  return `${challenge}, resource_metadata="${resourceMetadataUrl(issuer)}"`;
}
