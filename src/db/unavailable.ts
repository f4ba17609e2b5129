/**
 * Whether a failure means the database cannot be reached right now (so a client should wait and
 * retry: 503 `database_unavailable`), as opposed to a bug (500). Records, not a pattern: each code
 * with what it means.
 */

/** Socket and client codes (Node's errno codes, postgres.js's own). */
const CONNECTION_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "nothing listens at the database's address (the server is stopped or restarting)",
  ECONNRESET: "the connection was cut",
  EPIPE: "the connection was cut while writing",
  ETIMEDOUT: "the network did not answer",
  EHOSTUNREACH: "no route to the database host",
  ENETUNREACH: "no route to the database network",
  ENOTFOUND: "the database host name does not resolve (DNS may be down)",
  EAI_AGAIN: "the database host name could not be resolved now",
  CONNECT_TIMEOUT: "postgres.js: no connection within connect_timeout",
  CONNECTION_CLOSED: "postgres.js: the server closed the connection",
  CONNECTION_ENDED: "postgres.js: the connection ended",
  CONNECTION_DESTROYED: "postgres.js: the connection was destroyed",
};

/** SQLSTATEs the server answers while it cannot serve (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const SQLSTATE_CLASSES: Readonly<Record<string, string>> = {
  "08": "connection exception",
};
const SQLSTATES: Readonly<Record<string, string>> = {
  "57P01": "admin_shutdown: the server is shutting down",
  "57P02": "crash_shutdown: the server crashed",
  "57P03": "cannot_connect_now: the server is starting up or in recovery",
  "53300": "too_many_connections",
};

/** Messages of an embedded database that is closed (the process is stopping, or it failed). */
const EMBEDDED_MESSAGES: readonly string[] = ["PGlite is closed"];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code in CONNECTION_CODES || code in SQLSTATES) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && code.slice(0, 2) in SQLSTATE_CLASSES) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === "string" && EMBEDDED_MESSAGES.some((m) => message.includes(m))) return true;
  // A connection error postgres.js wraps keeps the socket's error as its cause.
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}
