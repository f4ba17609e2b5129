import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PGlite, types, type Transaction as PGliteTransaction } from "@electric-sql/pglite";
import { guardChildProcessPipes } from "./child-process-guard";
import { lockDataDir } from "./data-dir-lock";
import { loadEmbeddedAssets } from "./embedded-assets";
import { flatten } from "./fragment";
import type { Db, Sql, Transaction } from "./types";

/** Turns a tagged template into `$n` placeholders for PGlite's extended-protocol query. */
function toQuery(strings: readonly string[]): string {
  let text = strings[0] ?? "";
  for (let i = 1; i < strings.length; i++) text += `$${i}${strings[i]}`;
  return text;
}

type Runner = Pick<PGliteTransaction, "query">;

function wrap(runner: Runner): Sql {
  return (async (strings: TemplateStringsArray, ...values: unknown[]) => {
    const flat = flatten(strings, values);
    const result = await runner.query(toQuery(flat.strings), flat.values);
    return result.rows as never;
  }) as Sql;
}

export interface EmbeddedOptions {
  /**
   * A `dumpDataDir` tarball to start a NEW data directory from, skipping initdb (seconds of
   * work). Ignored when the directory already holds a database.
   */
  template?: Blob;
}

/** Embedded PGlite in a data directory: the zero-configuration database. */
export async function openEmbedded(dataDir: string, options: EmbeddedOptions = {}): Promise<Db> {
  // From here on, no child this process spawns can have Bun close its pipes' numbers under PGlite.
  guardChildProcessPipes();
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const unlock = lockDataDir(dir);
  let pg: PGlite;
  try {
    const assets = await loadEmbeddedAssets();
    const pgdata = join(dir, "pgdata");
    const fresh = !existsSync(join(pgdata, "PG_VERSION"));
    pg = await PGlite.create(pgdata, {
      ...assets,
      ...(fresh && options.template ? { loadDataDir: options.template } : {}),
      parsers: { [types.INT8]: (value: string) => Number(value) },
    });
  } catch (error) {
    unlock();
    throw error;
  }

  return {
    kind: "embedded",
    sql: wrap(pg),
    async exec(text) {
      await pg.exec(text);
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      return pg.transaction((tx) =>
        fn({
          sql: wrap(tx),
          exec: async (text) => {
            await tx.exec(text);
          },
        }),
      );
    },
    async listen(channel, onNotify) {
      const unlisten = await pg.listen(channel, onNotify);
      return () => unlisten();
    },
    async notify(channel, payload) {
      await pg.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async snapshot() {
      // A checkpoint first: the tarball then holds every committed change in the data files.
      await pg.exec("CHECKPOINT");
      return pg.dumpDataDir("gzip");
    },
    async close() {
      try {
        await pg.close();
      } finally {
        unlock();
      }
    },
  };
}
