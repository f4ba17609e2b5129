/**
 * A fresh database for one bench run: embedded PGlite in a temp dir (started from a cached
 * initdb template, as the tests do), or a new PostgreSQL database when BENCH_DATABASE_URL names
 * a server (created here, dropped at the end).
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { openEmbedded } from "../../src/db/embedded";
import { loadEmbeddedAssets } from "../../src/db/embedded-assets";
import { migrate } from "../../src/db/migrate";
import { openPostgres } from "../../src/db/postgres";
import type { Db } from "../../src/db/types";

export interface BenchDatabase {
  db: Db;
  label: string;
  close(): Promise<void>;
}

const pgliteVersion = (JSON.parse(readFileSync(join(import.meta.dir, "../../node_modules/@electric-sql/pglite/package.json"), "utf8")) as { version: string })
  .version;
// Same file name as test/helpers/databases.ts: one cached initdb serves tests and benches.
const templatePath = join(tmpdir(), `memoryd-test-pgdata-${pgliteVersion}.tar`);

async function initdbTemplate(): Promise<Blob> {
  if (!existsSync(templatePath)) {
    const pg = await PGlite.create({ ...(await loadEmbeddedAssets()) });
    const tarball = await pg.dumpDataDir("none");
    await pg.close();
    const partial = `${templatePath}.${process.pid}`;
    await Bun.write(partial, tarball);
    renameSync(partial, templatePath);
  }
  return Bun.file(templatePath);
}

export interface BenchDatabaseOptions {
  /** A PostgreSQL server to create the database on; default BENCH_DATABASE_URL, else embedded PGlite. */
  adminUrl?: string;
  /** The database's name (dropped first if it exists); default a fresh random one. */
  name?: string;
  maxConnections?: number;
}

export async function openBenchDatabase(options: BenchDatabaseOptions = {}): Promise<BenchDatabase> {
  const adminUrl = options.adminUrl ?? process.env.BENCH_DATABASE_URL;
  if (adminUrl === undefined || adminUrl === "") {
    const dir = mkdtempSync(join(tmpdir(), "memoryd-bench-"));
    const db = await openEmbedded(dir, { template: await initdbTemplate() });
    await migrate(db);
    return {
      db,
      label: "embedded PGlite",
      close: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = options.name ?? `memoryd_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    if (options.name !== undefined) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres({ url: url.toString(), maxConnections: options.maxConnections ?? 4 });
  const drop = async (): Promise<void> => {
    const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    await drop();
    throw error;
  }
  const version = (await db.sql<{ v: string }>`SELECT current_setting('server_version') AS v`)[0]?.v ?? "?";
  return {
    db,
    label: options.name === undefined ? `PostgreSQL ${version}` : `PostgreSQL ${version} (${name})`,
    close: async () => {
      await db.close();
      await drop();
    },
  };
}
