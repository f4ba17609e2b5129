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

export const USAGE = `memoryd — workspace memory service for AI agents

Usage:
  memoryd serve [--port 8787] [--host 127.0.0.1] [--data-dir DIR | --database-url URL]
  memoryd migrate
  memoryd workspaces create SLUG [--credits N] [--json]
  memoryd keys create --workspace SLUG --name NAME --scopes memory.read,memory.write,answers.write
                      [--audience internal|external] [--expires-at ISO8601] [--json]
  memoryd keys list --workspace SLUG [--json]
  memoryd keys revoke KEY_ID_OR_PREFIX
  memoryd credits set|add SLUG N
  memoryd credits show SLUG
  memoryd team add SLUG "Person Name"
  memoryd facts pin|unpin FACT_ID
  memoryd facts import FILE.jsonl --workspace SLUG   (progress bar on a terminal)
  memoryd facts export --workspace SLUG              (JSONL on stdout)
  memoryd facts reclaim --workspace SLUG [--dry-run] (restore facts wrongly superseded by older rules)
  memoryd end-users forget SLUG USER_ID
  memoryd --help | --version

Every command accepts --data-dir DIR or --database-url URL (env MEMORYD_DATA_DIR, DATABASE_URL).
`;
