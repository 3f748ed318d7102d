-- Storage quotas, continued (issue 15, speed): the size of every object a counted bucket holds, kept
-- by the gateway, so that what a write replaces is read here instead of asked of the store with a
-- HEAD before every upload and deletion.

-- The objects of counted buckets and their sizes. A key without a row holds no object. A row with
-- bytes NULL and size_known true is a key a write went to that holds no object (yet); one with
-- size_known false holds something whose size the gateway was not told (the store's answer to a
-- write never came), and the next write to it asks the store. A row changes only while a counted
-- write holds its key (storage_reservations.held_key), so what a write replaces, read here under
-- its hold, is exact.
CREATE TABLE storage_objects (
  bucket text NOT NULL REFERENCES buckets (name) ON DELETE CASCADE,
  object_key text NOT NULL,
  bytes bigint CHECK (bytes >= 0),
  size_known boolean NOT NULL DEFAULT true,
  PRIMARY KEY (bucket, object_key)
);

-- Whether storage_objects holds every object of the bucket: set when the bucket is counted from a
-- listing of the store (or counted from its creation, empty). The writes to a bucket without it
-- ask the store what they replace, as before; a recount (npm run admin -- recount-usage) lists the
-- bucket and sets it. Buckets counted before this migration start without.
ALTER TABLE storage_usage ADD COLUMN objects_listed boolean NOT NULL DEFAULT false;
