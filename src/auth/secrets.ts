import { createHash, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "../ids";

export type Deployment = "live" | "test";

const SECRET_PATTERN = /^ak_(live|test)_[0-9A-Za-z]{32,128}$/;
const SECRET_RANDOM_CHARS = 40;
/** `ak_test_` plus 8 random chars: enough to tell keys apart in logs and `keys list`. */
const PREFIX_LENGTH = 16;

export interface NewSecret {
  secret: string;
  prefix: string;
  hash: string;
}

export function generateSecret(deployment: Deployment): NewSecret {
  const secret = `ak_${deployment}_${randomBase62(SECRET_RANDOM_CHARS)}`;
  return { secret, prefix: secret.slice(0, PREFIX_LENGTH), hash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function looksLikeSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

/**
 * OAuth credentials: `mat_` access tokens (sent like a key), `mrt_` refresh tokens and `mac_`
 * authorization codes (only ever posted to the token endpoint). Stored as hashes like keys.
 */
export type OAuthSecretKind = "mat" | "mrt" | "mac";
const OAUTH_SECRET_RANDOM_CHARS = 40;

export function generateOAuthSecret(kind: OAuthSecretKind): { secret: string; hash: string } {
  const secret = `${kind}_${randomBase62(OAUTH_SECRET_RANDOM_CHARS)}`;
  return { secret, hash: hashSecret(secret) };
}

export function looksLikeOAuthSecret(value: string, kind: OAuthSecretKind): boolean {
  return value.length === kind.length + 1 + OAUTH_SECRET_RANDOM_CHARS && value.startsWith(`${kind}_`) && /^[0-9A-Za-z]+$/.test(value.slice(4));
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
