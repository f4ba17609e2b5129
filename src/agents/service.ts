import { ApiError, notFound } from "../errors";
import type { Db } from "../db/types";
import type { Agent, CreateAgentInput, UpdateAgentInput } from "../schema/agents";
import { deleteAgentRow, findAgent, insertAgent, listAgentRows, updateAgentRow, type AgentRow } from "./store";

/** The agent every workspace has, which can be edited but not deleted. */
export const MAIN_AGENT = "main";

function toAgent(row: AgentRow): Agent {
  return {
    slug: row.slug,
    display_name: row.display_name,
    instructions: row.instructions,
    provider: row.provider,
    model: row.model,
    can_write_memory: row.can_write_memory,
    max_output_tokens: row.max_output_tokens,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function listAgents(db: Db, workspaceId: string): Promise<Agent[]> {
  return (await listAgentRows(db, workspaceId)).map(toAgent);
}

export async function getAgent(db: Db, workspaceId: string, slug: string): Promise<Agent> {
  const row = await findAgent(db, workspaceId, slug);
  if (!row) throw notFound(`agent "${slug}"`);
  return toAgent(row);
}

export async function createAgent(db: Db, workspaceId: string, input: CreateAgentInput): Promise<Agent> {
  const row = await insertAgent(db, workspaceId, input);
  if (!row) throw new ApiError("already_exists", `agent "${input.slug}" already exists in this workspace`);
  return toAgent(row);
}

export async function updateAgent(db: Db, workspaceId: string, slug: string, input: UpdateAgentInput): Promise<Agent> {
  const row = await updateAgentRow(db, workspaceId, slug, input);
  if (!row) throw notFound(`agent "${slug}"`);
  return toAgent(row);
}

/** Deletes an agent; its answers keep its slug as history. `main` cannot be deleted. */
export async function deleteAgent(db: Db, workspaceId: string, slug: string): Promise<void> {
  if (slug === MAIN_AGENT) {
    throw new ApiError("validation_error", `the ${MAIN_AGENT} agent cannot be deleted; edit it instead`, {
      fields: [{ path: "slug", reason: "main always exists" }],
    });
  }
  if (!(await deleteAgentRow(db, workspaceId, slug))) throw notFound(`agent "${slug}"`);
}
