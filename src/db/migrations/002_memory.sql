-- The brain: facts, the end users they may be about, and term statistics for ranking.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE end_users (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id           text NOT NULL,
  name         text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE facts (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  text          text NOT NULL,
  -- duplicate key: case- and whitespace-folded text (the original is kept byte-for-byte in `text`)
  normalized    text NOT NULL,
  kind          text NOT NULL,
  origin        text NOT NULL CHECK (origin IN ('user_stated', 'ingested', 'agent_inferred', 'agent_action', 'system')),
  subject       text NOT NULL,
  subject_type  text NOT NULL CHECK (subject_type IN ('end_user', 'team', 'workspace')),
  end_user_id   text,
  confidence    real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  recorded_at   timestamptz NOT NULL DEFAULT now(),
  sensitive     boolean NOT NULL DEFAULT false,
  pinned        boolean NOT NULL DEFAULT false,
  superseded_by text REFERENCES facts (id) ON DELETE SET NULL,
  claim_key     text,
  claim_value   text,
  search        tsvector GENERATED ALWAYS AS (to_tsvector('english', subject || ' ' || text)) STORED,
  -- the subject as a phrase query, so ranking can ask "does the query name this subject?" per row
  -- without parsing the subject again
  subject_query tsquery GENERATED ALWAYS AS (phraseto_tsquery('english', subject)) STORED,
  CHECK ((subject_type = 'end_user') = (end_user_id IS NOT NULL))
);

-- Exact duplicates among live facts, per person: the unique index makes a racing replay a no-op.
-- md5 keeps the index small for 4000-char facts.
CREATE UNIQUE INDEX facts_live_duplicate ON facts (workspace_id, coalesce(end_user_id, ''), md5(normalized))
  WHERE superseded_by IS NULL;
-- Candidate selection for search; partial so superseded history costs nothing at query time.
CREATE INDEX facts_live_search ON facts USING gin (search) WHERE superseded_by IS NULL;
CREATE INDEX facts_live_claim ON facts (workspace_id, claim_key) WHERE superseded_by IS NULL AND claim_key IS NOT NULL;
CREATE INDEX facts_live_recent ON facts (workspace_id, recorded_at DESC, id DESC) WHERE superseded_by IS NULL;
CREATE INDEX facts_live_end_user ON facts (workspace_id, end_user_id, recorded_at DESC)
  WHERE superseded_by IS NULL AND end_user_id IS NOT NULL;
CREATE INDEX facts_live_pinned ON facts (workspace_id) WHERE pinned AND superseded_by IS NULL;
CREATE INDEX facts_workspace_id ON facts (workspace_id, id);

-- Document frequency per lexeme and collection size per workspace, for BM25-style IDF weighting
-- that ts_rank lacks. Maintained by the capture pipeline; superseded facts are not subtracted
-- (a small overcount that only slightly dampens a term's weight).
CREATE TABLE term_stats (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- byte order, so the primary key also serves prefix ranges ("kubern" -> "kubernet")
  lexeme       text COLLATE "C" NOT NULL,
  df           integer NOT NULL,
  PRIMARY KEY (workspace_id, lexeme)
);

CREATE TABLE memory_stats (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  fact_count   bigint NOT NULL DEFAULT 0,
  total_length bigint NOT NULL DEFAULT 0
);
