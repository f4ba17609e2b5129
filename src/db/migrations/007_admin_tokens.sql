-- The admin credential of the settings app and /v1/admin, when MEMORYD_ADMIN_TOKEN is not set:
-- created and printed once by the first `serve`, stored only as its SHA-256 (like API keys).
CREATE TABLE admin_tokens (
  id          text PRIMARY KEY,
  prefix      text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
