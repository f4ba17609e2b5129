import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { ApiError } from "../errors";

/**
 * A lock whose holder keeps touching it: a holder that stopped (crashed, or its container was
 * killed) leaves a lock this old, which the next process takes over.
 */
const STALE_MS = 10_000;
const LOCK_NAME = "memoryd.lock";
/** Beside the lock, not in it: proper-lockfile removes the lock directory with rmdir. */
const OWNER_FILE = "memoryd.owner.json";

export interface Owner {
  pid: number;
  hostname: string;
  started_at: string;
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(ownerPath: string): Owner | null {
  try {
    return JSON.parse(readFileSync(ownerPath, "utf8")) as Owner;
  } catch {
    return null;
  }
}

/**
 * Who holds a data directory's lock, without taking it: the owner while its lock is fresh (its
 * holder touches it every few seconds), else null.
 */
export function dataDirHolder(dataDir: string): Owner | null {
  const lockPath = join(dataDir, LOCK_NAME);
  let touchedMsAgo: number;
  try {
    touchedMsAgo = Date.now() - statSync(lockPath).mtimeMs;
  } catch {
    return null;
  }
  const owner = readOwner(join(dataDir, OWNER_FILE));
  if (touchedMsAgo > STALE_MS) return null;
  if (owner !== null && owner.hostname === hostname() && !processAlive(owner.pid)) return null;
  return owner ?? { pid: 0, hostname: "unknown", started_at: "unknown" };
}

/**
 * PGlite is a single-process database: two processes on one data directory would corrupt it.
 * The lock is a directory created atomically (`mkdir`, via proper-lockfile) whose mtime the
 * holder refreshes every few seconds, so it holds across pid namespaces: two containers on one
 * volume, each memoryd being pid 1, still exclude each other. A lock no one refreshed for 10 s is
 * stale and taken over; on the same host, a lock whose holder pid is gone is taken over at once.
 * Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const lockPath = join(dataDir, LOCK_NAME);
  const ownerPath = join(dataDir, OWNER_FILE);
  const me = hostname();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const release = lockfile.lockSync(dataDir, {
        lockfilePath: lockPath,
        realpath: false,
        stale: STALE_MS,
        update: STALE_MS / 2,
        onCompromised: (error) => {
          // Someone else took the directory while we hold it: stop before two writers corrupt it.
          process.stderr.write(`memoryd: lost the lock on data directory ${dataDir} (${error.message}); exiting\n`);
          process.exit(1);
        },
      });
      const owner: Owner = { pid: process.pid, hostname: me, started_at: new Date().toISOString() };
      writeFileSync(ownerPath, JSON.stringify(owner));
      return () => {
        try {
          rmSync(ownerPath, { force: true });
          release();
        } catch {
          // Already released (or taken over after a stall): nothing of ours is left to remove.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      const owner = readOwner(ownerPath);
      const deadHere = owner !== null && owner.hostname === me && (owner.pid === process.pid || !processAlive(owner.pid));
      if (deadHere && attempt === 0) {
        rmSync(lockPath, { recursive: true, force: true });
        continue;
      }
      const who = owner === null ? "another memoryd process" : `another memoryd process (pid ${owner.pid} on ${owner.hostname})`;
      throw new ApiError(
        "data_dir_locked",
        `data directory ${dataDir} is in use by ${who}; stop it, or use DATABASE_URL to share a PostgreSQL database between instances`,
      );
    }
  }
  throw new Error(`could not lock data directory ${dataDir}`);
}
