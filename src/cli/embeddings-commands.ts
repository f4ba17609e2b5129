/**
 * `memoryd embeddings backfill`: every live fact without a vector of the configured model gets
 * one now, in the foreground (src/embeddings/backfill.ts), instead of a batch at a time behind a
 * running server.
 */
import cliProgress from "cli-progress";
import { findWorkspace } from "../auth/workspaces";
import { BackfillError, backfillEmbeddings } from "../embeddings/backfill";
import { clientFromConfig } from "../embeddings/setup";
import { ApiError } from "../errors";
import { createLogger } from "../log";
import { UsageError } from "./args";
import { withDb, type Command } from "./shared";

export const EMBEDDINGS_NOT_CONFIGURED =
  "embeddings are not configured: set MEMORYD_EMBEDDINGS_URL and MEMORYD_EMBEDDINGS_MODEL " +
  "(for Ollama: http://127.0.0.1:11434/v1 and nomic-embed-text), the same as for memoryd serve";

/** The request timeout of a batch: the background worker's (a search's timeout is too short for one). */
const BATCH_TIMEOUT_FLOOR_MS = 30_000;

const count = (n: number): string => n.toLocaleString("en-US");

const embeddingsBackfill: Command = async (args, config, io) => {
  const client = clientFromConfig(config);
  if (client === null) throw new UsageError(EMBEDDINGS_NOT_CONFIGURED);
  const slug = args.flags.workspace;
  if (slug === "") throw new UsageError("missing --workspace");
  await withDb(config, async (db) => {
    const workspace = slug === undefined ? null : await findWorkspace(db, slug);
    const bar = process.stderr.isTTY
      ? new cliProgress.SingleBar({ format: "embedding [{bar}] {value}/{total} facts | {eta_formatted} left", stream: process.stderr })
      : undefined;
    let report;
    try {
      report = await backfillEmbeddings(db, client, createLogger(config.logLevel), {
        ...(workspace !== null && { workspaceId: workspace.id }),
        batch: config.embeddingsBatch,
        timeoutMs: Math.max(config.embeddingsTimeoutMs, BATCH_TIMEOUT_FLOOR_MS),
        onStart: (waiting) => bar?.start(waiting, 0),
        // Facts taught while it runs are embedded too: the total grows with them.
        onProgress: (done) => {
          if (bar !== undefined && done > bar.getTotal()) bar.setTotal(done);
          bar?.update(done);
        },
      });
    } catch (error) {
      if (error instanceof BackfillError) {
        const r = error.report;
        throw new Error(
          `could not embed facts: ${error.message}; ${count(r.embedded)} embedded before it failed, ${count(r.waiting_after)} still waiting ` +
            "(run the backfill again, or a server with the same settings embeds them once the endpoint answers)",
        );
      }
      throw error;
    } finally {
      bar?.stop();
    }
    const where = workspace === null ? "every workspace" : workspace.slug;
    if (args.json) io.out(JSON.stringify({ workspace: workspace?.slug ?? null, ...report }));
    else {
      const dimensions = report.dimensions === null ? "" : ` (${report.dimensions} dimensions)`;
      io.out(
        `embedded ${count(report.embedded)} facts of ${where} with ${report.model}${dimensions}; ` +
          `${count(report.refused)} refused by the endpoint (found by their words only), ${count(report.waiting_after)} still waiting`,
      );
      if (report.waiting_after > 0) io.out("the facts still waiting were taught while it ran, or are being embedded by a server: run it again to finish them");
    }
  }).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === "data_dir_locked") {
      throw new ApiError(
        "data_dir_locked",
        `${error.message}. A server started with MEMORYD_EMBEDDINGS_URL set embeds the facts itself, ` +
          "in the background (memoryd doctor --url shows how far it is)",
      );
    }
    throw error;
  });
};

export const EMBEDDINGS_COMMANDS: Record<string, Command> = {
  "embeddings backfill": embeddingsBackfill,
};
