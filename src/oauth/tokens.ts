import { createHash } from "node:crypto";
import { recordFailure } from "../auth/authenticate";
import { generateOAuthSecret, hashSecret, looksLikeOAuthSecret } from "../auth/secrets";
import type { Db, Queryable } from "../db/types";
import { ApiError } from "../errors";
import { randomBase62 } from "../ids";
import type { RevocationRequest, TokenRequest, TokenResponse } from "../schema/oauth";
import { acceptedResource } from "./metadata";
import { consumeCode, findClient, insertTokenPair, revokeFamily, revokeGrantOf, rotateRefreshToken, type GrantFields } from "./store";

/** Short-lived, so a leaked access token is worth little; the refresh token carries the grant. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** A refresh token exchanged this recently may be exchanged again (concurrent refreshes of one client). */
export const REFRESH_REUSE_SECONDS = 60;

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 §4.6: BASE64URL(SHA256(verifier)) must equal the challenge. */
function verifierMatches(verifier: string, challenge: string): boolean {
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}

const invalidGrant = (description: string): ApiError => ApiError.oauth("invalid_grant", description);

async function issuePair(db: Queryable, grant: GrantFields): Promise<TokenResponse> {
  const access = generateOAuthSecret("mat");
  const refresh = generateOAuthSecret("mrt");
  await insertTokenPair(db, `tok_${randomBase62(20)}`, grant, access.hash, refresh.hash, {
    accessSeconds: ACCESS_TOKEN_SECONDS,
    refreshSeconds: REFRESH_TOKEN_SECONDS,
  });
  return { access_token: access.secret, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh.secret, scope: grant.scopes.join(" ") };
}

/**
 * The token endpoint (RFC 6749 §4.1.3 and §6, OAuth 2.1): an authorization code with its PKCE
 * verifier, or a refresh token, for a new access/refresh pair. A code is single use and a refresh
 * token too, but for REFRESH_REUSE_SECONDS; presenting one again later means it leaked, so the
 * whole grant is revoked. Failed attempts count against the address like failed authentications.
 */
export async function exchangeToken(db: Db, request: TokenRequest, issuer: string, address: string): Promise<TokenResponse> {
  const grantType = request.grant_type;
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw ApiError.oauth("unsupported_grant_type", 'grant_type must be "authorization_code" or "refresh_token"');
  }
  if (request.resource !== undefined && acceptedResource(issuer, request.resource) === null) {
    throw ApiError.oauth("invalid_target", `the resource must be ${issuer}/v1/mcp`);
  }
  // OAuth 2.1 §3.2.1: a public client names itself on every token request. An unknown (pruned)
  // client gets invalid_client, which makes clients register again instead of looping on a code.
  if (request.client_id === undefined) throw ApiError.oauth("invalid_request", "client_id is required");
  if ((await findClient(db, request.client_id)) === null) {
    throw ApiError.oauth("invalid_client", "this client is not registered with this server; register again", 401);
  }
  try {
    return grantType === "authorization_code" ? await redeemCode(db, request) : await refreshGrant(db, request);
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_grant") await recordFailure(db, `addr:${address}`);
    throw error;
  }
}

/**
 * Runs a single-use exchange in one transaction whose refusals are returned, not thrown: the
 * code or refresh token is spent (and a replay's grant revoked) even when the exchange fails, so
 * a refused attempt cannot be retried with other values.
 */
async function spend(db: Db, exchange: (tx: Queryable) => Promise<TokenResponse | ApiError>): Promise<TokenResponse> {
  const outcome = await db.transaction(exchange);
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

async function redeemCode(db: Db, request: TokenRequest): Promise<TokenResponse> {
  const { code: secret, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId = "" } = request;
  if (secret === undefined || verifier === undefined || redirectUri === undefined) {
    throw ApiError.oauth("invalid_request", "code, code_verifier and redirect_uri are required");
  }
  if (!VERIFIER.test(verifier)) throw ApiError.oauth("invalid_request", "code_verifier must be 43-128 unreserved characters");
  if (!looksLikeOAuthSecret(secret, "mac")) throw invalidGrant("the authorization code is not valid");
  return spend(db, async (tx) => {
    const code = await consumeCode(tx, hashSecret(secret));
    if (code === null) return invalidGrant("the authorization code is not valid");
    if (code.previously_used) {
      await revokeFamily(tx, code.family_id);
      return invalidGrant("the authorization code was already used; every token issued for it is revoked");
    }
    if (code.expired) return invalidGrant("the authorization code has expired; authorize again");
    if (code.client_id !== clientId) return invalidGrant("the authorization code was issued to another client");
    if (code.redirect_uri !== redirectUri) return invalidGrant("redirect_uri differs from the authorization request's");
    if (!verifierMatches(verifier, code.code_challenge)) return invalidGrant("the PKCE code_verifier does not match the code_challenge");
    if (code.key_ended) return invalidGrant("the API key this access was granted from is revoked or expired");
    const grant = { clientId, keyId: code.key_id, scopes: code.scopes, audience: code.audience, resource: code.resource, familyId: code.family_id };
    return issuePair(tx, grant);
  });
}

async function refreshGrant(db: Db, request: TokenRequest): Promise<TokenResponse> {
  const secret = request.refresh_token;
  if (secret === undefined) throw ApiError.oauth("invalid_request", "refresh_token is required");
  if (!looksLikeOAuthSecret(secret, "mrt")) throw invalidGrant("the refresh token is not valid");
  return spend(db, async (tx) => {
    const token = await rotateRefreshToken(tx, hashSecret(secret));
    if (token === null) return invalidGrant("the refresh token is not valid");
    if (token.revoked) return invalidGrant("this grant was revoked; authorize again");
    if (token.rotated_seconds_ago !== null && token.rotated_seconds_ago > REFRESH_REUSE_SECONDS) {
      await revokeFamily(tx, token.family_id);
      return invalidGrant("the refresh token was already used; every token of this grant is revoked");
    }
    if (request.client_id !== token.client_id) return invalidGrant("the refresh token was issued to another client");
    if (token.refresh_expired) return invalidGrant("the refresh token has expired; authorize again");
    if (token.key_ended) return invalidGrant("the API key this access was granted from is revoked or expired");
    // RFC 6749 §6: a refresh may narrow the scopes, never widen them.
    const asked = request.scope?.split(" ").filter((s) => s !== "");
    const scopes = asked === undefined ? token.scopes : token.scopes.filter((s) => asked.includes(s));
    if (scopes.length === 0) return ApiError.oauth("invalid_scope", "the requested scopes are not part of this grant");
    const grant = { clientId: token.client_id, keyId: token.key_id, scopes, audience: token.audience, resource: token.resource, familyId: token.family_id };
    return issuePair(tx, grant);
  });
}

/** RFC 7009: ends the grant of an access or refresh token; an unknown token is not an error. */
export async function revokeToken(db: Queryable, request: RevocationRequest): Promise<void> {
  const known = looksLikeOAuthSecret(request.token, "mat") || looksLikeOAuthSecret(request.token, "mrt");
  if (known) await revokeGrantOf(db, hashSecret(request.token), request.client_id);
}
