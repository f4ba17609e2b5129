-- The opt-in capture model (docs/memory.md, "With a capture model"): per workspace, a provider and
-- model of the answers' registry, and the tokens it may spend a day. NULL provider: no model, and
-- nothing is queued for one.
ALTER TABLE workspaces ADD COLUMN capture_provider text CHECK (capture_provider IN ('anthropic', 'openai'));
ALTER TABLE workspaces ADD COLUMN capture_model text;
ALTER TABLE workspaces ADD COLUMN capture_daily_tokens integer NOT NULL DEFAULT 200000 CHECK (capture_daily_tokens >= 0);

-- Work for the model, written in the transaction of the teach that made it (so a stored fact is
-- never without its job, and a crash loses neither). `judge`: facts one call stored, whose changes
-- the model labels; `extract`: a conversation, whose facts the model draws and which replace the
-- statements the model-free path kept verbatim (`fact_ids`). Claimed with FOR UPDATE SKIP LOCKED;
-- a lease that lapses (a dead instance) makes the job claimable again.
CREATE TABLE capture_jobs (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('judge', 'extract')),
  fact_ids      text[] NOT NULL,
  -- extract only: the conversation's messages [{role, content}] and the end user's name.
  messages      jsonb,
  end_user_id   text,
  end_user_name text,
  agent_slug    text,
  observed_at   timestamptz NOT NULL,
  -- queued -> running -> done | failed (gave up) | refused (the day's token budget was spent)
  state         text NOT NULL DEFAULT 'queued',
  attempts      integer NOT NULL DEFAULT 0,
  run_after     timestamptz NOT NULL DEFAULT now(),
  lease_owner   text,
  lease_until   timestamptz,
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX capture_jobs_ready ON capture_jobs (run_after, created_at) WHERE state IN ('queued', 'running');
CREATE INDEX capture_jobs_workspace ON capture_jobs (workspace_id, state);
CREATE INDEX capture_jobs_end_user ON capture_jobs (workspace_id, end_user_id) WHERE end_user_id IS NOT NULL;

-- Every decision of the model memoryd applied or vetoed, with its reason and the batch (one model
-- call) it came from: what Review lists as "by model", what undo marks, what facts explain shows.
CREATE TABLE capture_decisions (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  batch_id     text NOT NULL,
  model        text NOT NULL,
  prompt       text NOT NULL,
  -- replaces | updates | duplicate | extracted
  label        text NOT NULL,
  -- the newer fact (for extracted: the fact drawn from the conversation; null when a gate refused
  -- to store it, and then `proposed_text` says what the model wrote)
  fact_id      text,
  proposed_text text,
  -- the older fact (for extracted: the verbatim statement it replaced; null when it replaced none)
  target_id    text,
  reason       text NOT NULL,
  -- null: applied; else the gate that refused it
  vetoed_by    text,
  end_user_id  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  undone_at    timestamptz
);
CREATE INDEX capture_decisions_workspace ON capture_decisions (workspace_id, created_at DESC);
CREATE INDEX capture_decisions_fact ON capture_decisions (fact_id);
CREATE INDEX capture_decisions_target ON capture_decisions (target_id) WHERE target_id IS NOT NULL;

-- Tokens each workspace's capture model used, per UTC day: the budget is read from here.
CREATE TABLE capture_usage (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day           date NOT NULL,
  input_tokens  bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  calls         integer NOT NULL DEFAULT 0,
  refused       integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day)
);
