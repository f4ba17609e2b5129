-- Workspaces, their credit balance and team; API keys; the shared rate-limit counters.

CREATE TABLE workspaces (
  id         text PRIMARY KEY,
  slug       text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  credits    bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE team_members (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  -- lower-cased name: how capture recognises the person in a fact
  name_key     text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, name_key)
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  prefix       text NOT NULL UNIQUE,
  -- SHA-256 of the secret, hex; the secret itself is never stored
  secret_hash  text NOT NULL UNIQUE,
  scopes       text[] NOT NULL CHECK (
    cardinality(scopes) > 0
    AND scopes <@ ARRAY['memory.read', 'memory.write', 'answers.write']::text[]
  ),
  audience     text NOT NULL CHECK (audience IN ('internal', 'external')),
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

-- Fixed 60 s windows; a bucket is `key:<key id>` or `addr:<client address>`. The row lock taken by
-- INSERT .. ON CONFLICT DO UPDATE serialises concurrent hits, so the count is exact across
-- every instance sharing the database.
CREATE TABLE rate_limit_hits (
  bucket       text NOT NULL,
  window_start timestamptz NOT NULL,
  hits         integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limit_hits_window ON rate_limit_hits (window_start);
