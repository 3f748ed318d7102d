-- The gateway's records. Names are global (buckets) or per organisation; ids are UUIDs made here so
-- that PGlite (no extensions) and PostgreSQL behave alike.

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  password_hash text NOT NULL,
  platform_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organisations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  suspension_reason text,
  suspended_at timestamptz,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX organisations_name_key ON organisations (lower(name));

-- A person belongs to at most one organisation.
CREATE TABLE memberships (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memberships_organisation_idx ON memberships (organisation_id);

CREATE TABLE credentials (
  access_key_id text PRIMARY KEY,
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  name text NOT NULL,
  secret_ciphertext text NOT NULL,
  previous_secret_ciphertext text,
  previous_secret_valid_until timestamptz,
  scope jsonb NOT NULL,
  expires_at timestamptz,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX credentials_organisation_idx ON credentials (organisation_id, created_at);

CREATE TABLE buckets (
  name text PRIMARY KEY,
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE RESTRICT,
  public boolean NOT NULL DEFAULT false,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX buckets_organisation_idx ON buckets (organisation_id, name);

CREATE TABLE cors_rule_sets (
  bucket text PRIMARY KEY REFERENCES buckets (name) ON DELETE CASCADE,
  rules jsonb NOT NULL,
  updated_by uuid REFERENCES users (id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  user_agent text,
  source_address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- Every refresh token ever issued for a session, hashed; one presented after it was used revokes the
-- session (reuse detection).
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash text NOT NULL UNIQUE,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);

CREATE TABLE password_reset_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  organisation_id uuid REFERENCES organisations (id) ON DELETE CASCADE,
  actor_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  actor_email text,
  action text NOT NULL,
  target text,
  source_address text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_organisation_idx ON audit_log (organisation_id, id DESC);

-- Storage traffic, summed per hour. access_key_id is '' for anonymous (public bucket) reads.
CREATE TABLE usage_counters (
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  bucket text NOT NULL,
  access_key_id text NOT NULL,
  hour timestamptz NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  bytes_in bigint NOT NULL DEFAULT 0,
  bytes_out bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organisation_id, hour, bucket, access_key_id)
);
