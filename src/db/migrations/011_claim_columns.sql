-- A claim's polarity gets its own column: values used to carry a "¬" prefix when the fact denied
-- them ("Priya's manager is no longer Tom"), which mixed a flag into text. Existing rows convert in
-- place; `facts reclaim` re-keys anything the current claim model reads differently.
ALTER TABLE facts ADD COLUMN claim_negated boolean NOT NULL DEFAULT false;
UPDATE facts SET claim_negated = true, claim_value = substr(claim_value, 2) WHERE claim_value LIKE '¬%';

-- The claim's subject on its own, so a fact that names the value it replaces ("switched from
-- Postgres to CockroachDB") finds the subject's live claims whatever their attribute.
ALTER TABLE facts ADD COLUMN claim_subject text;
UPDATE facts SET claim_subject = split_part(substr(claim_key, position(':' in claim_key) + 1), '|', 1) WHERE claim_key IS NOT NULL;
CREATE INDEX facts_live_claim_subject ON facts (workspace_id, claim_subject) WHERE superseded_by IS NULL AND claim_subject IS NOT NULL;
