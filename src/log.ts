import type { LogLevelName } from "./config";
import { redactUrlCredentials } from "./redact";

const RANK: Record<LogLevelName, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Structured JSON lines on stderr (stdout stays free for command output). */
export function createLogger(level: LogLevelName, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = RANK[level];
  const emit = (lvl: Exclude<LogLevelName, "silent">) => (msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    write(`${redactUrlCredentials(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }))}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
