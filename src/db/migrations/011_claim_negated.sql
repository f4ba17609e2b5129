-- A claim's polarity gets its own column: values used to carry a "¬" prefix when the fact denied
-- them ("Priya's manager is no longer Tom"), which mixed a flag into text. Existing rows convert in
-- place; `facts reclaim` re-keys anything the current claim model reads differently.
ALTER TABLE facts ADD COLUMN claim_negated boolean NOT NULL DEFAULT false;
UPDATE facts SET claim_negated = true, claim_value = substr(claim_value, 2) WHERE claim_value LIKE '¬%';
