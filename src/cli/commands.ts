import { createKey, listKeys, revokeKey } from "../auth/keys";
import { addTeamMember, changeCredits, createWorkspace, findWorkspace, listTeamMembers, listWorkspaces } from "../auth/workspaces";
import { migrate } from "../db/migrate";
import { openDatabase } from "../db/open";
import { createLogger } from "../log";
import { CreateKeyInput, WorkspaceSlug } from "../schema/auth";
import { parseInput } from "../schema/validate";
import { UsageError } from "./args";
import { ADMIN_COMMANDS } from "./admin-commands";
import { BACKUP_COMMANDS } from "./backup-commands";
import { DOCTOR_COMMANDS } from "./doctor-command";
import { EMBEDDINGS_COMMANDS } from "./embeddings-commands";
import { CAPTURE_MODEL_COMMANDS } from "./capture-model-commands";
import { MEMORY_COMMANDS } from "./memory-commands";
import { integerArg, positional, requireFlag, withDb, type Command } from "./shared";

const serve: Command = async (_args, config, io) => {
  // The server (HTTP, MCP and model SDKs) loads only for `serve`: other commands start without it.
  const { startServer } = await import("../server");
  const log = createLogger(config.logLevel);
  const db = await openDatabase(config);
  let server;
  try {
    server = await startServer(config, db, log, io.out);
  } catch (error) {
    // Nothing may keep the process alive or the data directory locked after a failed start.
    await db.close();
    throw error;
  }
  io.out(`memoryd listening on ${server.url} (${db.kind} database)`);
  const onSignal = (): void => {
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error("shutdown failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  await new Promise<never>(() => {});
};

const migrateCommand: Command = async (args, config, io) => {
  const db = await openDatabase(config);
  try {
    const report = await migrate(db);
    if (args.json) io.out(JSON.stringify(report));
    else
      io.out(
        report.applied.length === 0
          ? `database is up to date (version ${report.current})`
          : `applied migrations ${report.applied.join(", ")}; now at version ${report.current}`,
      );
  } finally {
    await db.close();
  }
};

const workspacesCreate: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = parseInput(WorkspaceSlug, positional(args, 2, "SLUG"), "SLUG");
    const credits = integerArg(args.flags.credits ?? "0", "--credits");
    if (credits < 0) throw new UsageError("--credits must not be negative");
    const workspace = await createWorkspace(db, slug, credits);
    if (args.json) io.out(JSON.stringify({ id: workspace.id, slug: workspace.slug, credits: workspace.credits }));
    else io.out(`created workspace ${workspace.slug} (${workspace.credits} credits)`);
  });

const workspacesList: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspaces = await listWorkspaces(db);
    if (args.json) io.out(JSON.stringify({ workspaces }));
    else for (const w of workspaces) io.out(`${w.slug}  ${w.credits} credits  ${w.live_facts} live facts  ${w.id}`);
  });

const keysCreate: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const scopes = requireFlag(args, "scopes")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const input = parseInput(
      CreateKeyInput,
      {
        workspace: requireFlag(args, "workspace"),
        name: requireFlag(args, "name"),
        scopes,
        audience: args.flags.audience ?? "internal",
        agent: args.flags.agent,
        expires_at: args.flags["expires-at"],
      },
      "arguments",
    );
    const key = await createKey(db, config.deployment, input);
    const view = {
      id: key.id,
      secret: key.secret,
      prefix: key.prefix,
      name: key.name,
      scopes: key.scopes,
      audience: key.audience,
      expires_at: key.expires_at,
      // The operator CLI's contract is the fields above; a bound key also says its agent.
      ...(key.agent !== null && { agent: key.agent }),
    };
    if (args.json) io.out(JSON.stringify(view));
    else {
      io.out(
        `created key ${key.id} (${key.prefix}…) scopes=${key.scopes.join(",")} audience=${key.audience}${key.agent === null ? "" : ` agent=${key.agent}`}`,
      );
      io.out(`secret (shown once): ${key.secret}`);
    }
  });

const keysList: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const keys = await listKeys(db, requireFlag(args, "workspace"));
    if (args.json) io.out(JSON.stringify({ keys }));
    else {
      for (const k of keys) {
        const state = k.revoked_at ? "revoked" : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? "expired" : "active";
        io.out(`${k.id}  ${k.prefix}  ${state}  ${k.audience}  ${k.scopes.join(",")}  ${k.name}`);
      }
    }
  });

const keysRevoke: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const key = await revokeKey(db, positional(args, 2, "KEY_ID_OR_PREFIX"));
    if (args.json) io.out(JSON.stringify(key));
    else io.out(`revoked key ${key.id} (${key.prefix}…)`);
  });

const credits =
  (mode: "set" | "add"): Command =>
  (args, config, io) =>
    withDb(config, async (db) => {
      const workspace = await changeCredits(db, positional(args, 2, "SLUG"), mode, integerArg(positional(args, 3, "N"), "N"));
      if (args.json) io.out(JSON.stringify({ slug: workspace.slug, credits: workspace.credits }));
      else io.out(`${workspace.slug}: ${workspace.credits} credits`);
    });

const creditsShow: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    if (args.json) io.out(JSON.stringify({ slug: workspace.slug, credits: workspace.credits }));
    else io.out(`${workspace.slug}: ${workspace.credits} credits`);
  });

const teamAdd: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const member = await addTeamMember(db, positional(args, 2, "SLUG"), positional(args, 3, "NAME"));
    if (args.json) io.out(JSON.stringify(member));
    else io.out(`added ${member.name} to the team of ${member.workspace}`);
  });

const teamList: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = positional(args, 2, "SLUG");
    const members = await listTeamMembers(db, slug);
    if (args.json) io.out(JSON.stringify({ workspace: slug, members }));
    else for (const name of members) io.out(name);
  });

/** `group action` (or a lone verb) -> handler. */
export const COMMANDS: Record<string, Command> = {
  serve,
  migrate: migrateCommand,
  "workspaces create": workspacesCreate,
  "workspaces list": workspacesList,
  "keys create": keysCreate,
  "keys list": keysList,
  "keys revoke": keysRevoke,
  "credits set": credits("set"),
  "credits add": credits("add"),
  "credits show": creditsShow,
  "team add": teamAdd,
  "team list": teamList,
  ...MEMORY_COMMANDS,
  ...ADMIN_COMMANDS,
  ...BACKUP_COMMANDS,
  ...DOCTOR_COMMANDS,
  ...EMBEDDINGS_COMMANDS,
  ...CAPTURE_MODEL_COMMANDS,
};

export function findCommand(positionals: string[]): Command | undefined {
  const [first, second] = positionals;
  if (first === undefined) return undefined;
  // Typed by the user: "constructor" or "toString" is no command.
  const command = (name: string): Command | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);
  return command(first) ?? (second === undefined ? undefined : command(`${first} ${second}`));
}
