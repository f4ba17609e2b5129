import type { Config } from "../config";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * DNS-rebinding protection: a browser page may only reach the tool server from a loopback
 * origin, an origin listed in MEMORYD_ALLOWED_ORIGINS, or (when serving on a non-loopback
 * address) its own host. Requests without an Origin header are not from a browser page.
 */
export function originAllowed(request: Request, config: Pick<Config, "host" | "allowedOrigins">): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (LOOPBACK.has(url.hostname)) return true;
  if (config.allowedOrigins.includes(url.origin)) return true;
  return !LOOPBACK.has(config.host) && url.host === request.headers.get("host");
}
