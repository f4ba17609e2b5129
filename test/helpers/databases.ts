import { afterAll, beforeAll, describe } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { openEmbedded } from "../../src/db/embedded";
import { createDataDirTemplate } from "../../src/db/template";
import { migrate } from "../../src/db/migrate";
import { openPostgres } from "../../src/db/postgres";
import type { Db } from "../../src/db/types";

export type DbKind = "embedded" | "postgres";

/** Embedded always; Postgres too when TEST_DATABASE_URL names a server (CI sets it). */
export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ["embedded", "postgres"] : ["embedded"];

const pgliteVersion = (JSON.parse(readFileSync(join(import.meta.dir, "../../node_modules/@electric-sql/pglite/package.json"), "utf8")) as { version: string })
  .version;
const templatePath = join(tmpdir(), `memoryd-test-pgdata-${pgliteVersion}.tar`);

/** initdb costs seconds, so every embedded test database starts from one cached template. */
export async function embeddedTestTemplate(): Promise<Blob> {
  if (!existsSync(templatePath)) {
    const tarball = await createDataDirTemplate("none");
    const partial = `${templatePath}.${process.pid}`;
    await Bun.write(partial, tarball);
    renameSync(partial, templatePath);
  }
  return Bun.file(templatePath);
}

export interface TestDatabase {
  db: Db;
  /** Connection settings another process (the binary) can use for the same database. */
  config: { dataDir: string; databaseUrl?: string };
  close(): Promise<void>;
}

/** A fresh, empty database of `kind` (migrated unless asked not to). */
export async function openTestDatabase(kind: DbKind, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "memoryd-test-"));
  if (kind === "embedded") {
    const db = await openEmbedded(dataDir, { template: await embeddedTestTemplate() });
    if (options.migrate !== false) await migrate(db);
    return {
      db,
      config: { dataDir },
      close: async () => {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const databaseUrl = await createPostgresDatabase();
  const db = openPostgres({ url: databaseUrl, maxConnections: 10 });
  if (options.migrate !== false) await migrate(db);
  return {
    db,
    config: { dataDir, databaseUrl },
    close: async () => {
      await db.close();
      await dropPostgresDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set");
  return url;
}

export async function createPostgresDatabase(): Promise<string> {
  const name = `memoryd_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Runs the same suite once per available database, each on its own fresh database. */
export function describeEachDb(name: string, body: (get: () => TestDatabase, kind: DbKind) => void): void {
  for (const kind of DB_KINDS) {
    describe(`${name} [${kind}]`, () => {
      let current: TestDatabase | undefined;
      beforeAll(async () => {
        current = await openTestDatabase(kind);
      }, 60_000);
      afterAll(async () => {
        await current?.close();
      }, 30_000);
      body(() => {
        if (!current) throw new Error("test database not open yet");
        return current;
      }, kind);
    });
  }
}
