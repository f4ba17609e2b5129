import { parseArgs } from "node:util";

/** Every flag any command takes; commands pick what they need. */
const FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  "data-dir": { type: "string" },
  "database-url": { type: "string" },
  json: { type: "boolean" },
  credits: { type: "string" },
  workspace: { type: "string" },
  name: { type: "string" },
  scopes: { type: "string" },
  audience: { type: "string" },
  "expires-at": { type: "string" },
  "dry-run": { type: "boolean" },
  "display-name": { type: "string" },
  instructions: { type: "string" },
  provider: { type: "string" },
  model: { type: "string" },
  "max-output-tokens": { type: "string" },
  "daily-tokens": { type: "string" },
  "write-memory": { type: "string" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | undefined>;
  json: boolean;
  /** Report what would change without changing it (`facts reclaim`). */
  dryRun: boolean;
  help: boolean;
  version: boolean;
}

export class UsageError extends Error {
  override name = "UsageError";
}

/** Negative amounts (`credits add acme -5`) are values, not flags. */
const NEGATIVE_NUMBER = /^-\d+$/;
const NEGATIVE_MARK = "\u0000neg:";

export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed;
  try {
    const args = argv.map((a) => (NEGATIVE_NUMBER.test(a) ? `${NEGATIVE_MARK}${a}` : a));
    parsed = parseArgs({ args, options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "invalid arguments");
  }
  const flags: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === "string") flags[name] = value;
  }
  return {
    positionals: parsed.positionals.map((p) => (p.startsWith(NEGATIVE_MARK) ? p.slice(NEGATIVE_MARK.length) : p)),
    flags,
    json: parsed.values.json === true,
    dryRun: parsed.values["dry-run"] === true,
    help: parsed.values.help === true,
    version: parsed.values.version === true,
  };
}
