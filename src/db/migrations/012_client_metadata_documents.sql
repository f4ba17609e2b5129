-- OAuth clients identified by a Client ID Metadata Document: the client_id is the document's
-- https URL, and the row caches what the document said until it expires (then it is fetched
-- again). Registered (RFC 7591) clients have no expiry.
ALTER TABLE oauth_clients ADD COLUMN metadata_expires_at timestamptz;
