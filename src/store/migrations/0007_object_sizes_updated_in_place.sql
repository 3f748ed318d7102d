-- Storage quotas, continued (issue 15, speed): the rows of storage_objects are rewritten by every
-- recorded upload (several thousand a second under load), so their updates must stay heap-only
-- (HOT): no index may cover a column they change, and each page keeps room for the new versions.
-- A HOT update adds no index entry, and its dead versions are pruned from the page by the next
-- reader, without waiting for a vacuum. The index on deletions' tombstones named written_until
-- and bytes, which every update changes: not one update in 328,000 was heap-only, the table grew
-- from 128 to 1,770 pages in three minutes of uploads to 4,096 keys with autovacuum off, and the
-- records' statement from 8 to 127 ms (BENCHMARKS.md, change 35). Old tombstones are now found by
-- walking the primary key a slice at a time (storage-objects.ts, TombstoneSweep).
DROP INDEX storage_objects_tombstones_idx;

-- Room on each page for the rows' next versions; pages written before keep theirs until rewritten.
ALTER TABLE storage_objects SET (fillfactor = 70);
