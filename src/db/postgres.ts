import postgres from "postgres";
import { flatten } from "./fragment";
import type { Db, Sql, Transaction } from "./types";

export interface PostgresOptions {
  url: string;
  maxConnections: number;
}

/** postgres.js-backed Db for a shared PostgreSQL server (many instances may point at it). */
export function openPostgres(options: PostgresOptions): Db {
  const client = postgres(options.url, {
    max: options.maxConnections,
    // A server that does not answer fails the request within seconds (503 database_unavailable),
    // rather than after postgres.js's default 30.
    connect_timeout: 5,
    onnotice: () => {},
    // int8 (counts, balances) as JS numbers: every value we store fits in 2^53.
    types: {
      bigint: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) },
    },
    transform: { undefined: null },
    connection: { application_name: "memoryd" },
  });
  const wrap = (s: postgres.Sql | postgres.TransactionSql): Sql =>
    (async (strings: TemplateStringsArray, ...values: unknown[]) => {
      const flat = flatten(strings, values);
      return (await s(flat.strings, ...(flat.values as postgres.ParameterOrFragment<never>[]))) as never;
    }) as Sql;

  return {
    kind: "postgres",
    sql: wrap(client),
    async exec(text) {
      await client.unsafe(text);
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      return (await client.begin((tx) =>
        fn({
          sql: wrap(tx),
          exec: async (text) => {
            await tx.unsafe(text);
          },
        }),
      )) as T;
    },
    async listen(channel, onNotify) {
      const sub = await client.listen(channel, onNotify);
      return () => sub.unlisten();
    },
    async notify(channel, payload) {
      await client.notify(channel, payload);
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}
