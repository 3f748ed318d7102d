-- Storage quotas, continued (issue 15, speed): uploads admitted from room leased to each process
-- and recorded after the client's answer, in batches (storage-leases.ts, storage-records.ts).
--
-- A lease is a row of storage_reservations without a held key: room a process reserved in advance
-- and admits uploads from in memory. Uploads from a lease hold no key here, so the writes to one
-- key are ordered by when each was in flight at the store: every row of storage_objects written
-- by a write since this migration names the process that wrote it and the interval from sending
-- the write to its answer, in microseconds since the epoch on that process's clock. A record
-- replaces a row whose write lay wholly before its own, is dropped when its own lay wholly before
-- the row's, and leaves the row to a HEAD of the store when the two overlapped (or while a write
-- holds the key). A deletion leaves a row with bytes NULL (a tombstone) and its interval, so that a
-- late record of a write before it is recognised as stale; tombstones older than an hour go.
ALTER TABLE storage_objects
  ADD COLUMN writer uuid,
  ADD COLUMN written_from bigint,
  ADD COLUMN written_until bigint;

CREATE INDEX storage_objects_tombstones_idx ON storage_objects (written_until) WHERE bytes IS NULL;
