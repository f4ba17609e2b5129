import type { AuthContext } from "./auth/authenticate";
import type { Db } from "./db/types";
import type { Channel } from "./memory/visibility";

/**
 * What every service function gets besides its input: the database, who is calling and through
 * which door. REST routes and MCP tools build one per request.
 */
export interface ServiceContext {
  db: Db;
  auth: AuthContext;
  channel: Channel;
}
