-- Two relations between a new fact and an older one (docs/memory.md, "Replaces and updates"):
-- *replaces* hides the older one (superseded_by, as before); *updates* hides nothing and is stored
-- here, on the newer fact, as the ids of the facts it updates, so a reader can put it first.
-- link_reason says which record and which words made either link, for review.
ALTER TABLE facts ADD COLUMN updates text[];
ALTER TABLE facts ADD COLUMN link_reason text;
-- Updates read on weaker evidence (one shared word after a change word): a reader puts the newer
-- fact first only when both answer the question, and never brings it in on its own.
ALTER TABLE facts ADD COLUMN weak_updates text[];
-- The second reading of a claim (migration 017) is gone: only the attribute lexicon's reading,
-- in claim_*, may replace a fact. `memoryd facts reclaim` restores what the older readings hid.
ALTER TABLE facts DROP COLUMN alt_claim_key;
ALTER TABLE facts DROP COLUMN alt_claim_subject;
ALTER TABLE facts DROP COLUMN alt_claim_value;
ALTER TABLE facts DROP COLUMN alt_claim_negated;
