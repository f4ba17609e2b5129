import { ApiError, notFound } from "../errors";
import type { Db } from "../db/types";
import type { Agent, CreateAgentInput, UpdateAgentInput } from "../schema/agents";
import { agentHoldings, deleteAgentRow, findAgent, insertAgent, listAgentRows, updateAgentRow, type AgentRow } from "./store";

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
    memory_scope: row.memory_scope,
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

/**
 * Deletes an agent; its answers keep its slug as history. `main` cannot be deleted, nor an agent
 * that still has its own facts or keys bound to it (409 agent_in_use): deleting it would strand
 * them, and an agent created later with the slug would inherit them.
 */
export async function deleteAgent(db: Db, workspaceId: string, slug: string): Promise<void> {
  if (slug === MAIN_AGENT) {
    throw new ApiError("validation_error", `the ${MAIN_AGENT} agent cannot be deleted; edit it instead`, {
      fields: [{ path: "slug", reason: "main always exists" }],
    });
  }
  const held = await agentHoldings(db, workspaceId, slug);
  if (held.facts > 0 || held.keys > 0) {
    throw new ApiError(
      "agent_in_use",
      `agent "${slug}" still has ${held.facts} fact(s) of its own and ${held.keys} key(s) bound to it: forget those facts and revoke those keys first`,
      held,
    );
  }
  if (!(await deleteAgentRow(db, workspaceId, slug))) throw notFound(`agent "${slug}"`);
}
