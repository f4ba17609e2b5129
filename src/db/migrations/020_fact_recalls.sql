-- How often a search or a context packet returned each fact, and when it last did. Kept apart from
-- `facts`: counting a recall rewrites this narrow row, never a fact's row with its text and indexes,
-- and never advances the change sequence (a recall changes nothing a search index holds). Written
-- in batches by each instance (src/memory/recalls.ts), adding to what other instances wrote.
CREATE TABLE fact_recalls (
  fact_id          text PRIMARY KEY REFERENCES facts (id) ON DELETE CASCADE,
  recall_count     bigint NOT NULL CHECK (recall_count > 0),
  last_recalled_at timestamptz NOT NULL
);
