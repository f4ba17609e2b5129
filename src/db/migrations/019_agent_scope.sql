-- An agent's own memory. A fact taught with scope "agent" belongs to that agent (`agent_slug`):
-- only calls acting as the agent see it. NULL is a workspace fact, seen by every agent. Duplicates
-- and supersession stay within one scope, so a private note never hides or replaces a workspace
-- fact and a workspace fact never tells its writer that a private one existed.
ALTER TABLE facts ADD COLUMN agent_slug text;
DROP INDEX facts_live_duplicate;
CREATE UNIQUE INDEX facts_live_duplicate ON facts (workspace_id, coalesce(end_user_id, ''), coalesce(agent_slug, ''), md5(normalized))
  WHERE superseded_by IS NULL;
CREATE INDEX facts_live_agent ON facts (workspace_id, agent_slug, recorded_at DESC)
  WHERE superseded_by IS NULL AND agent_slug IS NOT NULL;

-- A key bound to an agent acts as that agent on every call, and may not name another.
ALTER TABLE api_keys ADD COLUMN agent_slug text;

-- Whether what the answers worker learns while running this agent (the statements of the user's
-- messages, its remember tool) is the workspace's or the agent's own.
ALTER TABLE agents ADD COLUMN memory_scope text NOT NULL DEFAULT 'workspace' CHECK (memory_scope IN ('workspace', 'agent'));
