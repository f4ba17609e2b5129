import { createReadStream, existsSync } from "node:fs";
import cliProgress from "cli-progress";
import { findWorkspace } from "../auth/workspaces";
import { refreshStatistics } from "../db/maintenance";
import { exportFacts, forgetEndUser, setPinned } from "../memory/admin";
import { UsageError } from "./args";
import { positional, requireFlag, withDb, type Command } from "./shared";

const pin =
  (pinned: boolean): Command =>
  (args, config, io) =>
    withDb(config, async (db) => {
      const result = await setPinned(db, positional(args, 2, "FACT_ID"), pinned);
      if (args.json) io.out(JSON.stringify(result));
      else io.out(`${pinned ? "pinned" : "unpinned"} ${result.fact_id}`);
    });

const factsImport: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const file = positional(args, 2, "FILE.jsonl");
    if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
    const workspace = await findWorkspace(db, requireFlag(args, "workspace"));
    // The lines are counted first only for the progress bar, shown on a terminal.
    const totalLines = process.stderr.isTTY ? await countLines(file) : 0;
    const bar = process.stderr.isTTY
      ? new cliProgress.SingleBar({ format: "importing [{bar}] {value}/{total} lines | {eta_formatted} left", stream: process.stderr })
      : undefined;
    bar?.start(totalLines, 0);
    // The capture rules load only for the commands that capture: the others start without them.
    const { importFacts } = await import("../capture/import");
    const result = await importFacts(db, workspace.id, readLines(file), (p) => bar?.update(p.lines));
    bar?.update(result.lines);
    bar?.stop();
    // A bulk load changes the facts table's shape: give the planner statistics of what is there now.
    await refreshStatistics(db, ["facts", "end_users", "fact_sequences"]);
    // And the search index's snapshot, so the first search after it reads one row.
    const { snapshotWorkspace } = await import("../memory/index/registry");
    if (process.stderr.isTTY && result.created > 0) process.stderr.write("storing the search index snapshot…\n");
    const snapshot = result.created > 0 ? await snapshotWorkspace(db, workspace.id) : null;
    for (const r of result.rejected) process.stderr.write(`line ${r.line}: ${r.reason} (skipped)\n`);
    const summary = {
      lines: result.lines,
      created: result.created,
      superseded: result.superseded,
      skipped: result.skipped,
      rejected: result.rejected.length,
    };
    if (args.json) io.out(JSON.stringify(summary));
    else {
      io.out(
        `imported ${file} into ${workspace.slug}: ${summary.created} created, ${summary.superseded} superseded, ` +
          `${summary.skipped} duplicates skipped, ${summary.rejected} bad lines rejected` +
          (snapshot?.written === true ? `; search index snapshot stored (${snapshot.facts} facts)` : ""),
      );
    }
  });

async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const _ of readLines(file)) n += 1;
  return n;
}

/**
 * The lines of a text file (LF or CRLF), read as they are consumed. Not `readline`: its lines
 * are events, and those emitted before its iterator is first awaited (while the capture rules
 * load, say) are lost; a stream's own iterator is pulled, so nothing is read ahead of the loop.
 */
async function* readLines(file: string): AsyncGenerator<string> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(file)) {
    const bytes = rest.length === 0 ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
    let start = 0;
    // Each line is decoded on its own (a newline byte is never inside a UTF-8 character): a line of
    // Latin-1 text is then a one-byte-a-character string, where a 64 KiB chunk decoded whole is two
    // bytes a character as soon as any of its lines holds a curly quote or an emoji, and capture's
    // regexes and string work run up to a third slower on such strings.
    for (let end = bytes.indexOf(NEWLINE, start); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
      yield withoutCr(bytes.toString("utf8", start, end));
      start = end + 1;
    }
    rest = bytes.subarray(start);
  }
  if (rest.length > 0) yield withoutCr(rest.toString("utf8"));
}

const NEWLINE = 0x0a;

const withoutCr = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line);

const factsExport: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, requireFlag(args, "workspace"));
    for await (const fact of exportFacts(db, workspace.id)) io.out(JSON.stringify(fact));
  });

const factsReclaim: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, requireFlag(args, "workspace"));
    const dryRun = args.dryRun;
    const { reclaimFacts } = await import("../capture/reclaim");
    const report = await reclaimFacts(db, workspace.id, { dryRun });
    if (args.json) io.out(JSON.stringify({ ...report, dry_run: dryRun }));
    else {
      io.out(
        `${dryRun ? "would re-evaluate" : "re-evaluated"} ${report.facts} facts of ${workspace.slug}: ${report.restored} wrongly superseded facts ` +
          `${dryRun ? "to restore" : "restored"}, ${report.rekeyed} claims re-keyed, ${report.keptAsDuplicates} left superseded as duplicates of live facts`,
      );
    }
  });

const endUsersForget: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const workspace = await findWorkspace(db, positional(args, 2, "SLUG"));
    const receipt = await db.transaction((tx) => forgetEndUser(tx, workspace, positional(args, 3, "USER_ID")));
    if (args.json) io.out(JSON.stringify(receipt));
    else {
      io.out(
        `forgot end user ${receipt.end_user_id} in ${receipt.workspace}: ${receipt.facts_deleted} facts, ` +
          `${receipt.answers_deleted} answers and ${receipt.conversations_deleted} conversations deleted` +
          `${receipt.end_user_deleted ? ", end user record deleted" : ""}`,
      );
    }
  });

export const MEMORY_COMMANDS: Record<string, Command> = {
  "facts pin": pin(true),
  "facts unpin": pin(false),
  "facts import": factsImport,
  "facts export": factsExport,
  "facts reclaim": factsReclaim,
  "end-users forget": endUsersForget,
};
