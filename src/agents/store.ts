import { fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { AgentProvider } from "../schema/agents";

export interface AgentRow {
  slug: string;
  display_name: string;
  instructions: string;
  provider: AgentProvider;
  model: string | null;
  can_write_memory: boolean;
  memory_scope: "workspace" | "agent";
  max_output_tokens: number;
  created_at: Date;
  updated_at: Date;
}

const AGENT_COLUMNS = fragment`slug, display_name, instructions, provider, model, can_write_memory, memory_scope, max_output_tokens, created_at, updated_at`;

export async function findAgent(db: Queryable, workspaceId: string, slug: string): Promise<AgentRow | undefined> {
  const rows = await db.sql<AgentRow>`SELECT ${AGENT_COLUMNS} FROM agents WHERE workspace_id = ${workspaceId} AND slug = ${slug}`;
  return rows[0];
}

export async function listAgentRows(db: Queryable, workspaceId: string): Promise<AgentRow[]> {
  return db.sql<AgentRow>`SELECT ${AGENT_COLUMNS} FROM agents WHERE workspace_id = ${workspaceId} ORDER BY slug <> 'main', slug`;
}

/** Inserts an agent; undefined when the slug is taken in this workspace. */
export async function insertAgent(db: Queryable, workspaceId: string, agent: Omit<AgentRow, "created_at" | "updated_at">): Promise<AgentRow | undefined> {
  const rows = await db.sql<AgentRow>`
    INSERT INTO agents (workspace_id, slug, display_name, instructions, provider, model, can_write_memory, memory_scope, max_output_tokens)
    VALUES (${workspaceId}, ${agent.slug}, ${agent.display_name}, ${agent.instructions}, ${agent.provider}, ${agent.model},
            ${agent.can_write_memory}, ${agent.memory_scope}, ${agent.max_output_tokens})
    ON CONFLICT (workspace_id, slug) DO NOTHING
    RETURNING ${AGENT_COLUMNS}`;
  return rows[0];
}

/**
 * Applies the given settings; a setting left undefined keeps its value (`coalesce`), except
 * `model`, where null is a value ("the server's default"), so it has its own flag.
 */
export async function updateAgentRow(
  db: Queryable,
  workspaceId: string,
  slug: string,
  changes: Partial<Omit<AgentRow, "slug" | "created_at" | "updated_at">>,
): Promise<AgentRow | undefined> {
  const setModel = changes.model !== undefined;
  const rows = await db.sql<AgentRow>`
    UPDATE agents SET
      display_name = coalesce(${changes.display_name ?? null}, display_name),
      instructions = coalesce(${changes.instructions ?? null}, instructions),
      provider = coalesce(${changes.provider ?? null}, provider),
      model = CASE WHEN ${setModel}::boolean THEN ${changes.model ?? null} ELSE model END,
      can_write_memory = coalesce(${changes.can_write_memory ?? null}::boolean, can_write_memory),
      memory_scope = coalesce(${changes.memory_scope ?? null}, memory_scope),
      max_output_tokens = coalesce(${changes.max_output_tokens ?? null}::integer, max_output_tokens),
      updated_at = now()
     WHERE workspace_id = ${workspaceId} AND slug = ${slug}
    RETURNING ${AGENT_COLUMNS}`;
  return rows[0];
}

/**
 * What still belongs to an agent: its own live facts and the keys bound to it that are not revoked.
 * Trade-off: counted before the delete, not locked with it; a fact or key added in between keeps
 * the agent's slug, and a new agent of that slug would act for it, as the operator who created it means.
 */
export async function agentHoldings(db: Queryable, workspaceId: string, slug: string): Promise<{ facts: number; keys: number }> {
  const [row] = await db.sql<{ facts: number; keys: number }>`
    SELECT (SELECT count(*)::int FROM facts WHERE workspace_id = ${workspaceId} AND agent_slug = ${slug} AND superseded_by IS NULL) AS facts,
           (SELECT count(*)::int FROM api_keys WHERE workspace_id = ${workspaceId} AND agent_slug = ${slug} AND revoked_at IS NULL) AS keys`;
  return row ?? { facts: 0, keys: 0 };
}

export async function deleteAgentRow(db: Queryable, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db.sql<{ slug: string }>`DELETE FROM agents WHERE workspace_id = ${workspaceId} AND slug = ${slug} RETURNING slug`;
  return rows.length > 0;
}
