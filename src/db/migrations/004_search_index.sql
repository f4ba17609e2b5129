-- Search moves into an in-process index per workspace (src/memory/index/). The database keeps
-- the facts and a per-workspace change sequence, so every instance can bring its index up to
-- date with a delta instead of re-reading the workspace.

-- The head of each workspace's change log. Every write that changes what a search may return
-- advances `seq` in its own transaction; the row lock makes commits leave the sequence in order.
-- `floor`: tombstones at or below it were pruned, so an index older than that rebuilds.
CREATE TABLE fact_sequences (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  seq          bigint NOT NULL DEFAULT 0,
  floor        bigint NOT NULL DEFAULT 0
);

-- The sequence value of the last change to each fact (insert, supersede, pin, unpin).
ALTER TABLE facts ADD COLUMN changed_seq bigint NOT NULL DEFAULT 0;
CREATE INDEX facts_changes ON facts (workspace_id, changed_seq);

-- Deleted facts (forgetting an end user), so other instances drop them from their indexes.
CREATE TABLE fact_tombstones (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  seq          bigint NOT NULL,
  fact_id      text NOT NULL,
  deleted_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, seq, fact_id)
);

-- Deleting a fact (forgetting an end user) makes PostgreSQL find the facts it superseded
-- (ON DELETE SET NULL): without an index that is a scan of the whole table per deleted row.
-- Partial: only superseded facts have a value.
CREATE INDEX facts_superseded_by ON facts (superseded_by) WHERE superseded_by IS NOT NULL;

-- What the SQL ranking needed and the index replaces: the cross-tenant full-text index, its
-- generated columns and the term statistics that every teach had to upsert.
DROP INDEX facts_live_search;
ALTER TABLE facts DROP COLUMN search, DROP COLUMN subject_query;
DROP TABLE term_stats;
DROP TABLE memory_stats;
