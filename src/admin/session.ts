import type { Queryable } from "../db/types";
import { ApiError } from "../errors";
import { hashSecret } from "../auth/secrets";
import { cookieValue } from "../http/cookies";
import { randomBase62 } from "../ids";

export const SESSION_COOKIE = "memoryd_session";
/** A settings-app session lasts this long without being renewed. */
export const SESSION_HOURS = 12;

export interface AdminSession {
  csrfToken: string;
}

/** A new session after a successful sign-in: the cookie value and the CSRF token the page echoes. */
export async function createSession(db: Queryable): Promise<{ sessionId: string; csrfToken: string }> {
  const sessionId = randomBase62(43);
  const csrfToken = randomBase62(32);
  await db.sql`
    INSERT INTO admin_sessions (id_hash, csrf_token, expires_at)
    VALUES (${hashSecret(sessionId)}, ${csrfToken}, now() + make_interval(hours => ${SESSION_HOURS}))`;
  await db.sql`DELETE FROM admin_sessions WHERE expires_at < now()`;
  return { sessionId, csrfToken };
}

export async function findSession(db: Queryable, sessionId: string): Promise<AdminSession | null> {
  if (!/^[0-9A-Za-z]{43}$/.test(sessionId)) return null;
  const rows = await db.sql<{ csrf_token: string }>`
    SELECT csrf_token FROM admin_sessions WHERE id_hash = ${hashSecret(sessionId)} AND expires_at > now()`;
  return rows[0] ? { csrfToken: rows[0].csrf_token } : null;
}

export async function endSession(db: Queryable, sessionId: string): Promise<void> {
  await db.sql`DELETE FROM admin_sessions WHERE id_hash = ${hashSecret(sessionId)}`;
}

/** The session cookie of a request, if any. */
export function sessionCookie(request: Request): string | undefined {
  return cookieValue(request, SESSION_COOKIE);
}

/**
 * Checks a cookie-authenticated request: a live session, and for anything that changes state the
 * CSRF token in `X-CSRF-Token` (SameSite=Strict already keeps other sites' requests cookieless).
 */
export async function authorizeSession(db: Queryable, request: Request): Promise<boolean> {
  const id = sessionCookie(request);
  if (id === undefined) return false;
  const session = await findSession(db, id);
  if (session === null) return false;
  const safe = request.method === "GET" || request.method === "HEAD";
  if (!safe && request.headers.get("x-csrf-token") !== session.csrfToken) {
    throw new ApiError("forbidden_origin", "missing or wrong X-CSRF-Token for this session; reload the page");
  }
  return true;
}

/** `Set-Cookie` for a session (Secure when the request came over TLS). */
export function sessionCookieHeader(sessionId: string, secure: boolean, maxAgeSeconds = SESSION_HOURS * 3600): string {
  return `${SESSION_COOKIE}=${sessionId}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}
