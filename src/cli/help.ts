/**
 * What `memoryd --help` and `memoryd COMMAND --help` print: one entry per command (or pair of
 * twin commands), from which the global usage is assembled, so the two never disagree.
 */
export interface CommandHelp {
  /** The commands this entry documents ("credits set" and "credits add" share one). */
  commands: readonly string[];
  usage: string;
  summary: string;
}

const DB_FLAGS = "Every command accepts --data-dir DIR or --database-url URL (env MEMORYD_DATA_DIR, DATABASE_URL).";

export const COMMAND_HELP: readonly CommandHelp[] = [
  {
    commands: ["serve"],
    usage: "memoryd serve [--port 8787] [--host 127.0.0.1] [--data-dir DIR | --database-url URL]",
    summary: "Starts the HTTP server (REST and MCP). On an empty database it creates workspace default and prints an API key once.",
  },
  { commands: ["migrate"], usage: "memoryd migrate [--json]", summary: "Brings the database schema up to date (serve does this too)." },
  {
    commands: ["backup"],
    usage: "memoryd backup FILE [--data-dir DIR | --url http://127.0.0.1:8787] [--json]",
    summary:
      "Writes a consistent snapshot of the embedded database; with --url, from the running server " +
      "(admin token in MEMORYD_ADMIN_TOKEN). PostgreSQL: use pg_dump.",
  },
  {
    commands: ["doctor"],
    usage: "memoryd doctor [--data-dir DIR | --database-url URL | --url http://127.0.0.1:8787] [--json]",
    summary:
      "Prints the database and version, migrations, the answer queue, counts, the embeddings endpoint and its vectors, " +
      "the data-directory lock and (with --url) the server's index memory.",
  },
  {
    commands: ["restore"],
    usage: "memoryd restore FILE --data-dir DIR [--json]",
    summary: "Creates a data directory from a backup; the directory must not hold a database.",
  },
  {
    commands: ["workspaces create"],
    usage: "memoryd workspaces create SLUG [--credits N] [--json]",
    summary: "Creates a workspace; fails (exit 1) if the slug exists.",
  },
  { commands: ["workspaces list"], usage: "memoryd workspaces list [--json]", summary: "Lists workspaces with their credits and live fact counts." },
  {
    commands: ["keys create"],
    usage:
      "memoryd keys create --workspace SLUG --name NAME --scopes memory.read,memory.write,answers.write\n" +
      "                    [--audience internal|external] [--agent SLUG] [--expires-at ISO8601] [--json]",
    summary:
      "Creates an API key and prints its secret once. --expires-at must be in the future. " +
      "--agent binds the key to one of the workspace's agents: every call acts as it, and naming another agent is refused.",
  },
  {
    commands: ["keys list"],
    usage: "memoryd keys list --workspace SLUG [--json]",
    summary: "Lists a workspace's keys with their state (active, revoked, expired); never a secret.",
  },
  {
    commands: ["keys revoke"],
    usage: "memoryd keys revoke KEY_ID_PREFIX_OR_SECRET [--json]",
    summary: "Revokes a key by id, prefix or full secret; every instance refuses it on the next request.",
  },
  {
    commands: ["credits set", "credits add"],
    usage: "memoryd credits set|add SLUG N [--json]",
    summary: "Sets or adds to a workspace's credit balance (never below zero).",
  },
  { commands: ["credits show"], usage: "memoryd credits show SLUG [--json]", summary: "Shows a workspace's credit balance." },
  {
    commands: ["team add"],
    usage: 'memoryd team add SLUG "Person Name" [--json]',
    summary: "Adds a team member, so facts naming them are attributed to the team.",
  },
  { commands: ["team list"], usage: "memoryd team list SLUG [--json]", summary: "Lists a workspace's team members." },
  {
    commands: ["team remove"],
    usage: 'memoryd team remove SLUG "Person Name" [--json]',
    summary: "Removes a team member (facts stored before keep their subject).",
  },
  { commands: ["agents list"], usage: "memoryd agents list SLUG [--json]", summary: "Lists a workspace's agents (main first)." },
  {
    commands: ["agents create", "agents update"],
    usage:
      "memoryd agents create|update SLUG AGENT [--display-name NAME] [--instructions TEXT] [--provider auto|anthropic|openai|local]\n" +
      "                    [--model NAME|default] [--max-output-tokens N] [--write-memory yes|no] [--memory-scope workspace|agent] [--json]",
    summary:
      "Creates an agent (--display-name required) or changes the given settings of one; main exists in every workspace. " +
      "--memory-scope agent keeps what the agent learns while answering as its own facts.",
  },
  {
    commands: ["agents delete"],
    usage: "memoryd agents delete SLUG AGENT [--json]",
    summary: "Deletes an agent (not main, nor one with facts of its own or keys bound to it); its answers keep its slug.",
  },
  {
    commands: ["facts pin", "facts unpin"],
    usage: "memoryd facts pin|unpin FACT_ID [--json]",
    summary: "Pins a fact into every context packet's core, or unpins it.",
  },
  {
    commands: ["facts import"],
    usage: "memoryd facts import FILE.jsonl --workspace SLUG [--json]   (progress bar on a terminal)",
    summary: "Teaches facts from a JSONL file through the capture pipeline.",
  },
  {
    commands: ["facts delete"],
    usage: "memoryd facts delete FACT_ID [--json]",
    summary: "Deletes one fact on every instance; the facts it had replaced become live again.",
  },
  {
    commands: ["facts explain"],
    usage: "memoryd facts explain FACT_ID [--json]",
    summary: "Shows a fact, what it replaced or updates and what replaced or updates it, with the lexicon record or words that made each link.",
  },
  {
    commands: ["facts export"],
    usage: "memoryd facts export --workspace SLUG              (JSONL on stdout)",
    summary: "Writes every fact, superseded history included.",
  },
  {
    commands: ["facts reclaim"],
    usage: "memoryd facts reclaim --workspace SLUG [--dry-run] [--json]",
    summary: "Re-reads every fact's claim and restores facts that older supersession rules hid but the current ones would not.",
  },
  {
    commands: ["embeddings backfill"],
    usage: "memoryd embeddings backfill [--workspace SLUG] [--json]   (progress bar on a terminal)",
    summary:
      "Embeds now every live fact without a vector of MEMORYD_EMBEDDINGS_MODEL (a running server does it in the background); " +
      "exit 2 when MEMORYD_EMBEDDINGS_URL is unset, 1 when the endpoint keeps failing.",
  },
  {
    commands: ["capture-model set", "capture-model off", "capture-model status", "capture-model undo"],
    usage:
      "memoryd capture-model set SLUG --provider anthropic|openai [--model NAME] [--daily-tokens N] [--json]\n" +
      "memoryd capture-model off|status SLUG [--json]\n" +
      "memoryd capture-model undo DECISION_ID [--json]",
    summary:
      "Turns a workspace's capture model on (facts taught are then judged, and conversations extracted, by it in the background), " +
      "off, or shows its tokens today and its queue; undo reverts one of its decisions (ids in facts explain). " +
      "The provider must be configured as for answers (ANTHROPIC_API_KEY, OPENAI_BASE_URL).",
  },
  {
    commands: ["end-users export"],
    usage: "memoryd end-users export SLUG USER_ID            (JSONL on stdout)",
    summary: "Writes every fact stored about one end user, history included.",
  },
  {
    commands: ["end-users forget"],
    usage: "memoryd end-users forget SLUG USER_ID [--json]",
    summary: "Deletes everything stored about one end user, in one transaction.",
  },
];

export const USAGE = `memoryd — workspace memory service for AI agents

Usage:
${COMMAND_HELP.map((h) => `  ${h.usage.replaceAll("\n", "\n  ")}`).join("\n")}
  memoryd COMMAND --help
  memoryd --help | --version

${DB_FLAGS}
`;

/**
 * Help for `memoryd WORDS --help`: the command's own entry, or every entry of a group
 * ("memoryd keys --help"); undefined when the words name nothing.
 */
export function helpFor(words: readonly string[]): string | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  const exact = COMMAND_HELP.find((h) => h.commands.includes(first) || (second !== undefined && h.commands.includes(`${first} ${second}`)));
  const entries = exact ? [exact] : COMMAND_HELP.filter((h) => h.commands.some((c) => c.startsWith(`${first} `)));
  if (entries.length === 0) return undefined;
  return `${entries.map((h) => `Usage: ${h.usage}\n  ${h.summary}`).join("\n\n")}\n\n${DB_FLAGS}\n`;
}
