-- A fact's second reading of its claim. Capture reads a claim with the attribute lexicon
-- (src/capture/attributes/) and with the older sentence rules; where the two disagree on the key,
-- both are stored (else the lexicon's reading of a second attribute), and a new fact relates to an
-- older one by either. Found by the same indexed lookups as the first reading (by key, by
-- subject), on live facts only.
ALTER TABLE facts ADD COLUMN alt_claim_key text;
ALTER TABLE facts ADD COLUMN alt_claim_subject text;
ALTER TABLE facts ADD COLUMN alt_claim_value text;
ALTER TABLE facts ADD COLUMN alt_claim_negated boolean NOT NULL DEFAULT false;
CREATE INDEX facts_live_alt_claim ON facts (workspace_id, alt_claim_key) WHERE superseded_by IS NULL AND alt_claim_key IS NOT NULL;
CREATE INDEX facts_live_alt_claim_subject ON facts (workspace_id, alt_claim_subject) WHERE superseded_by IS NULL AND alt_claim_subject IS NOT NULL;
-- A person is named in full once and by first name after ("Tomasz Wierzbicki lives in Kraków",
-- "Tomasz moved to Gdańsk"): a claim's subject is also found by its first word.
CREATE INDEX facts_live_claim_first_word ON facts (workspace_id, split_part(claim_subject, ' ', 1)) WHERE superseded_by IS NULL AND claim_subject IS NOT NULL;
