import { randomBase62, sortableId } from "../ids";
import type { Config } from "../config";
import type { Db, Queryable } from "../db/types";
import { ApiError } from "../errors";
import { lockedOut, RATE_LIMIT, recordFailure } from "../auth/authenticate";
import { hashSecret, sameHash } from "../auth/secrets";

const ADMIN_SECRET = /^adm_[0-9A-Za-z]{40}$/;
const ADMIN_LOCK_ID = 7_302_911_006;

/**
 * The admin credential on first start: when MEMORYD_ADMIN_TOKEN is not set and no admin token
 * exists yet, one is created (under a lock, so two instances starting together make one) and
 * returned to be printed once. Otherwise null.
 */
export async function ensureAdminToken(db: Db, config: Config): Promise<string | null> {
  if (config.adminToken !== undefined) return null;
  return db.transaction(async (tx) => {
    await tx.sql`SELECT pg_advisory_xact_lock(${ADMIN_LOCK_ID})`;
    const [live] = await tx.sql<{ n: number }>`SELECT count(*)::int AS n FROM admin_tokens WHERE revoked_at IS NULL`;
    if ((live?.n ?? 0) > 0) return null;
    return createAdminToken(tx);
  });
}

/** A new admin token; only its hash is stored. */
export async function createAdminToken(db: Queryable): Promise<string> {
  const secret = `adm_${randomBase62(40)}`;
  await db.sql`INSERT INTO admin_tokens (id, prefix, secret_hash) VALUES (${sortableId("adm")}, ${secret.slice(0, 12)}, ${hashSecret(secret)})`;
  return secret;
}

/**
 * Checks the admin credential of a request: MEMORYD_ADMIN_TOKEN (compared in constant time) or a
 * live stored admin token. Failures count against the address like API-key failures do, so the
 * same lockout guards both.
 */
export async function authorizeAdmin(db: Db, config: Config, secret: string | undefined, address: string): Promise<void> {
  const bucket = `addr:${address}`;
  if (await lockedOut(db, bucket)) {
    throw new ApiError("rate_limited", "too many failed authentication attempts from this address; wait for the window to end", {
      retry_after_seconds: RATE_LIMIT.windowSeconds,
    });
  }
  if (secret !== undefined) {
    const hash = hashSecret(secret);
    if (config.adminToken !== undefined && sameHash(hash, hashSecret(config.adminToken))) return;
    if (ADMIN_SECRET.test(secret)) {
      const rows = await db.sql<{ id: string }>`SELECT id FROM admin_tokens WHERE secret_hash = ${hash} AND revoked_at IS NULL`;
      if (rows.length > 0) return;
    }
  }
  await recordFailure(db, bucket);
  const message = secret === undefined ? "missing admin credential: send Authorization: Bearer <admin token>" : "admin credential is not valid";
  throw new ApiError("admin_token_invalid", message, undefined, {
    "www-authenticate": `Bearer realm="memoryd-admin", error="${secret === undefined ? "invalid_request" : "invalid_token"}", error_description="${message}"`,
  });
}
