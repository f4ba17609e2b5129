-- Vectors from the operator's embeddings endpoint (src/embeddings/): one per live fact and model,
-- computed after the fact is stored. The facts without a vector of the current model are the
-- queue: nothing else has to be written when a fact is taught, and a model change re-embeds by
-- itself (the old model's rows are deleted as the new ones arrive).

CREATE TABLE fact_vectors (
  fact_id      text NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
  model        text NOT NULL,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- Instances load a workspace's vectors once, then only the rows past the last `seq` they read.
  seq          bigserial NOT NULL,
  dimensions   integer NOT NULL,
  -- float32, little-endian; NULL when the endpoint refused this fact's text (it is not retried).
  vector       bytea,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (fact_id, model)
);
CREATE INDEX fact_vectors_workspace_seq ON fact_vectors (workspace_id, model, seq);

-- Who is embedding which fact: a lease, so several instances share the queue without embedding a
-- fact twice, and a fact whose instance died is taken up again once its lease ends.
CREATE TABLE embedding_leases (
  fact_id     text PRIMARY KEY REFERENCES facts (id) ON DELETE CASCADE,
  model       text NOT NULL,
  lease_until timestamptz NOT NULL,
  -- Failed attempts of this fact alone: past a few, the endpoint is taken to refuse its text.
  attempts    integer NOT NULL DEFAULT 0
);
