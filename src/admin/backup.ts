/**
 * Backups of the embedded database: a snapshot taken by the process that holds the data
 * directory (the running server, through the admin API, or the CLI when no server runs), and a
 * restore into an empty data directory. PostgreSQL has its own tools (pg_dump, pg_restore), which
 * memoryd does not wrap.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { openEmbedded } from "../db/embedded";
import type { Db } from "../db/types";
import { ApiError } from "../errors";

export const POSTGRES_BACKUP_ADVICE =
  'this memoryd stores its data in PostgreSQL: back it up with pg_dump (pg_dump -Fc "$DATABASE_URL" > memoryd.dump) ' +
  "and restore with pg_restore; everything memoryd keeps is in that one database";

/** A consistent snapshot of the whole embedded database (gzipped tar). */
export async function takeBackup(db: Db): Promise<Blob> {
  if (db.snapshot === undefined) throw new ApiError("backup_unsupported", POSTGRES_BACKUP_ADVICE);
  return db.snapshot();
}

/**
 * Creates a data directory from a backup. The directory must not hold a database already (a
 * restore never overwrites one); migrations then run on the next start as after any upgrade.
 */
export async function restoreBackup(dataDir: string, backup: Blob): Promise<void> {
  const dir = resolve(dataDir);
  if (existsSync(join(dir, "pgdata")) && readdirSync(join(dir, "pgdata")).length > 0) {
    throw new ApiError("already_exists", `${dir} already holds a database; restore into an empty data directory`);
  }
  const magic = new Uint8Array(await backup.slice(0, 2).arrayBuffer());
  if (magic[0] !== 0x1f || magic[1] !== 0x8b)
    throw new ApiError("validation_error", "this file is not a memoryd backup (a gzipped tarball from memoryd backup)");
  const db = await openEmbedded(dir, { template: backup });
  try {
    // Reading it back proves the tarball was a database.
    await db.sql`SELECT count(*) FROM schema_migrations`;
  } finally {
    await db.close();
  }
}
