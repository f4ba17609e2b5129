/**
 * Issue 53 end to end: an embedded PGlite loses its data files to a garbage collection in the same
 * Bun process, the way `bun run test` lost them after the Playwright tests.
 *
 *   bun scripts/repro/pglite-fds.ts [--guard]
 *
 * 1. A child is spawned the way playwright-core launches Chromium (node:child_process, stdio
 *    ["ignore", "pipe", "pipe", "pipe", "pipe"]); it exits and its streams are closed.
 * 2. PGlite opens a data directory: its files take the freed descriptor numbers.
 * 3. The ChildProcess is dropped and a GC runs: Bun 1.3.14's Subprocess finalizer closes the extra
 *    pipes' numbers a second time, which are now PGlite's files.
 * 4. A socket opened next takes such a number; PGlite's next read or write of that relation fails
 *    with "Invalid seek" (a file opened next would take it instead, and receive the relation's
 *    pages: silent corruption).
 *
 * Bun 1.3.14 prints "could not write blocks 16..16 in file "base/5/1249": Invalid seek" and exits 1.
 * With --guard, src/db/child-process-guard.ts is installed first and nothing breaks (exit 0).
 */
import childProcess from "node:child_process";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_buffercache } from "@electric-sql/pglite/contrib/pg_buffercache";
import { guardChildProcessPipes } from "../../src/db/child-process-guard";
import { loadEmbeddedAssets } from "../../src/db/embedded-assets";
import { createDataDirTemplate } from "../../src/db/template";

if (process.argv.includes("--guard")) guardChildProcessPipes();

/** Descriptor number -> path, for this process's descriptors under `dir`. */
function descriptorsUnder(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${name}`);
      if (target.startsWith(dir)) found.set(Number(name), target);
    } catch {
      // closed while we listed
    }
  }
  return found;
}

/** PGlite's close rethrows Emscripten's ErrnoError, which has no message, only an errno. */
function describe(error: unknown): string {
  const { message, errno } = error as { message?: string; errno?: number };
  return message || `errno ${errno} (${errno === 8 ? "EBADF" : errno === 70 ? "ESPIPE" : "?"})`;
}

const assets = await loadEmbeddedAssets();
const template = await createDataDirTemplate("none");
const root = mkdtempSync(join(tmpdir(), "memoryd-repro-"));

let child: childProcess.ChildProcess | undefined = childProcess.spawn("sh", ["-c", "echo devtools >&3"], {
  stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
});
await new Promise((resolve) => child!.once("close", resolve));
for (const stream of child.stdio) stream?.destroy();
await Bun.sleep(20);

const pg = await PGlite.create(join(root, "pgdata"), { ...assets, extensions: { ...assets.extensions, pg_buffercache }, loadDataDir: template });
await pg.exec(
  "CREATE EXTENSION pg_buffercache; CREATE TABLE t (id serial PRIMARY KEY, pad text); INSERT INTO t (pad) SELECT repeat('x', 500) FROM generate_series(1, 2000)",
);
const before = descriptorsUnder(root);

child = undefined;
for (let i = 0; i < 3; i++) {
  Bun.gc(true);
  await Bun.sleep(10);
}
const after = descriptorsUnder(root);
const lost = [...before].filter(([fd, path]) => after.get(fd) !== path);

// Sockets opened now take the lowest free numbers: the ones PGlite just lost.
const listeners = [1, 2].map(() => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }));
const errors: string[] = [];
for (const statement of [
  // Out of shared buffers, so the next reads of those relations go to their files.
  "SELECT count(pg_buffercache_evict(bufferid)) FROM pg_buffercache WHERE relfilenode IS NOT NULL",
  "SELECT count(*) FROM pg_am",
  "INSERT INTO t (pad) SELECT repeat('y', 500) FROM generate_series(1, 2000)",
  "CREATE TABLE u (a int, b text, c timestamptz)",
  "CHECKPOINT",
  "SELECT count(*) FROM t",
  "SELECT count(*) FROM pg_class, pg_attribute WHERE attrelid = pg_class.oid",
]) {
  try {
    await pg.exec(statement);
  } catch (error) {
    errors.push(`${statement.split(" ")[0]}: ${describe(error)}`);
  }
}
try {
  await pg.close();
} catch (error) {
  errors.push(`close: ${describe(error)}`);
}
for (const listener of listeners) listener.stop(true);
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify({ bun: Bun.version, lost: lost.map(([fd, path]) => `${fd} ${path.slice(root.length)}`), errors }, null, 2));
process.exit(lost.length > 0 || errors.length > 0 ? 1 : 0);
