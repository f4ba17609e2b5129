-- Agents may run on the `openai` provider (any OpenAI-compatible server). The constraint keeps its
-- name (PostgreSQL's default for the column check of 006), so a later migration can find it the
-- same way.
ALTER TABLE agents DROP CONSTRAINT agents_provider_check;
ALTER TABLE agents ADD CONSTRAINT agents_provider_check CHECK (provider IN ('auto', 'anthropic', 'openai', 'local'));
