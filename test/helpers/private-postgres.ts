/**
 * A PostgreSQL server of the test's own (Debian's binaries, a fresh cluster in a temp directory, a
 * free port), so a test can stop and start a real server without touching the one other tests
 * share. As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivatePostgres {
  url: string;
  port: number;
  start(): Promise<void>;
  /** A fast shutdown: connections are cut, as an operator's restart or a crash would. */
  stop(): Promise<void>;
  remove(): Promise<void>;
}

function binDir(): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql");
  return join("/usr/lib/postgresql", versions[0]!, "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

async function run(command: string[]): Promise<void> {
  const argv = asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command;
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${out}${err}`);
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), "memoryd-pg-"));
  if (asRoot) {
    const id = (flag: string): number => Number(Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim());
    chownSync(root, id("-u"), id("-g"));
  }
  const data = join(root, "data");
  await run([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => run([join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(root, "log"), "-w", "start"]),
    stop: () => run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]),
    async remove() {
      await pg.stop().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}
