-- Where each fact came from: the key that taught it (null for the operator and the CLI), the agent
-- the call acted as, and the route or tool it came through. Facts stored before this version
-- carry none of it.
ALTER TABLE facts ADD COLUMN taught_by_key text;
ALTER TABLE facts ADD COLUMN taught_by_agent text;
ALTER TABLE facts ADD COLUMN taught_via text;
