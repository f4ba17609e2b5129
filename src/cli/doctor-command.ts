/**
 * `memoryd doctor`: an operator's first look. It reads the database itself when it can; when a
 * server holds the embedded data directory it says who, and with `--url` asks that server
 * (`GET /v1/admin/status`, admin token in MEMORYD_ADMIN_TOKEN), which also knows its index memory
 * and reports its own embeddings settings.
 */
import { embeddingsSetting, serviceStatus, type EmbeddingsStatus, type ServiceStatus } from "../admin/status";
import type { Config } from "../config";
import { dataDirHolder, type Owner } from "../db/data-dir-lock";
import { openDatabase } from "../db/open";
import { UsageError } from "./args";
import type { Command } from "./shared";

interface DoctorReport {
  source: string;
  data_dir_lock: { held_by: Owner | null } | null;
  status: ServiceStatus | null;
}

const doctor: Command = async (args, config, io) => {
  const report = await diagnose(config, args.flags.url);
  if (args.json) io.out(JSON.stringify(report));
  else for (const line of describe(report, config)) io.out(line);
};

async function diagnose(config: Config, url: string | undefined): Promise<DoctorReport> {
  const embedded = config.databaseUrl === undefined;
  const lock = embedded ? { held_by: dataDirHolder(config.dataDir) } : null;
  if (url !== undefined) return { source: url, data_dir_lock: lock, status: await statusFromServer(url, config.adminToken) };
  if (lock?.held_by) return { source: config.dataDir, data_dir_lock: lock, status: null };
  const db = await openDatabase(config);
  try {
    return {
      source: embedded ? config.dataDir : "DATABASE_URL",
      data_dir_lock: lock,
      status: await serviceStatus(db, null, embeddingsSetting(config)),
    };
  } finally {
    await db.close();
  }
}

async function statusFromServer(url: string, adminToken: string | undefined): Promise<ServiceStatus> {
  if (adminToken === undefined) throw new UsageError("asking a running server needs its admin token in MEMORYD_ADMIN_TOKEN");
  if (!URL.canParse(url)) throw new UsageError(`--url "${url}" is not a URL`);
  const target = new URL("/v1/admin/status", url);
  const res = await fetch(target, { headers: { authorization: `Bearer ${adminToken}` } }).catch((error: unknown) => {
    throw new UsageError(`could not reach ${target.origin}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const body = (await res.json().catch(() => null)) as { data?: ServiceStatus; error?: { message?: string } } | null;
  if (res.status !== 200 || body?.data === undefined)
    throw new UsageError(`${target.origin} answered HTTP ${res.status}: ${body?.error?.message ?? "no status"}`);
  return body.data;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const count = (n: number): string => n.toLocaleString("en-US");

function describeEmbeddings(e: EmbeddingsStatus | null | undefined): string {
  // A server of an older version reports no embeddings part at all.
  if (e === undefined) return "embeddings: not reported by this server";
  if (e === null) return "embeddings: not configured (MEMORYD_EMBEDDINGS_URL unset): search ranks by words and the shipped lexicon only";
  const dimensions = e.dimensions === null ? "dimensions not known until a fact is embedded" : `${e.dimensions} dimensions`;
  const others = e.other_models > 0 ? `; ${count(e.other_models)} vectors of other models, dropped by the server` : "";
  return (
    `embeddings: ${e.model} at ${e.url}, ${dimensions}; ${count(e.with_vectors)} of ${count(e.live_facts)} live facts have vectors ` +
    `(${count(e.waiting)} waiting, ${count(e.refused)} refused)${others}`
  );
}

function describeCaptureModel(c: ServiceStatus["capture_model"] | undefined): string {
  if (c === undefined || c === null) return "capture model: not reported (a server of an older version, or a database not migrated)";
  if (c.workspaces === 0 && c.queued + c.running === 0) return "capture model: no workspace has one (capture is model-free)";
  const trouble =
    c.failed_last_day + c.refused_last_day > 0 ? `; in the last day ${count(c.failed_last_day)} gave up, ${count(c.refused_last_day)} refused by a budget` : "";
  return `capture model: ${count(c.workspaces)} workspaces; ${count(c.queued)} jobs queued, ${count(c.running)} running${trouble}`;
}

function describe(report: DoctorReport, config: Config): string[] {
  const lines: string[] = [];
  const holder = report.data_dir_lock?.held_by;
  if (report.data_dir_lock !== null) {
    lines.push(
      holder
        ? `data directory ${config.dataDir}: in use by memoryd pid ${holder.pid} on ${holder.hostname} since ${holder.started_at}`
        : `data directory ${config.dataDir}: not in use (no server holds its lock)`,
    );
  }
  const status = report.status;
  if (status === null) {
    lines.push("the server holds the database: pass --url http://HOST:PORT (with MEMORYD_ADMIN_TOKEN) to ask it, or stop it");
    return lines;
  }
  lines.push(`database: ${status.database.kind}, ${status.database.version}`);
  lines.push(
    status.migrations.pending.length === 0
      ? `migrations: ${status.migrations.applied} applied, up to date (version ${status.migrations.latest})`
      : `migrations: ${status.migrations.applied} applied, pending ${status.migrations.pending.join(", ")} (memoryd migrate, or the next serve, applies them)`,
  );
  lines.push(
    `answers: ${status.answers.queued} queued, ${status.answers.in_progress} in progress` +
      (status.answers.oldest_queued_seconds === null ? "" : `, oldest queued ${status.answers.oldest_queued_seconds} s ago`),
  );
  lines.push(`workspaces: ${status.workspaces}; live facts: ${status.live_facts}`);
  lines.push(describeEmbeddings(status.embeddings));
  lines.push(describeCaptureModel(status.capture_model));
  lines.push(
    status.index === null
      ? `search indexes: built by each serving process (budget ${config.indexMemoryMb} MB); ask a server with --url for what it holds`
      : `search indexes: ${status.index.workspaces} workspaces, ${status.index.facts} facts, ${mb(status.index.bytes)} of ${mb(status.index.budget_bytes)}`,
  );
  return lines;
}

export const DOCTOR_COMMANDS: Record<string, Command> = { doctor };
