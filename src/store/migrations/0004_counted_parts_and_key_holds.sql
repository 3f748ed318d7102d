-- Storage quotas, continued (issue 15 review): parts of multipart uploads under way count against
-- the quota while the store holds them, and a counted write holds its key so that two writes to one
-- key cannot both count what they replace.

-- Bytes the store holds in parts of uploads not yet completed or aborted, in every counted scope.
ALTER TABLE storage_usage ADD COLUMN part_bytes bigint NOT NULL DEFAULT 0;

-- The uploads under way in counted buckets and the size of each of their parts, as the store
-- answered them: completion moves them into stored_bytes, abort (or the store forgetting the
-- upload, found by a periodic check) releases them. checked_at: when the store last confirmed it.
CREATE TABLE storage_uploads (
  bucket text NOT NULL REFERENCES buckets (name) ON DELETE CASCADE,
  upload_id text NOT NULL,
  object_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  checked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bucket, upload_id)
);
CREATE INDEX storage_uploads_checked_idx ON storage_uploads (checked_at);

CREATE TABLE storage_upload_parts (
  bucket text NOT NULL REFERENCES buckets (name) ON DELETE CASCADE,
  upload_id text NOT NULL,
  part_number integer NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
  bytes bigint NOT NULL CHECK (bytes >= 0),
  PRIMARY KEY (bucket, upload_id, part_number)
);

-- What a counted write holds while it is under way: its object key ('object:<bucket>/<key>') or
-- its part ('part:<bucket>/<upload id>/<number>'). One holder per key, on every instance: the
-- second write to a key waits until the first has settled.
ALTER TABLE storage_reservations ADD COLUMN held_key text;
CREATE UNIQUE INDEX storage_reservations_held_key_idx ON storage_reservations (held_key);
