-- A workspace's search index as bytes (src/memory/index/snapshot.ts), so an instance that starts
-- cold, or evicted the index, reads one row instead of every live fact. Derived data: the facts
-- and the change log stay the source of truth, and a snapshot older than the tombstone floor or
-- written by another tokeniser (`format`) is ignored and replaced.
-- Deleting a fact (forgetting an end user) deletes the workspace's snapshot in the same
-- transaction, so a forgotten text never outlives its row here.
CREATE TABLE index_snapshots (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  seq          bigint NOT NULL,
  format       text NOT NULL,
  facts        integer NOT NULL,
  data         bytea NOT NULL,
  written_at   timestamptz NOT NULL DEFAULT now()
);
-- zstd-compressed already: PostgreSQL's own TOAST compression would only spend CPU.
ALTER TABLE index_snapshots ALTER COLUMN data SET STORAGE EXTERNAL;
