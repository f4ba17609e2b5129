-- The audit log of bulk forgets (src/memory/forget.ts): what the operator asked to forget, what
-- its preview counted, and what was deleted, kept after the facts are gone. The filter may name an
-- end user or a subject; forgetting an end user deletes the runs that name them.
CREATE TABLE forget_runs (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  filter       jsonb NOT NULL,
  previewed    integer NOT NULL,
  deleted      integer NOT NULL DEFAULT 0,
  restored     integer NOT NULL DEFAULT 0,
  status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX forget_runs_workspace ON forget_runs (workspace_id, started_at DESC);
