import type { Config } from "../config";
import { migrate } from "../db/migrate";
import { openDatabase } from "../db/open";
import type { Db } from "../db/types";
import { UsageError, type ParsedArgs } from "./args";

export interface Io {
  out(line: string): void;
}

export type Command = (args: ParsedArgs, config: Config, io: Io) => Promise<void>;

export function positional(args: ParsedArgs, index: number, name: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === "") throw new UsageError(`missing ${name}`);
  return value;
}

export function integerArg(value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${name} must be an integer, got "${value}"`);
  return Number(value);
}

export function requireFlag(args: ParsedArgs, name: string): string {
  const value = args.flags[name];
  if (value === undefined || value === "") throw new UsageError(`missing --${name}`);
  return value;
}

/** Opens the configured database, brings it up to date, runs `fn`, and always closes it. */
export async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}
