-- Storage quotas, continued (issue 15, speed): the size of every object a counted bucket holds, kept
-- by the gateway, so that what a write replaces is read here instead of asked of the store with a
-- HEAD before every upload and deletion.

-- The objects of counted buckets and their sizes, as the gateway counted them: the ledger the
-- bucket's stored_bytes and stored_objects are the sum of. A key without a row, or with bytes
-- NULL (a write to it holds it and stored nothing yet), holds no object. A row changes only while
-- a counted write holds its key (storage_reservations.held_key), so what a write replaces, read
-- here under its hold, is exact. A write whose outcome the gateway never heard leaves the row as
-- it was: the count and the row stay in step, and the next write to the key, which replaces
-- whatever the store holds there, brings both back to what the store holds.
CREATE TABLE storage_objects (
  bucket text NOT NULL REFERENCES buckets (name) ON DELETE CASCADE,
  object_key text NOT NULL,
  bytes bigint CHECK (bytes >= 0),
  PRIMARY KEY (bucket, object_key)
);

-- Whether storage_objects holds every object of the bucket: set when the bucket is counted from a
-- listing of the store (or counted from its creation, empty). The writes to a bucket without it
-- ask the store what they replace, as before; a recount (npm run admin -- recount-usage) lists the
-- bucket and sets it. Buckets counted before this migration start without.
ALTER TABLE storage_usage ADD COLUMN objects_listed boolean NOT NULL DEFAULT false;
