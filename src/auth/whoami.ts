import type { WhoamiResult } from "../schema/auth";
import { RATE_LIMIT, type AuthContext } from "./authenticate";

/** GET /v1/whoami (docs/api.md): what the calling key is and may do. */
export function whoami(auth: AuthContext): WhoamiResult {
  return {
    key_name: auth.keyName,
    key_prefix: auth.keyPrefix,
    scopes: [...auth.scopes],
    key_audience: auth.audience,
    rate_limit: { requests_per_window: RATE_LIMIT.requestsPerWindow, window_seconds: RATE_LIMIT.windowSeconds },
  };
}
