import { authorizeAdmin } from "../admin/credential";
import { authenticate, countHit, RATE_LIMIT } from "../auth/authenticate";
import { createKey } from "../auth/keys";
import type { Config } from "../config";
import { generateOAuthSecret, looksLikeSecret } from "../auth/secrets";
import type { Db, Queryable } from "../db/types";
import { ApiError } from "../errors";
import { randomBase62 } from "../ids";
import { ALL_SCOPES, type Audience, type Scope } from "../schema/auth";
import type { AuthorizationRequest, ClientRegistration, ClientRegistrationRequest, ConsentForm } from "../schema/oauth";
import { isMetadataDocumentId, resolveMetadataClient } from "./client-metadata";
import { acceptedResource } from "./metadata";
import { findClient, insertClient, insertCode, type ClientRow } from "./store";
import { LOOPBACK_HOSTS, redirectUriProblem } from "./validate";

/** An authorization code is exchanged by the client right after the redirect. */
export const CODE_TTL_SECONDS = 120;
/** Registrations one address may make per rate window: registration needs no credential. */
export const REGISTRATIONS_PER_WINDOW = 20;

/** RFC 7591: registers a public client; the redirect URIs are the only thing it is held to. */
export async function registerClient(db: Queryable, input: ClientRegistrationRequest, address: string): Promise<ClientRegistration> {
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw ApiError.oauth("invalid_redirect_uri", problem);
  }
  const grantTypes = input.grant_types ?? ["authorization_code", "refresh_token"];
  const unsupportedGrant = grantTypes.find((g) => g !== "authorization_code" && g !== "refresh_token");
  if (unsupportedGrant !== undefined) throw ApiError.oauth("invalid_client_metadata", `grant type "${unsupportedGrant}" is not supported`);
  const responseTypes = input.response_types ?? ["code"];
  if (responseTypes.some((t) => t !== "code")) throw ApiError.oauth("invalid_client_metadata", 'only the "code" response type is supported');
  await countRegistration(db, address);
  const name = input.client_name?.trim() || "an unnamed application";
  const row = await insertClient(db, `mcpc_${randomBase62(24)}`, name, input.redirect_uris);
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(new Date(row.created_at).getTime() / 1000),
    client_name: row.client_name,
    redirect_uris: row.redirect_uris,
    grant_types: grantTypes,
    response_types: ["code"],
    // Whatever method was asked for, the client is public: it proves itself with PKCE.
    token_endpoint_auth_method: "none",
  };
}

async function countRegistration(db: Queryable, address: string): Promise<void> {
  if ((await countHit(db, `oauth-register:${address}`)) > REGISTRATIONS_PER_WINDOW) {
    throw new ApiError(
      "rate_limited",
      "too many client registrations from this address; wait for the window to end",
      {
        retry_after_seconds: RATE_LIMIT.windowSeconds,
      },
      { "retry-after": String(RATE_LIMIT.windowSeconds) },
    );
  }
}

/** A request that may be redirected back to its client (its client and redirect URI are known good). */
export interface CheckedRequest {
  client: ClientRow;
  redirectUri: string;
  state: string | undefined;
  /** The scopes asked for (all of them when the client named none). */
  scopes: Scope[];
  codeChallenge: string;
  resource: string;
}

/**
 * RFC 8252 §7.3: a native app's loopback redirect may come back on any port (it takes a free one
 * at run time); everything else must match a registered URI exactly.
 */
function redirectRegistered(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  const url = URL.canParse(uri) ? new URL(uri) : null;
  if (url === null || url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  const withoutPort = (u: URL): string => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => URL.canParse(r) && withoutPort(new URL(r)) === withoutPort(url));
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an authorization request. Every refusal is shown to the person as a page, never
 * redirected: registration is open, so an automatic redirect to a registered URI would make this
 * server an open redirector (RFC 9700 §4.11.2). Only the person's own Allow or Deny goes back.
 */
export async function checkAuthorizationRequest(
  db: Queryable,
  config: Pick<Config, "outboundAllowPrivate">,
  request: AuthorizationRequest,
  issuer: string,
): Promise<CheckedRequest> {
  // A client_id that is an https URL names its metadata document; any other was registered here.
  const client = isMetadataDocumentId(request.client_id) ? await resolveMetadataClient(db, config, request.client_id) : await findClient(db, request.client_id);
  if (client === null) throw ApiError.oauth("invalid_client", "this application is not registered with this server; ask it to register again");
  if (!redirectRegistered(client.redirect_uris, request.redirect_uri)) {
    throw ApiError.oauth("invalid_request", "the redirect URI is not one this application registered");
  }
  if (request.response_type !== "code") throw ApiError.oauth("invalid_request", 'only response_type "code" is supported');
  if (request.code_challenge === undefined || request.code_challenge_method !== "S256" || !S256_CHALLENGE.test(request.code_challenge)) {
    throw ApiError.oauth("invalid_request", "PKCE is required: the application must send code_challenge with code_challenge_method S256");
  }
  const resource = acceptedResource(issuer, request.resource);
  if (resource === null) throw ApiError.oauth("invalid_target", `the application asked for another server than ${issuer}/v1/mcp`);
  const named = (request.scope ?? "").split(" ").filter((s) => s !== "");
  const scopes = ALL_SCOPES.filter((s) => named.length === 0 || named.includes(s));
  if (scopes.length === 0) throw ApiError.oauth("invalid_scope", `the application asked for no permission this server has (${ALL_SCOPES.join(", ")})`);
  return { client, redirectUri: request.redirect_uri, state: request.state, scopes, codeChallenge: request.code_challenge, resource };
}

/** A consent that cannot be granted as submitted: the page is shown again with this message. */
export class ConsentProblem extends Error {}

/** The credential a consent is given with, as the key the grant will hang off. */
interface ConsentingKey {
  keyId: string;
  scopes: readonly Scope[];
  audience: Audience;
}

/** An API key of the workspace, checked like any request (lockout, revocation, expiry, rate limit). */
async function consentingApiKey(db: Db, secret: string, address: string): Promise<ConsentingKey> {
  // Only a key consents: an access token must not mint further tokens.
  if (!looksLikeSecret(secret)) throw new ConsentProblem("paste an API key of the workspace (it starts with ak_)");
  return authenticate(db, secret, address).catch((error: unknown) => {
    if (error instanceof ApiError && (error.status === 401 || error.status === 429)) throw new ConsentProblem(error.message);
    throw error;
  });
}

/**
 * The administrator consents for a workspace: a key of its own is made for the grant (named after
 * the application, with exactly the granted scopes and audience), so the settings app lists it and
 * revoking it disconnects the application and nothing else.
 */
async function consentingAdmin(db: Db, config: Config, form: ConsentForm, granted: Scope[], client: ClientRow, address: string): Promise<ConsentingKey> {
  await authorizeAdmin(db, config, form.admin_token, address).catch((error: unknown) => {
    if (error instanceof ApiError && (error.status === 401 || error.status === 429)) throw new ConsentProblem(error.message);
    throw error;
  });
  const slug = form.workspace?.trim() ?? "";
  if (slug === "") throw new ConsentProblem("name the workspace to grant access to");
  const audience: Audience = form.audience === "external" ? "external" : "internal";
  const key = await createKey(db, config.deployment, { workspace: slug, name: `OAuth: ${client.client_name}`.slice(0, 200), scopes: granted, audience }).catch(
    (error: unknown) => {
      if (error instanceof ApiError && error.code === "not_found") throw new ConsentProblem(`there is no workspace "${slug}"`);
      throw error;
    },
  );
  return { keyId: key.id, scopes: key.scopes, audience: key.audience };
}

/**
 * The person's answer on the consent page. Allowing needs an API key of the workspace or the
 * admin credential; the grant is the scopes both asked for and ticked, each of which the key must
 * hold, and an audience no wider than the key's. Returns where to send the browser: the client's
 * redirect URI with a code, or with access_denied.
 */
export async function decideConsent(db: Db, config: Config, form: ConsentForm, issuer: string, address: string): Promise<string> {
  const checked = await checkAuthorizationRequest(db, config, form, issuer);
  const target = new URL(checked.redirectUri);
  const reply = (params: Record<string, string>): string => {
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
    if (checked.state !== undefined) target.searchParams.set("state", checked.state);
    target.searchParams.set("iss", issuer);
    return target.href;
  };
  if (form.decision === "deny") return reply({ error: "access_denied", error_description: "the request was declined" });

  const granted = checked.scopes.filter((s) => form.granted_scopes.includes(s));
  if (granted.length === 0) throw new ConsentProblem("choose at least one permission to grant");
  const secret = form.api_key?.trim() ?? "";
  if (secret === "" && !form.admin_token) throw new ConsentProblem("paste an API key of the workspace, or sign in as the administrator");
  const key = secret !== "" ? await consentingApiKey(db, secret, address) : await consentingAdmin(db, config, form, granted, checked.client, address);
  const lacking = granted.filter((s) => !key.scopes.includes(s));
  if (lacking.length > 0) throw new ConsentProblem(`this key lacks ${lacking.join(", ")}: untick it or use a key that has it`);
  const audience: Audience = form.audience === "key" ? key.audience : form.audience;
  if (key.audience === "external" && audience === "internal") {
    throw new ConsentProblem("this key is external: it can grant external access only");
  }
  const code = generateOAuthSecret("mac");
  const grant = { clientId: checked.client.id, keyId: key.keyId, scopes: granted, audience, resource: checked.resource, familyId: `fam_${randomBase62(20)}` };
  await insertCode(db, code.hash, grant, checked.redirectUri, checked.codeChallenge, CODE_TTL_SECONDS);
  return reply({ code: code.secret });
}
