/**
 * A workspace's capture model (opt-in): which provider and model, the tokens it may use a day, and
 * what it used. SQL per statement; the service functions the admin API and the CLI share.
 */
import { findWorkspace } from "../../auth/workspaces";
import type { Queryable } from "../../db/types";
import { ApiError } from "../../errors";
import type { ModelProviders } from "../../models/registry";
import { ModelError } from "../../models/types";
import type { CaptureModelRequest, CaptureModelStatus, CaptureProvider } from "../../schema/capture-model";
import { countCaptureJobs } from "./queue";

export const DEFAULT_DAILY_TOKENS = 200_000;

/** The capture model a workspace set, as the worker reads it. */
export interface CaptureSetting {
  provider: CaptureProvider;
  /** null: the provider's default model on this server. */
  model: string | null;
  dailyTokens: number;
}

export async function captureSettingOf(db: Queryable, workspaceId: string): Promise<CaptureSetting | null> {
  const [row] = await db.sql<{ capture_provider: CaptureProvider | null; capture_model: string | null; capture_daily_tokens: number }>`
    SELECT capture_provider, capture_model, capture_daily_tokens FROM workspaces WHERE id = ${workspaceId}`;
  if (!row || row.capture_provider === null) return null;
  return { provider: row.capture_provider, model: row.capture_model, dailyTokens: Number(row.capture_daily_tokens) };
}

/** The provider's default model on this server, or null when this server lacks the provider. */
function defaultModelOf(models: ModelProviders, provider: CaptureProvider): string | null {
  try {
    return models.resolve(provider).defaultModel;
  } catch (error) {
    if (error instanceof ModelError) return null;
    throw error;
  }
}

/**
 * Turns the capture model on (or changes it); facts taught from now on are queued for it. A
 * provider this server lacks is refused (422 naming `provider`): the queue would only fill.
 */
export async function setCaptureModel(db: Queryable, slug: string, request: CaptureModelRequest, models: ModelProviders): Promise<CaptureModelStatus> {
  const workspace = await findWorkspace(db, slug);
  try {
    models.resolve(request.provider);
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    throw new ApiError("validation_error", error.message, { fields: [{ path: "provider", reason: error.message }] });
  }
  await db.sql`
    UPDATE workspaces SET capture_provider = ${request.provider}, capture_model = ${request.model ?? null},
           capture_daily_tokens = ${request.daily_token_budget ?? DEFAULT_DAILY_TOKENS}
     WHERE id = ${workspace.id}`;
  return captureModelStatus(db, slug, models);
}

/**
 * Turns it off: nothing new is queued, and jobs still waiting end as `failed` ("turned off"), so
 * their facts stay as the model-free path left them.
 */
export async function clearCaptureModel(db: Queryable, slug: string, models: ModelProviders): Promise<CaptureModelStatus> {
  const workspace = await findWorkspace(db, slug);
  await db.sql`UPDATE workspaces SET capture_provider = NULL, capture_model = NULL WHERE id = ${workspace.id}`;
  await db.sql`
    UPDATE capture_jobs SET state = 'failed', finished_at = now(), last_error = 'the capture model was turned off'
     WHERE workspace_id = ${workspace.id} AND state = 'queued'`;
  return captureModelStatus(db, slug, models);
}

/** Today's usage (UTC day) of a workspace's capture model. */
export async function usageToday(db: Queryable, workspaceId: string): Promise<{ tokens: number; calls: number }> {
  const [row] = await db.sql<{ tokens: number; calls: number }>`
    SELECT (input_tokens + output_tokens)::float8 AS tokens, calls FROM capture_usage
     WHERE workspace_id = ${workspaceId} AND day = (now() AT TIME ZONE 'UTC')::date`;
  return { tokens: Number(row?.tokens ?? 0), calls: Number(row?.calls ?? 0) };
}

/** Counts one model call's tokens against today's budget. */
export async function recordUsage(db: Queryable, workspaceId: string, usage: { input_tokens: number; output_tokens: number }): Promise<void> {
  await db.sql`
    INSERT INTO capture_usage (workspace_id, day, input_tokens, output_tokens, calls)
    VALUES (${workspaceId}, (now() AT TIME ZONE 'UTC')::date, ${usage.input_tokens}, ${usage.output_tokens}, 1)
    ON CONFLICT (workspace_id, day) DO UPDATE
       SET input_tokens = capture_usage.input_tokens + excluded.input_tokens,
           output_tokens = capture_usage.output_tokens + excluded.output_tokens,
           calls = capture_usage.calls + 1`;
}

/** Counts jobs the spent budget refused today. */
export async function recordRefusals(db: Queryable, workspaceId: string, jobs: number): Promise<void> {
  await db.sql`
    INSERT INTO capture_usage (workspace_id, day, refused) VALUES (${workspaceId}, (now() AT TIME ZONE 'UTC')::date, ${jobs})
    ON CONFLICT (workspace_id, day) DO UPDATE SET refused = capture_usage.refused + excluded.refused`;
}

export async function captureModelStatus(db: Queryable, slug: string, models: ModelProviders): Promise<CaptureModelStatus> {
  const workspace = await findWorkspace(db, slug);
  const [row] = await db.sql<{ capture_provider: CaptureProvider | null; capture_model: string | null; capture_daily_tokens: number }>`
    SELECT capture_provider, capture_model, capture_daily_tokens FROM workspaces WHERE id = ${workspace.id}`;
  const today = await usageToday(db, workspace.id);
  const [failure] = await db.sql<{ last_error: string | null }>`
    SELECT last_error FROM capture_jobs WHERE workspace_id = ${workspace.id} AND last_error IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1`;
  const provider = row?.capture_provider ?? null;
  const budget = Number(row?.capture_daily_tokens ?? DEFAULT_DAILY_TOKENS);
  return {
    enabled: provider !== null,
    provider,
    model: provider === null ? null : (row?.capture_model ?? defaultModelOf(models, provider)),
    daily_token_budget: budget,
    tokens_today: today.tokens,
    calls_today: today.calls,
    budget_spent: today.tokens >= budget,
    jobs: await countCaptureJobs(db, workspace.id),
    last_error: failure?.last_error ?? null,
  };
}
