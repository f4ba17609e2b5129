import { ApiError } from "../errors";
import type { Queryable } from "../db/types";
import type { Audience, Scope } from "../schema/auth";
import { hashSecret, looksLikeOAuthSecret, looksLikeSecret } from "./secrets";

export const RATE_LIMIT = { requestsPerWindow: 120, windowSeconds: 60 } as const;
/** Failed authentications one client address may make per window before it is shut out. */
export const AUTH_FAILURE_LIMIT = 100;

export interface RateState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
}

/** Who is calling: everything a service function needs to decide what the caller may see. */
export interface AuthContext {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  workspaceId: string;
  scopes: readonly Scope[];
  audience: Audience;
  /** The agent the key is bound to: every call acts as it (null: none). */
  agent: string | null;
  rate: RateState;
  /**
   * The workspace's fact change sequence as of authentication (null: unknown, ask the database).
   * A search index at or past it has every write committed before this request began.
   */
  factSeq: number | null;
}

interface AuthRow {
  address_failures: number | null;
  id: string | null;
  workspace_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  audience: Audience;
  agent_slug: string | null;
  revoked: boolean;
  expired: boolean;
  hits: number | null;
  reset: number;
  fact_seq: number | null;
}

export function rateHeaders(rate: RateState): Record<string, string> {
  return {
    "x-ratelimit-limit": String(rate.limit),
    "x-ratelimit-remaining": String(rate.remaining),
    "x-ratelimit-reset": String(rate.reset),
  };
}

/**
 * A 401 with the RFC 6750 challenge: clients (Inspector, mcp-remote) read `error` and
 * `error_description` to show "invalid key"; `invalid_token` also tells an OAuth client that
 * its access token expired and should be refreshed.
 */
function unauthorized(code: "api_key_invalid" | "api_key_revoked" | "api_key_expired", message: string, missing = false): ApiError {
  const quoted = message.replace(/["\\]/gu, "");
  const challenge = `Bearer realm="memoryd", error="${missing ? "invalid_request" : "invalid_token"}", error_description="${quoted}"`;
  return new ApiError(code, message, undefined, { "www-authenticate": challenge });
}

function rateLimited(message: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(
    "rate_limited",
    message,
    { retry_after_seconds: RATE_LIMIT.windowSeconds },
    {
      "retry-after": String(RATE_LIMIT.windowSeconds),
      ...headers,
    },
  );
}

/**
 * Resolves a secret to its key and counts the request against the key's window, in ONE
 * statement: key lookup by hash, the address's failure count, the rate-limit increment, a
 * throttled `last_used_at` touch and the workspace's fact change sequence (so a search needs no
 * round trip of its own to know whether its index is current). Nothing is cached, so a revocation or expiry applies to the very
 * next request on every instance. Throws the 401 / 429 the caller gets.
 */
export async function authenticate(db: Queryable, secret: string | undefined, address: string): Promise<AuthContext> {
  const viaToken = secret !== undefined && looksLikeOAuthSecret(secret, "mat");
  const hash = secret !== undefined && (viaToken || looksLikeSecret(secret)) ? hashSecret(secret) : "";
  const addressBucket = `addr:${address}`;
  const rows = await db.sql<AuthRow>`
    -- Trade-off: this statement's commit does not wait for its WAL to reach disk
    -- (synchronous_commit off for this transaction only). What it writes is a rate-limit count
    -- and a last-used time; a database crash can lose the last fraction of a second of them,
    -- never a fact, and no request waits on a disk flush just to be counted.
    WITH w AS (
      SELECT to_timestamp(floor(extract(epoch FROM now()) / ${RATE_LIMIT.windowSeconds}) * ${RATE_LIMIT.windowSeconds}) AS start,
             set_config('synchronous_commit', 'off', true) AS unflushed
    ),
    failures AS (
      SELECT h.hits FROM rate_limit_hits h, w WHERE h.bucket = ${addressBucket} AND h.window_start = w.start
    ),
    -- A key by its secret, or an OAuth access token standing for the key it was granted from:
    -- the token brings its own (narrower) scopes and audience but the key's id, rate bucket,
    -- revocation and expiry, so ending the key ends every token made from it.
    k AS (
      SELECT a.id, a.workspace_id, a.name, a.prefix, a.scopes, a.audience, a.agent_slug,
             a.revoked_at IS NOT NULL AS revoked,
             a.expires_at IS NOT NULL AND a.expires_at <= now() AS expired
        FROM api_keys a WHERE a.secret_hash = ${hash} AND NOT ${viaToken}
      UNION ALL
      SELECT a.id, a.workspace_id, a.name, a.prefix, t.scopes, t.audience, a.agent_slug,
             a.revoked_at IS NOT NULL OR t.revoked_at IS NOT NULL,
             (a.expires_at IS NOT NULL AND a.expires_at <= now()) OR t.access_expires_at <= now()
        FROM oauth_tokens t JOIN api_keys a ON a.id = t.key_id
       WHERE t.access_hash = ${hash} AND ${viaToken}
    ),
    admitted AS (
      SELECT k.id FROM k
       WHERE NOT k.revoked AND NOT k.expired
         AND coalesce((SELECT hits FROM failures), 0) <= ${AUTH_FAILURE_LIMIT}
    ),
    hit AS (
      INSERT INTO rate_limit_hits (bucket, window_start, hits)
      SELECT 'key:' || admitted.id, w.start, 1 FROM admitted, w
      ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
      RETURNING hits
    ),
    touch AS (
      UPDATE api_keys SET last_used_at = now()
       WHERE id IN (SELECT id FROM admitted)
         AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')
      RETURNING id
    )
    SELECT (SELECT hits FROM failures) AS address_failures, k.*,
           (SELECT s.seq::float8 FROM fact_sequences s WHERE s.workspace_id = k.workspace_id) AS fact_seq,
           (SELECT hits FROM hit) AS hits,
           extract(epoch FROM w.start)::int + ${RATE_LIMIT.windowSeconds} AS reset,
           (SELECT count(*) FROM touch)::int AS touched
      FROM w LEFT JOIN k ON true`;
  const row = rows[0];
  if (!row) throw new Error("authentication query returned no row");

  if ((row.address_failures ?? 0) > AUTH_FAILURE_LIMIT) {
    throw rateLimited("too many failed authentication attempts from this address; wait for the window to end");
  }
  // The row was found by its hash, an exact match in the index: nothing is left to compare here.
  if (row.id === null || hash === "") {
    await recordFailure(db, addressBucket);
    throw secret === undefined
      ? unauthorized("api_key_invalid", "missing API key: send Authorization: Bearer <key> or X-Api-Key: <key>", true)
      : unauthorized("api_key_invalid", viaToken ? "access token is not valid" : "API key is not valid");
  }
  const credential = viaToken ? "access token" : "API key";
  if (row.revoked) {
    await recordFailure(db, addressBucket);
    throw unauthorized("api_key_revoked", `${credential} has been revoked`);
  }
  if (row.expired) {
    await recordFailure(db, addressBucket);
    throw unauthorized("api_key_expired", `${credential} has expired`);
  }
  const hits = row.hits ?? RATE_LIMIT.requestsPerWindow + 1;
  const rate: RateState = {
    limit: RATE_LIMIT.requestsPerWindow,
    remaining: Math.max(0, RATE_LIMIT.requestsPerWindow - hits),
    reset: row.reset,
  };
  if (hits > RATE_LIMIT.requestsPerWindow) {
    throw rateLimited(`rate limit of ${RATE_LIMIT.requestsPerWindow} requests per ${RATE_LIMIT.windowSeconds} s exceeded`, rateHeaders(rate));
  }
  return {
    keyId: row.id,
    keyName: row.name,
    keyPrefix: row.prefix,
    workspaceId: row.workspace_id,
    scopes: row.scopes,
    audience: row.audience,
    agent: row.agent_slug,
    rate,
    factSeq: row.fact_seq ?? 0,
  };
}

/** One more hit against a bucket in the current window; returns the window's count so far. */
export async function countHit(db: Queryable, bucket: string): Promise<number> {
  const [row] = await db.sql<{ hits: number }>`
    INSERT INTO rate_limit_hits (bucket, window_start, hits)
    VALUES (${bucket}, to_timestamp(floor(extract(epoch FROM now()) / ${RATE_LIMIT.windowSeconds}) * ${RATE_LIMIT.windowSeconds}), 1)
    ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
    RETURNING hits`;
  return row?.hits ?? 0;
}

/** One more failed authentication against a bucket (`addr:<peer>`): the lockout counts these. */
export async function recordFailure(db: Queryable, bucket: string): Promise<void> {
  await countHit(db, bucket);
}

/** Whether a bucket has failed more than AUTH_FAILURE_LIMIT times in this window (then: 429). */
export async function lockedOut(db: Queryable, bucket: string): Promise<boolean> {
  const [row] = await db.sql<{ hits: number }>`
    SELECT hits FROM rate_limit_hits
     WHERE bucket = ${bucket} AND window_start = to_timestamp(floor(extract(epoch FROM now()) / ${RATE_LIMIT.windowSeconds}) * ${RATE_LIMIT.windowSeconds})`;
  return (row?.hits ?? 0) > AUTH_FAILURE_LIMIT;
}

export function requireScope(auth: AuthContext, scope: Scope): void {
  if (!auth.scopes.includes(scope)) {
    throw new ApiError("scope_missing", `this API key lacks the scope ${scope}`, { scope });
  }
}

/** Old windows are dead weight; any instance may sweep them. */
export async function pruneRateWindows(db: Queryable): Promise<void> {
  await db.sql`DELETE FROM rate_limit_hits WHERE window_start < now() - interval '5 minutes'`;
}

/** Reads the key from `Authorization: Bearer …` or `X-Api-Key`. */
export function secretFromHeaders(headers: Headers): string | undefined {
  const bearer = headers.get("authorization");
  if (bearer !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(bearer);
    return match?.[1] ?? bearer;
  }
  return headers.get("x-api-key")?.trim() || undefined;
}
