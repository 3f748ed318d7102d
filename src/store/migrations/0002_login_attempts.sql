-- Login attempts per rate-limit key ('address:<ip>' or 'account:<e-mail>'), shared by every gateway
-- instance on this database. Rows older than the 60-second window are deleted as keys are touched and,
-- in bounded batches, by an occasional sweep.

CREATE TABLE login_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key text NOT NULL,
  attempted_at timestamptz NOT NULL
);
CREATE INDEX login_attempts_key_idx ON login_attempts (key, attempted_at);
CREATE INDEX login_attempts_attempted_at_idx ON login_attempts (attempted_at);
