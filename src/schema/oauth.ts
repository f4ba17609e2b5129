import { Type, type Static } from "@sinclair/typebox";
import { Audience } from "./auth";

/**
 * The OAuth 2.1 shapes memoryd speaks as the MCP tool server's authorization server: client
 * registration (RFC 7591), the authorization request and consent form, the token endpoint
 * (RFC 6749 §4.1.3, §6) and the two metadata documents (RFC 8414, RFC 9728).
 */

const Url = Type.String({ minLength: 1, maxLength: 2000 });
const OptionalText = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** RFC 7591 §2: what a client sends to register. Unknown fields are ignored, as the RFC asks. */
export const ClientRegistrationRequest = Type.Object({
  redirect_uris: Type.Array(Url, { minItems: 1, maxItems: 10, description: "exact redirect URIs (https, or http on a loopback address)" }),
  client_name: OptionalText(200),
  grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
  response_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
  token_endpoint_auth_method: OptionalText(100),
  scope: OptionalText(500),
});
export type ClientRegistrationRequest = Static<typeof ClientRegistrationRequest>;

/** RFC 7591 §3.2.1: every client is public (PKCE instead of a client secret). */
export const ClientRegistration = Type.Object({
  client_id: Type.String(),
  client_id_issued_at: Type.Integer(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Literal("none"),
});
export type ClientRegistration = Static<typeof ClientRegistration>;

/** RFC 6749 §4.1.1 with PKCE (RFC 7636) and a resource indicator (RFC 8707). */
export const AuthorizationRequest = Type.Object({
  response_type: Type.String({ maxLength: 100 }),
  // A registered id, or the https URL of the client's metadata document.
  client_id: Type.String({ maxLength: 2000 }),
  redirect_uri: Url,
  code_challenge: Type.Optional(Type.String({ maxLength: 200 })),
  code_challenge_method: OptionalText(20),
  state: OptionalText(1000),
  scope: OptionalText(500),
  resource: Type.Optional(Url),
});
export type AuthorizationRequest = Static<typeof AuthorizationRequest>;

/** The consent page's form: the request it answers, the proof, and what is granted. */
export const ConsentForm = Type.Composite([
  AuthorizationRequest,
  Type.Object({
    csrf: Type.String({ maxLength: 200 }),
    decision: Type.Union([Type.Literal("allow"), Type.Literal("deny")]),
    api_key: Type.Optional(Type.String({ maxLength: 500 })),
    admin_token: Type.Optional(Type.String({ maxLength: 500, description: "instead of a key: the admin credential, with workspace" })),
    workspace: Type.Optional(Type.String({ maxLength: 100 })),
    granted_scopes: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 }),
    audience: Type.Union([Type.Literal("key"), Audience], { description: "`key` keeps the key's audience" }),
  }),
]);
export type ConsentForm = Static<typeof ConsentForm>;

/** RFC 6749 §4.1.3 and §6 in one form: which fields matter depends on grant_type. */
export const TokenRequest = Type.Object({
  grant_type: Type.String({ maxLength: 100 }),
  client_id: Type.Optional(Type.String({ maxLength: 2000 })),
  code: OptionalText(200),
  redirect_uri: Type.Optional(Url),
  code_verifier: OptionalText(200),
  refresh_token: OptionalText(200),
  resource: Type.Optional(Url),
  scope: OptionalText(500),
});
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal("Bearer"),
  expires_in: Type.Integer({ description: "seconds the access token lives" }),
  refresh_token: Type.String({ description: "single use: each refresh returns the next one" }),
  scope: Type.String(),
});
export type TokenResponse = Static<typeof TokenResponse>;

/** RFC 7009 §2.1. */
export const RevocationRequest = Type.Object({
  token: Type.String({ maxLength: 200 }),
  token_type_hint: OptionalText(100),
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
});
export type RevocationRequest = Static<typeof RevocationRequest>;

/** RFC 9728 §2. */
export const ProtectedResourceMetadata = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  resource_name: Type.String(),
  resource_documentation: Type.String(),
});
export type ProtectedResourceMetadata = Static<typeof ProtectedResourceMetadata>;

/** RFC 8414 §2. */
export const AuthorizationServerMetadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  registration_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  scopes_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
  authorization_response_iss_parameter_supported: Type.Boolean(),
  client_id_metadata_document_supported: Type.Boolean(),
});
export type AuthorizationServerMetadata = Static<typeof AuthorizationServerMetadata>;

/**
 * A Client ID Metadata Document (the client_id is its URL): what memoryd reads of it. Other
 * fields are allowed and ignored.
 */
export const ClientMetadataDocument = Type.Object({
  client_id: Type.String({ minLength: 1, maxLength: 2000 }),
  client_name: Type.Optional(Type.String({ maxLength: 200 })),
  redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 10 }),
  grant_types: Type.Optional(Type.Array(Type.String())),
  response_types: Type.Optional(Type.Array(Type.String())),
  token_endpoint_auth_method: Type.Optional(Type.String()),
});
export type ClientMetadataDocument = Static<typeof ClientMetadataDocument>;
