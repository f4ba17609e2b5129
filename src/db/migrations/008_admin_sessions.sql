-- Sessions of the settings web app: signed in with the admin credential, held in an HttpOnly
-- cookie. Only the session id's SHA-256 is stored; the CSRF token every change must echo lives here.
CREATE TABLE admin_sessions (
  id_hash    text PRIMARY KEY,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX admin_sessions_expiry ON admin_sessions (expires_at);
