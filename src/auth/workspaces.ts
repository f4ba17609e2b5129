import { ApiError, notFound } from "../errors";
import { sortableId } from "../ids";
import type { Queryable } from "../db/types";

export interface Workspace {
  id: string;
  slug: string;
  credits: number;
}

export async function createWorkspace(db: Queryable, slug: string, credits: number): Promise<Workspace> {
  // The workspace and its `main` agent, in one statement.
  const rows = await db.sql<Workspace>`
    WITH w AS (
      INSERT INTO workspaces (id, slug, credits) VALUES (${sortableId("ws")}, ${slug}, ${credits})
      ON CONFLICT (slug) DO NOTHING
      RETURNING id, slug, credits
    ), main AS (
      INSERT INTO agents (workspace_id, slug, display_name) SELECT id, 'main', 'Main' FROM w
    )
    SELECT id, slug, credits FROM w`;
  const created = rows[0];
  if (!created) throw new ApiError("already_exists", `workspace "${slug}" already exists`);
  return created;
}

export async function findWorkspace(db: Queryable, slug: string): Promise<Workspace> {
  const rows = await db.sql<Workspace>`SELECT id, slug, credits FROM workspaces WHERE slug = ${slug}`;
  const found = rows[0];
  if (!found) throw notFound(`workspace "${slug}"`);
  return found;
}

/** Every workspace with its credits and live facts, by slug. */
export async function listWorkspaces(db: Queryable): Promise<(Workspace & { live_facts: number })[]> {
  return db.sql<Workspace & { live_facts: number }>`
    SELECT w.id, w.slug, w.credits,
           (SELECT count(*)::int FROM facts f WHERE f.workspace_id = w.id AND f.superseded_by IS NULL) AS live_facts
      FROM workspaces w ORDER BY w.slug`;
}

export async function countWorkspaces(db: Queryable): Promise<number> {
  const rows = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM workspaces`;
  return rows[0]?.n ?? 0;
}

/** `set` replaces the balance, `add` adds to it (a negative amount may not take it below zero). */
export async function changeCredits(db: Queryable, slug: string, mode: "set" | "add", amount: number): Promise<Workspace> {
  const rows = await db.sql<Workspace>`
    UPDATE workspaces
       SET credits = CASE WHEN ${mode} = 'set' THEN ${amount}::bigint ELSE credits + ${amount}::bigint END
     WHERE slug = ${slug}
       AND (CASE WHEN ${mode} = 'set' THEN ${amount}::bigint ELSE credits + ${amount}::bigint END) >= 0
    RETURNING id, slug, credits`;
  const updated = rows[0];
  if (updated) return updated;
  await findWorkspace(db, slug);
  throw new ApiError("validation_error", "credits cannot go below zero");
}

export async function listTeamMembers(db: Queryable, slug: string): Promise<string[]> {
  const workspace = await findWorkspace(db, slug);
  const rows = await db.sql<{ name: string }>`SELECT name FROM team_members WHERE workspace_id = ${workspace.id} ORDER BY name_key`;
  return rows.map((r) => r.name);
}

export async function removeTeamMember(db: Queryable, slug: string, name: string): Promise<void> {
  const workspace = await findWorkspace(db, slug);
  const rows = await db.sql<{ name: string }>`
    DELETE FROM team_members WHERE workspace_id = ${workspace.id} AND name_key = ${name.trim().replace(/\s+/g, " ").toLowerCase()}
    RETURNING name`;
  if (rows.length === 0) throw notFound(`team member "${name}" of workspace "${slug}"`);
}

/** A workspace with what an operator checks first: credits, live facts, keys, end users, answers. */
export async function workspaceSummary(
  db: Queryable,
  slug: string,
): Promise<Workspace & Record<"live_facts" | "active_keys" | "end_users" | "answers", number>> {
  const workspace = await findWorkspace(db, slug);
  const [counts] = await db.sql<Record<"live_facts" | "active_keys" | "end_users" | "answers", number>>`
    SELECT (SELECT count(*)::int FROM facts WHERE workspace_id = ${workspace.id} AND superseded_by IS NULL) AS live_facts,
           (SELECT count(*)::int FROM api_keys WHERE workspace_id = ${workspace.id} AND revoked_at IS NULL
               AND (expires_at IS NULL OR expires_at > now())) AS active_keys,
           (SELECT count(*)::int FROM end_users WHERE workspace_id = ${workspace.id}) AS end_users,
           (SELECT count(*)::int FROM answers WHERE workspace_id = ${workspace.id}) AS answers`;
  return {
    ...workspace,
    live_facts: counts?.live_facts ?? 0,
    active_keys: counts?.active_keys ?? 0,
    end_users: counts?.end_users ?? 0,
    answers: counts?.answers ?? 0,
  };
}

export async function addTeamMember(db: Queryable, slug: string, name: string): Promise<{ workspace: string; name: string }> {
  const workspace = await findWorkspace(db, slug);
  const trimmed = name.trim().replace(/\s+/g, " ");
  if (trimmed === "") throw new ApiError("validation_error", "team member name is empty");
  await db.sql`
    INSERT INTO team_members (workspace_id, name, name_key) VALUES (${workspace.id}, ${trimmed}, ${trimmed.toLowerCase()})
    ON CONFLICT (workspace_id, name_key) DO UPDATE SET name = EXCLUDED.name`;
  return { workspace: slug, name: trimmed };
}
