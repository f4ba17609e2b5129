import type { Config } from "../config";
import { openEmbedded } from "./embedded";
import { openPostgres } from "./postgres";
import { embeddedTemplate } from "./template";

/** Connections each instance may open to PostgreSQL. */
export const POSTGRES_POOL_SIZE = 10;
import type { Db } from "./types";

/** The database the configuration names: PostgreSQL when a URL is set, else embedded PGlite. */
export function openDatabase(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<Db> {
  if (config.databaseUrl !== undefined) {
    return Promise.resolve(openPostgres({ url: config.databaseUrl, maxConnections: POSTGRES_POOL_SIZE }));
  }
  return openEmbedded(config.dataDir, { template: embeddedTemplate() });
}
