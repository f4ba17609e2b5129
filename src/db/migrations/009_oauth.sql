-- MCP authorization (OAuth 2.1): clients registered dynamically (RFC 7591), one-time authorization
-- codes, and access/refresh token pairs. Every grant hangs off the API key whose holder consented,
-- so revoking or expiring that key ends its tokens on the very next request (authentication joins
-- the key). Codes and tokens are stored as SHA-256 hashes only, like key secrets.

CREATE TABLE oauth_clients (
  id            text PRIMARY KEY,
  client_name   text NOT NULL,
  -- exact-match list; a redirect to anything else is refused before any redirect happens
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_codes (
  code_hash      text PRIMARY KEY,
  client_id      text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  key_id         text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  scopes         text[] NOT NULL,
  audience       text NOT NULL CHECK (audience IN ('internal', 'external')),
  resource       text NOT NULL,
  -- the token family this code started; a replayed code revokes it (RFC 6749 §4.1.2)
  family_id      text NOT NULL,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);

CREATE TABLE oauth_tokens (
  id                 text PRIMARY KEY,
  -- every rotation of one grant shares a family: a reused refresh token revokes all of it
  family_id          text NOT NULL,
  client_id          text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  key_id             text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  access_hash        text NOT NULL UNIQUE,
  refresh_hash       text NOT NULL UNIQUE,
  scopes             text[] NOT NULL CHECK (
    cardinality(scopes) > 0
    AND scopes <@ ARRAY['memory.read', 'memory.write', 'answers.write']::text[]
  ),
  audience           text NOT NULL CHECK (audience IN ('internal', 'external')),
  resource           text NOT NULL,
  access_expires_at  timestamptz NOT NULL,
  refresh_expires_at timestamptz NOT NULL,
  -- set when the refresh token was exchanged for the next pair; the access token lives on
  rotated_at         timestamptz,
  -- set when the grant was revoked (key holder, RFC 7009, or a replay)
  revoked_at         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_key ON oauth_tokens (key_id);
