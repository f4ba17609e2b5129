#!/usr/bin/env bun
import pkg from "../package.json";
import { parseCommandLine, UsageError } from "./cli/args";
import { helpFor, USAGE } from "./cli/help";
import { findCommand } from "./cli/commands";
import { ConfigError, loadConfig } from "./config";
import { ApiError } from "./errors";
import { redactUrlCredentials } from "./redact";

async function main(argv: string[]): Promise<number> {
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const fail = (code: number, message: string): number => {
    process.stderr.write(`memoryd: ${redactUrlCredentials(message)}\n`);
    return code;
  };
  try {
    const args = parseCommandLine(argv);
    if (args.version) {
      out(pkg.version);
      return 0;
    }
    if (args.help || args.positionals.length === 0) {
      out(helpFor(args.positionals) ?? USAGE);
      return args.help ? 0 : 2;
    }
    const command = findCommand(args.positionals);
    if (!command) return fail(2, `unknown command "${args.positionals.join(" ")}"; see memoryd --help`);
    const config = loadConfig(args.flags);
    await command(args, config, { out });
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) return fail(2, error.message);
    // A bad argument is a usage error whichever layer noticed it.
    if (error instanceof ApiError) return fail(error.code === "validation_error" ? 2 : 1, error.message);
    return fail(1, error instanceof Error ? error.message : String(error));
  }
}

process.exitCode = await main(process.argv.slice(2));
