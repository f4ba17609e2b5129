/**
 * `memoryd capture-model set|off|status SLUG` and `undo DECISION_ID`: a workspace's capture model
 * from the command line, the same service functions as the admin API and the settings app.
 */
import { captureModelStatus, clearCaptureModel, setCaptureModel } from "../capture/model/settings";
import { undoDecision } from "../capture/model/undo";
import { createModelProviders } from "../models/registry";
import type { CaptureModelStatus } from "../schema/capture-model";
import { CaptureModelRequest } from "../schema/capture-model";
import { parseInput } from "../schema/validate";
import { positional, withDb, type Command } from "./shared";

function describe(status: CaptureModelStatus, slug: string): string {
  if (!status.enabled) return `${slug}: no capture model (capture is model-free only)`;
  const { jobs } = status;
  return [
    `${slug}: capture model ${status.provider}/${status.model}`,
    `  tokens today ${status.tokens_today} of ${status.daily_token_budget}${status.budget_spent ? " (spent: new work is refused until 00:00 UTC)" : ""}` +
      `; calls today ${status.calls_today}`,
    `  jobs: ${jobs.queued} queued, ${jobs.running} running, ${jobs.done} done, ${jobs.failed} failed, ${jobs.refused} refused`,
    ...(status.last_error === null ? [] : [`  last error: ${status.last_error}`]),
  ].join("\n");
}

const captureModelSet: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = positional(args, 2, "SLUG");
    const budget = args.flags["daily-tokens"];
    const request = parseInput(
      CaptureModelRequest,
      {
        provider: args.flags.provider,
        ...(args.flags.model !== undefined && { model: args.flags.model }),
        ...(budget !== undefined && { daily_token_budget: /^\d+$/.test(budget) ? Number(budget) : budget }),
      },
      "arguments",
    );
    const status = await setCaptureModel(db, slug, request, createModelProviders(config));
    io.out(args.json ? JSON.stringify(status) : describe(status, slug));
  });

const captureModelOff: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = positional(args, 2, "SLUG");
    const status = await clearCaptureModel(db, slug, createModelProviders(config));
    io.out(args.json ? JSON.stringify(status) : describe(status, slug));
  });

const captureModelShow: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const slug = positional(args, 2, "SLUG");
    const status = await captureModelStatus(db, slug, createModelProviders(config));
    io.out(args.json ? JSON.stringify(status) : describe(status, slug));
  });

const captureModelUndo: Command = (args, config, io) =>
  withDb(config, async (db) => {
    const result = await undoDecision(db, positional(args, 2, "DECISION_ID"));
    io.out(args.json ? JSON.stringify(result) : result.restored !== null ? `undone: ${result.restored} is live again` : "undone: the updates link is gone");
  });

export const CAPTURE_MODEL_COMMANDS: Record<string, Command> = {
  "capture-model set": captureModelSet,
  "capture-model off": captureModelOff,
  "capture-model status": captureModelShow,
  "capture-model undo": captureModelUndo,
};
