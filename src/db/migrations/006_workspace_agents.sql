-- Agents become a per-workspace worker configuration: a display name, instructions the workspace
-- writes (placed after the memory block in the system prompt), provider and model, whether the
-- agent may write memory (its remember tool), and its output budget. `main` exists in every
-- workspace. Answers keep the slug of the agent that ran them as history, so deleting an agent
-- leaves its answers intact (the foreign key to the old global table goes).
ALTER TABLE answers DROP CONSTRAINT answers_agent_slug_fkey;
DROP TABLE agents;

CREATE TABLE agents (
  workspace_id      text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  slug              text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  display_name      text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  instructions      text NOT NULL DEFAULT '' CHECK (length(instructions) <= 8000),
  -- `auto` = anthropic when an API key is configured, else the offline local provider
  provider          text NOT NULL DEFAULT 'auto' CHECK (provider IN ('auto', 'anthropic', 'local')),
  model             text CHECK (model IS NULL OR length(model) BETWEEN 1 AND 200),
  can_write_memory  boolean NOT NULL DEFAULT true,
  max_output_tokens integer NOT NULL DEFAULT 1024 CHECK (max_output_tokens BETWEEN 1 AND 64000),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, slug)
);

INSERT INTO agents (workspace_id, slug, display_name) SELECT id, 'main', 'Main' FROM workspaces;
