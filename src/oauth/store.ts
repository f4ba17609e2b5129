import type { Queryable } from "../db/types";
import type { Audience, Scope } from "../schema/auth";

/** SQL of MCP authorization: registered clients, one-time codes, rotating token pairs. */

export interface ClientRow {
  id: string;
  client_name: string;
  redirect_uris: string[];
  created_at: Date;
}

export interface GrantFields {
  clientId: string;
  keyId: string;
  scopes: Scope[];
  audience: Audience;
  resource: string;
  familyId: string;
}

export interface CodeRow {
  client_id: string;
  key_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: Scope[];
  audience: Audience;
  resource: string;
  family_id: string;
  expired: boolean;
  /** Set when the code had already been exchanged before this call. */
  previously_used: boolean;
  /** The key the code was granted from is revoked or expired. */
  key_ended: boolean;
}

export interface TokenRow {
  id: string;
  family_id: string;
  client_id: string;
  key_id: string;
  scopes: Scope[];
  audience: Audience;
  resource: string;
  refresh_expired: boolean;
  /** The grant was revoked before this call. */
  revoked: boolean;
  /** Seconds since this refresh token was last exchanged (null: never). */
  rotated_seconds_ago: number | null;
  /** The key the grant came from is revoked or expired. */
  key_ended: boolean;
}

export async function insertClient(db: Queryable, id: string, name: string, redirectUris: string[]): Promise<ClientRow> {
  const [row] = await db.sql<ClientRow>`
    INSERT INTO oauth_clients (id, client_name, redirect_uris) VALUES (${id}, ${name}, ${redirectUris}::text[])
    RETURNING id, client_name, redirect_uris, created_at`;
  if (!row) throw new Error("client insert returned no row");
  return row;
}

export async function findClient(db: Queryable, id: string): Promise<ClientRow | null> {
  const [row] = await db.sql<ClientRow>`SELECT id, client_name, redirect_uris, created_at FROM oauth_clients WHERE id = ${id}`;
  return row ?? null;
}

/** A metadata-document client whose cached document has not expired, or null (then it is fetched again). */
export async function findFreshMetadataClient(db: Queryable, id: string): Promise<ClientRow | null> {
  const [row] = await db.sql<ClientRow>`
    SELECT id, client_name, redirect_uris, created_at FROM oauth_clients WHERE id = ${id} AND metadata_expires_at > now()`;
  return row ?? null;
}

/**
 * Caches what a client's metadata document says. The row keeps its id (the URL), so codes and
 * tokens issued before a refresh stay attached to it.
 */
export async function upsertMetadataClient(db: Queryable, id: string, name: string, redirectUris: string[], ttlSeconds: number): Promise<ClientRow> {
  const [row] = await db.sql<ClientRow>`
    INSERT INTO oauth_clients (id, client_name, redirect_uris, metadata_expires_at)
    VALUES (${id}, ${name}, ${redirectUris}::text[], now() + make_interval(secs => ${ttlSeconds}))
    ON CONFLICT (id) DO UPDATE SET client_name = EXCLUDED.client_name, redirect_uris = EXCLUDED.redirect_uris,
                                   metadata_expires_at = EXCLUDED.metadata_expires_at
    RETURNING id, client_name, redirect_uris, created_at`;
  if (!row) throw new Error("client upsert returned no row");
  return row;
}

export async function insertCode(
  db: Queryable,
  codeHash: string,
  grant: GrantFields,
  redirectUri: string,
  codeChallenge: string,
  ttlSeconds: number,
): Promise<void> {
  await db.sql`
    INSERT INTO oauth_codes (code_hash, client_id, key_id, redirect_uri, code_challenge, scopes, audience, resource, family_id, expires_at)
    VALUES (${codeHash}, ${grant.clientId}, ${grant.keyId}, ${redirectUri}, ${codeChallenge}, ${grant.scopes}::text[],
            ${grant.audience}, ${grant.resource}, ${grant.familyId}, now() + make_interval(secs => ${ttlSeconds}))`;
}

/**
 * Marks a code used and returns it, saying whether it had been used before. Trade-off: the row
 * lock of the UPDATE makes two concurrent exchanges of one code see each other (one wins, the
 * other is a replay), at the cost of keeping used codes until they are pruned.
 */
export async function consumeCode(db: Queryable, codeHash: string): Promise<CodeRow | null> {
  const [row] = await db.sql<CodeRow>`
    WITH old AS (SELECT used_at FROM oauth_codes WHERE code_hash = ${codeHash} FOR UPDATE)
    UPDATE oauth_codes c SET used_at = coalesce(c.used_at, now())
      FROM old, api_keys a
     WHERE c.code_hash = ${codeHash} AND a.id = c.key_id
    RETURNING c.client_id, c.key_id, c.redirect_uri, c.code_challenge, c.scopes, c.audience, c.resource, c.family_id,
              c.expires_at <= now() AS expired, old.used_at IS NOT NULL AS previously_used,
              a.revoked_at IS NOT NULL OR (a.expires_at IS NOT NULL AND a.expires_at <= now()) AS key_ended`;
  return row ?? null;
}

export async function insertTokenPair(
  db: Queryable,
  id: string,
  grant: GrantFields,
  accessHash: string,
  refreshHash: string,
  ttl: { accessSeconds: number; refreshSeconds: number },
): Promise<void> {
  await db.sql`
    INSERT INTO oauth_tokens (id, family_id, client_id, key_id, access_hash, refresh_hash, scopes, audience, resource,
                              access_expires_at, refresh_expires_at)
    VALUES (${id}, ${grant.familyId}, ${grant.clientId}, ${grant.keyId}, ${accessHash}, ${refreshHash}, ${grant.scopes}::text[],
            ${grant.audience}, ${grant.resource},
            now() + make_interval(secs => ${ttl.accessSeconds}), now() + make_interval(secs => ${ttl.refreshSeconds}))`;
}

/**
 * Marks a refresh token exchanged and returns its pair with what the caller must check. Trade-off:
 * rotation ends only the refresh token, not the access token beside it, and the caller allows a
 * short reuse window, because clients (the MCP SDK among them) refresh from concurrent requests
 * that each saw the same 401; ending the access token or treating that second refresh as a replay
 * would disconnect them at every expiry. Reuse after the window is a replay.
 */
export async function rotateRefreshToken(db: Queryable, refreshHash: string): Promise<TokenRow | null> {
  const [row] = await db.sql<TokenRow>`
    WITH old AS (SELECT rotated_at FROM oauth_tokens WHERE refresh_hash = ${refreshHash} FOR UPDATE)
    UPDATE oauth_tokens t SET rotated_at = coalesce(t.rotated_at, now())
      FROM old, api_keys a
     WHERE t.refresh_hash = ${refreshHash} AND a.id = t.key_id
    RETURNING t.id, t.family_id, t.client_id, t.key_id, t.scopes, t.audience, t.resource,
              t.refresh_expires_at <= now() AS refresh_expired,
              t.revoked_at IS NOT NULL AS revoked,
              extract(epoch FROM now() - old.rotated_at)::float8 AS rotated_seconds_ago,
              a.revoked_at IS NOT NULL OR (a.expires_at IS NOT NULL AND a.expires_at <= now()) AS key_ended`;
  return row ?? null;
}

/** Ends every pair of a grant (a replayed code or refresh token means it leaked). */
export async function revokeFamily(db: Queryable, familyId: string): Promise<void> {
  await db.sql`UPDATE oauth_tokens SET revoked_at = now() WHERE family_id = ${familyId} AND revoked_at IS NULL`;
}

/** RFC 7009: the grant a token (access or refresh) belongs to ends; unknown tokens are no error. */
export async function revokeGrantOf(db: Queryable, tokenHash: string, clientId: string | undefined): Promise<void> {
  await db.sql`
    UPDATE oauth_tokens SET revoked_at = now()
     WHERE revoked_at IS NULL
       AND family_id IN (SELECT family_id FROM oauth_tokens
                          WHERE (access_hash = ${tokenHash} OR refresh_hash = ${tokenHash})
                            AND (${clientId ?? null}::text IS NULL OR client_id = ${clientId ?? null}))`;
}

/**
 * Drops what can no longer be used: codes a day past expiry, token pairs a day past their refresh
 * expiry, and clients never used a week after registering (registration is open to anyone).
 */
export async function pruneOAuth(db: Queryable): Promise<void> {
  await db.sql`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day'`;
  await db.sql`DELETE FROM oauth_tokens WHERE refresh_expires_at < now() - interval '1 day'`;
  await db.sql`
    DELETE FROM oauth_clients c
     WHERE c.created_at < now() - interval '7 days'
       AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = c.id)
       AND NOT EXISTS (SELECT 1 FROM oauth_codes o WHERE o.client_id = c.id)`;
}
