import type { AuthContext } from "./auth/authenticate";
import type { Db } from "./db/types";
import type { FactIndexes } from "./memory/index/registry";
import type { Channel } from "./memory/visibility";

/**
 * What every service function gets besides its input: the database, the process's search
 * indexes, who is calling and through which door. REST routes and MCP tools build one per request.
 */
export interface ServiceContext {
  db: Db;
  index: FactIndexes;
  auth: AuthContext;
  channel: Channel;
}
