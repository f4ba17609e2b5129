import { createAgent, deleteAgent, listAgents, updateAgent } from "../agents/service";
import { findWorkspace, removeTeamMember } from "../auth/workspaces";
import { exportFacts } from "../memory/admin";
import { deleteFact, factHistory } from "../memory/browse";
import { CreateAgentInput, UpdateAgentInput } from "../schema/agents";
import type { ExportedFact } from "../schema/memory";
import { parseInput } from "../schema/validate";
import { integerArg, positional, requireFlag, withDb, type Command } from "./shared";
import { UsageError, type ParsedArgs } from "./args";

/** Agent settings from flags: only the ones given (an update changes nothing else). */
function agentFlags(args: ParsedArgs): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  const { flags } = args;
  if (flags["display-name"] !== undefined) settings.display_name = flags["display-name"];
  if (flags.instructions !== undefined) settings.instructions = flags.instructions;
  if (flags.provider !== undefined) settings.provider = flags.provider;
  if (flags.model !== undefined) settings.model = flags.model === "default" ? null : flags.model;
  if (flags["max-output-tokens"] !== undefined) settings.max_output_tokens = integerArg(flags["max-output-tokens"], "--max-output-tokens");
  if (flags["write-memory"] !== undefined) {
    if (flags["write-memory"] !== "yes" && flags["write-memory"] !== "no") throw new UsageError("--write-memory takes yes or no");
    settings.can_write_memory = flags["write-memory"] === "yes";
  }
  if (flags["memory-scope"] !== undefined) settings.memory_scope = flags["memory-scope"];
  return settings;
}

const agentsList: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    const agents = await listAgents(db, workspace.id);
    if (args.json) io.out(JSON.stringify({ agents }));
    else {
      for (const a of agents) {
        const memory = `${a.can_write_memory ? "read+write" : "read"}${a.memory_scope === "agent" ? " (its own)" : ""}`;
        io.out(`${a.slug}  ${a.display_name}  ${a.provider}/${a.model ?? "default"}  ${a.max_output_tokens} tokens  memory ${memory}`);
      }
    }
  });

const agentsCreate: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    const input = parseInput(
      CreateAgentInput,
      { slug: positional(args, 3, "AGENT"), display_name: requireFlag(args, "display-name"), ...agentFlags(args) },
      "arguments",
    );
    const agent = await createAgent(db, workspace.id, input);
    io.out(args.json ? JSON.stringify(agent) : `created agent ${agent.slug} in ${workspace.slug}`);
  });

const agentsUpdate: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    const agent = await updateAgent(db, workspace.id, positional(args, 3, "AGENT"), parseInput(UpdateAgentInput, agentFlags(args), "arguments"));
    io.out(args.json ? JSON.stringify(agent) : `updated agent ${agent.slug} in ${workspace.slug}`);
  });

const agentsDelete: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    const slug = positional(args, 3, "AGENT");
    await deleteAgent(db, workspace.id, slug);
    io.out(args.json ? JSON.stringify({ deleted: slug }) : `deleted agent ${slug} from ${workspace.slug}`);
  });

const teamRemove: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = positional(args, 2, "SLUG");
    const name = positional(args, 3, "NAME");
    await removeTeamMember(db, slug, name);
    io.out(args.json ? JSON.stringify({ workspace: slug, removed: name }) : `removed ${name} from the team of ${slug}`);
  });

const factsDelete: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const result = await deleteFact(db, positional(args, 2, "FACT_ID"));
    if (args.json) io.out(JSON.stringify(result));
    else io.out(`deleted ${result.fact_id}${result.restored.length > 0 ? `; restored the facts it had replaced: ${result.restored.join(", ")}` : ""}`);
  });

/** One fact and why it stands where it does: what it replaced or updates, what replaced or updates it, and which record or words decided. */
const factsExplain: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const history = await factHistory(db, positional(args, 2, "FACT_ID"));
    if (args.json) {
      io.out(JSON.stringify(history));
      return;
    }
    const { fact } = history;
    const line = (f: ExportedFact): string => `  ${f.fact_id}  ${f.recorded_time}  ${JSON.stringify(f.text)}`;
    const why = (f: ExportedFact): string => (f.link_reason === null ? "" : `\n    because ${f.link_reason}`);
    io.out(`${fact.fact_id}  ${fact.superseded_by === null ? "live" : `replaced by ${fact.superseded_by}`}  ${JSON.stringify(fact.text)}`);
    io.out(`  subject ${fact.subject}${fact.claim_subject === null ? "; no claim read" : `; its claim is about ${fact.claim_subject}`}`);
    if (fact.link_reason !== null) io.out(`  it ${fact.link_reason}`);
    const sections: [string, ExportedFact[], boolean][] = [
      ["replaced (hidden, kept as history)", history.replaced, false],
      ["replaced by", history.replaced_by, true],
      ["updates (both live, this one read first)", history.updates, false],
      ["updated by (read first)", history.updated_by, true],
    ];
    for (const [title, facts, showWhy] of sections) {
      if (facts.length === 0) continue;
      io.out(`${title}:`);
      for (const f of facts) io.out(`${line(f)}${showWhy ? why(f) : ""}`);
    }
    if (history.model_decisions.length === 0) return;
    io.out("decided by the capture model:");
    for (const d of history.model_decisions) {
      const what =
        d.label === "duplicate"
          ? `${d.fact_id} duplicates ${d.target_id}`
          : `${d.fact_id ?? JSON.stringify(d.proposed_text)} ${d.label} ${d.target_id ?? ""}`.trim();
      const state = d.vetoed_by !== null ? `vetoed by ${d.vetoed_by}` : d.undone ? "applied, undone in review" : "applied";
      io.out(`  ${d.decision_id}  ${what}  (${state}; by model ${d.model}, ${d.prompt}, batch ${d.batch_id}): ${d.reason}`);
    }
  });

const endUsersExport: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    for await (const fact of exportFacts(db, workspace.id, positional(args, 3, "USER_ID"))) io.out(JSON.stringify(fact));
  });

export const ADMIN_COMMANDS: Record<string, Command> = {
  "agents list": agentsList,
  "agents create": agentsCreate,
  "agents update": agentsUpdate,
  "agents delete": agentsDelete,
  "team remove": teamRemove,
  "facts delete": factsDelete,
  "facts explain": factsExplain,
  "end-users export": endUsersExport,
};
