/**
 * `memoryd backup FILE` and `memoryd restore FILE`: the embedded database's backups. A backup
 * is taken by whichever process holds the data directory: this one when no server runs, or the
 * running server through `GET /v1/admin/backup` (`--url`, with the admin token in
 * MEMORYD_ADMIN_TOKEN). PostgreSQL deployments are told to use pg_dump.
 */
import { writeFileSync } from "node:fs";
import { POSTGRES_BACKUP_ADVICE, restoreBackup, takeBackup } from "../admin/backup";
import { openDatabase } from "../db/open";
import { ApiError } from "../errors";
import { UsageError } from "./args";
import { positional, type Command } from "./shared";

const backup: Command = async (args, config, io) => {
  const file = positional(args, 1, "FILE");
  if (config.databaseUrl !== undefined) throw new UsageError(POSTGRES_BACKUP_ADVICE);
  const url = args.flags.url;
  const snapshot = url !== undefined ? await backupFromServer(url, config.adminToken) : await backupHere(config);
  writeFileSync(file, new Uint8Array(await snapshot.arrayBuffer()));
  if (args.json) io.out(JSON.stringify({ file, bytes: snapshot.size }));
  else io.out(`wrote a backup of ${url ?? config.dataDir} to ${file} (${snapshot.size} bytes); restore it with memoryd restore ${file} --data-dir DIR`);
};

/** No server runs on the data directory: open it here (the lock says if one does). */
async function backupHere(config: Parameters<Command>[1]): Promise<Blob> {
  const db = await openDatabase(config).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === "data_dir_locked") {
      throw new UsageError(
        `${error.message}. To back up while it serves, pass --url with its address (for example --url http://127.0.0.1:8787) and set MEMORYD_ADMIN_TOKEN`,
      );
    }
    throw error;
  });
  try {
    return await takeBackup(db);
  } finally {
    await db.close();
  }
}

async function backupFromServer(url: string, adminToken: string | undefined): Promise<Blob> {
  if (adminToken === undefined) throw new UsageError("backing up a running server needs its admin token in MEMORYD_ADMIN_TOKEN");
  let target: URL;
  try {
    target = new URL("/v1/admin/backup", url);
  } catch {
    throw new UsageError(`--url "${url}" is not a URL`);
  }
  const res = await fetch(target, { headers: { authorization: `Bearer ${adminToken}` } }).catch((error: unknown) => {
    throw new UsageError(`could not reach ${target.origin}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (res.status !== 200) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new UsageError(`${target.origin} refused the backup (HTTP ${res.status}): ${body?.error?.message ?? "no reason given"}`);
  }
  return res.blob();
}

const restore: Command = async (args, config, io) => {
  const file = positional(args, 1, "FILE");
  if (config.databaseUrl !== undefined) throw new UsageError(POSTGRES_BACKUP_ADVICE);
  const source = Bun.file(file);
  if (!(await source.exists())) throw new UsageError(`no file ${file}`);
  await restoreBackup(config.dataDir, source);
  if (args.json) io.out(JSON.stringify({ data_dir: config.dataDir }));
  else io.out(`restored ${file} into ${config.dataDir}; start memoryd serve --data-dir ${config.dataDir}`);
};

export const BACKUP_COMMANDS: Record<string, Command> = {
  backup,
  restore,
};
