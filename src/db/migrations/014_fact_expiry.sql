-- Facts that stop being true ("on vacation until Friday"). `recorded_at` is when a fact was
-- observed (teach's `observed_at`, default the moment it was taught); `expires_at` when it stops
-- being true. Nothing changes in the row at that moment: every reader compares it with its own
-- clock, so an expired fact leaves search on every instance at once. It stays live for duplicates,
-- so teaching the same text again revives it instead of storing a copy.
ALTER TABLE facts ADD COLUMN expires_at timestamptz;
ALTER TABLE facts ADD CONSTRAINT facts_expire_after_observed CHECK (expires_at IS NULL OR expires_at > recorded_at);
-- Live facts with an expiry: the claim lookups skip expired ones, and a reader of expiries finds them.
CREATE INDEX facts_live_expiring ON facts (workspace_id, expires_at) WHERE superseded_by IS NULL AND expires_at IS NOT NULL;
