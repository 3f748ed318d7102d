/**
 * What uploads admitted from a lease (storage-leases.ts) left in the store, recorded after the
 * client's answer, many in one statement. Such an upload holds no key in the database, so what it
 * replaced is not read before it: a record changes the count by its size less the size the row of
 * its key holds when the record is written (storage_objects, complete for a bucket whose sizes are
 * all known), and replaces the row only when it is the later write. Which write is later is told
 * by the row's stamp (storage-objects.ts, migration 0006): the process that wrote it and the
 * interval it was in flight at the store.
 *
 * - The same process: its writes to one key take turns while in flight (s3/limits/key-turns.ts),
 *   so their intervals never overlap and tell their order exactly. A statement may carry several
 *   records of one key: the latest is held against the row, and the earlier ones change nothing of
 *   it (superseded), as if each had been written before the next.
 * - Another process: the record is later when its write was sent after the row's was answered,
 *   stale when it was answered before the row's was sent, each with CLOCK_MARGIN to spare for the
 *   difference between the processes' clocks; otherwise the two overlapped.
 * - A row without a stamp (a listing, or a write of an older gateway) is replaced.
 *
 * A record whose write overlapped the row's, or whose key a write of the exact path holds now (its
 * settlement writes the row from what it read under its hold), changes nothing and is returned as
 * doubtful: its process asks the store (a HEAD, once the writes are over) and records what it
 * found as an observation, stamped with the interval of the HEAD, under the same rule. Stale
 * records change nothing: the count already holds what replaced them. Whatever the outcome, a
 * record gives its room back to the lease that admitted it.
 */
import type { Sql } from './database.js';
import type { UsageScope } from './usage-scopes.js';

/**
 * The most two processes' clocks may differ (µs) for their writes to one key to be ordered by
 * them (NTP keeps hosts far closer); writes closer than this are settled by asking the store.
 */
export const CLOCK_MARGIN_MICROS = 250_000;

/** A write (or observation) of one key to record. */
export interface WriteRecord {
  readonly bucket: string;
  readonly key: string;
  /** The scopes counting the bucket (those of the lease, or the quotas when observed). */
  readonly scopes: readonly UsageScope[];
  /**
   * What the store holds under the key after the write: its size, null for nothing; undefined
   * when the write stored nothing or its outcome was not heard (the record only gives room back).
   */
  readonly bytes: number | null | undefined;
  /** The write's stamp (storage-objects.ts' WriteStamp), its fields held by the record itself. */
  readonly writer: string;
  readonly from: number;
  readonly until: number;
  /**
   * The lease that admitted the write, null for an observation; the write took `leasedBytes` (0
   * for an observation) and one object of its room.
   */
  readonly leaseId: string | null;
  readonly leasedBytes: number;
}

/** The records of a batch that changed nothing because another write may have come after (by index). */
export type Doubtful = readonly number[];

export class StorageRecords {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Writes `records` in one statement, and gives each lease back the room its records took. The
   * indices of the doubtful.
   */
  async write(records: readonly WriteRecord[]): Promise<Doubtful> {
    if (records.length === 0) return [];
    // JSON texts, each record a row of scalars: postgres.js escapes array parameters element by
    // element, which cost more than the rest of the statement (BENCHMARKS.md, change 20). Buckets,
    // writers, leases and sets of scopes are few: each is given once and named by its index. A
    // stamp's times go as µs after the batch's earliest and as a duration: the digits of two
    // 16-digit numbers per record were a third of the text and most of its encoding time.
    const buckets = new Indices<string>();
    const writers = new Indices<string>();
    const leases = new Indices<string>();
    // Records of one lease share its list of scopes: told apart by identity, joined once each.
    const scopeSets = new Indices<readonly UsageScope[]>();
    let since = Number.POSITIVE_INFINITY;
    for (const record of records) if (record.from < since) since = record.from;
    const rows = records.map((record) => [
      buckets.of(record.bucket),
      record.key,
      record.bytes === undefined ? 0 : 1,
      record.bytes ?? null,
      writers.of(record.writer),
      record.from - since,
      record.until - record.from,
      record.leaseId === null ? null : leases.of(record.leaseId),
      record.leasedBytes,
      record.leaseId === null ? 0 : 1,
      scopeSets.of(record.scopes),
    ]);
    const [row] = await this.#sql<{ doubtful: number[] | null }[]>`
      WITH bucket_index AS (
        SELECT (n - 1)::int AS index, name FROM unnest(${buckets.values}::text[]) WITH ORDINALITY AS b (name, n)
      ),
      writer AS (
        SELECT (n - 1)::int AS index, id::uuid FROM unnest(${writers.values}::text[]) WITH ORDINALITY AS w (id, n)
      ),
      lease_index AS (
        SELECT (n - 1)::int AS index, id::uuid FROM unnest(${leases.values}::text[]) WITH ORDINALITY AS l (id, n)
      ),
      scope_set AS (
        SELECT (n - 1)::int AS index, string_to_array(scopes, ' ') AS scopes
        FROM unnest(${scopeSets.values.map((scopes) => scopes.join(' '))}::text[]) WITH ORDINALITY AS s (scopes, n)
      ),
      given AS (
        SELECT (n - 1)::int AS entry, (v->>0)::int AS bucket, v->>1 AS object_key, (v->>2)::int = 1 AS counts,
               (v->>3)::bigint AS bytes, (v->>4)::int AS writer,
               ${since}::bigint + (v->>5)::bigint AS written_from,
               ${since}::bigint + (v->>5)::bigint + (v->>6)::bigint AS written_until,
               (v->>7)::int AS lease, (v->>8)::bigint AS room_bytes,
               (v->>9)::bigint AS room_objects, (v->>10)::int AS scope_set
        FROM json_array_elements(${JSON.stringify(rows)}::text::json) WITH ORDINALITY AS r (v, n)
      ),
      entry AS (
        SELECT given.entry, bucket_index.name AS bucket, given.object_key, given.counts, given.bytes,
               writer.id AS writer, given.written_from, given.written_until, lease_index.id AS lease,
               given.room_bytes, given.room_objects, given.scope_set
        FROM given
        JOIN bucket_index ON bucket_index.index = given.bucket
        JOIN writer ON writer.index = given.writer
        LEFT JOIN lease_index ON lease_index.index = given.lease
      ),
      entry_scope AS (
        SELECT entry.entry, unnest(scope_set.scopes) AS scope
        FROM entry JOIN scope_set ON scope_set.index = entry.scope_set
      ),
      target AS (
        SELECT scope FROM entry_scope
        UNION SELECT unnest(scopes) FROM storage_reservations WHERE id IN (SELECT lease FROM entry)
      ),
      locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      latest AS (
        SELECT DISTINCT ON (entry.bucket, entry.object_key) entry.entry FROM entry
        WHERE entry.counts
        ORDER BY entry.bucket, entry.object_key, entry.written_from DESC, entry.entry DESC
      ),
      current AS (
        SELECT kept.bucket, kept.object_key, kept.bytes, kept.writer, kept.written_from, kept.written_until
        FROM storage_objects AS kept
        JOIN entry ON entry.entry IN (SELECT entry FROM latest)
          AND kept.bucket = entry.bucket AND kept.object_key = entry.object_key
        WHERE (SELECT count(*) FROM locked) >= 0
        ORDER BY kept.bucket, kept.object_key
        FOR UPDATE OF kept
      ),
      listed AS (
        SELECT entry.entry FROM entry
        JOIN locked ON locked.scope = 'bucket:' || entry.bucket AND locked.objects_listed
      ),
      decided AS (
        SELECT entry.*, current.bytes AS before_bytes,
          CASE
            WHEN entry.entry NOT IN (SELECT entry FROM listed) THEN 'skip'
            WHEN entry.entry NOT IN (SELECT entry FROM latest) THEN 'superseded'
            WHEN EXISTS (
              SELECT 1 FROM storage_reservations AS hold
              WHERE hold.held_key = 'object:' || entry.bucket || '/' || entry.object_key
            ) THEN 'doubt'
            WHEN current.object_key IS NULL OR current.written_until IS NULL THEN 'apply'
            WHEN current.writer = entry.writer THEN
              CASE WHEN entry.written_from >= current.written_until THEN 'apply'
                   WHEN entry.written_until <= current.written_from THEN 'stale'
                   ELSE 'doubt' END
            WHEN entry.written_from > current.written_until + ${CLOCK_MARGIN_MICROS} THEN 'apply'
            WHEN entry.written_until + ${CLOCK_MARGIN_MICROS} < current.written_from THEN 'stale'
            ELSE 'doubt'
          END AS decision
        FROM entry
        LEFT JOIN current ON current.bucket = entry.bucket AND current.object_key = entry.object_key
        WHERE entry.counts
      ),
      applied AS (
        INSERT INTO storage_objects AS kept (bucket, object_key, bytes, writer, written_from, written_until)
        SELECT bucket, object_key, bytes, writer, written_from, written_until FROM decided
        WHERE decision = 'apply'
        ORDER BY bucket, object_key
        ON CONFLICT (bucket, object_key) DO UPDATE SET
          bytes = EXCLUDED.bytes, writer = EXCLUDED.writer,
          written_from = EXCLUDED.written_from, written_until = EXCLUDED.written_until
      ),
      stored AS (
        SELECT entry_scope.scope,
               sum(coalesce(decided.bytes, 0) - coalesce(decided.before_bytes, 0))::bigint AS bytes,
               sum((decided.bytes IS NOT NULL)::int - (decided.before_bytes IS NOT NULL)::int)::bigint AS objects
        FROM decided JOIN entry_scope ON entry_scope.entry = decided.entry
        WHERE decided.decision = 'apply'
        GROUP BY entry_scope.scope
      ),
      leases AS (
        SELECT lease.id, lease.scopes, least(lease.bytes, used.bytes) AS bytes,
               least(lease.objects, used.objects) AS objects
        FROM storage_reservations AS lease
        JOIN (
          SELECT entry.lease, sum(entry.room_bytes)::bigint AS bytes, sum(entry.room_objects)::bigint AS objects
          FROM entry WHERE entry.lease IS NOT NULL GROUP BY entry.lease
        ) AS used ON used.lease = lease.id
        WHERE (SELECT count(*) FROM locked) >= 0
        FOR UPDATE OF lease
      ),
      shrunk AS (
        UPDATE storage_reservations AS lease SET
          bytes = lease.bytes - leases.bytes, objects = lease.objects - leases.objects
        FROM leases WHERE lease.id = leases.id
      ),
      released AS (
        SELECT scope, sum(leases.bytes)::bigint AS bytes, sum(leases.objects)::bigint AS objects
        FROM leases, unnest(leases.scopes) AS scope GROUP BY scope
      ),
      changed AS (
        UPDATE storage_usage AS usage SET
          stored_bytes = greatest(0, usage.stored_bytes + coalesce(stored.bytes, 0)),
          stored_objects = greatest(0, usage.stored_objects + coalesce(stored.objects, 0)),
          reserved_bytes = greatest(0, usage.reserved_bytes - coalesce(released.bytes, 0)),
          reserved_objects = greatest(0, usage.reserved_objects - coalesce(released.objects, 0))
        FROM locked
        LEFT JOIN stored ON stored.scope = locked.scope
        LEFT JOIN released ON released.scope = locked.scope
        WHERE usage.scope = locked.scope AND (stored.scope IS NOT NULL OR released.scope IS NOT NULL)
      )
      SELECT (SELECT array_agg(entry ORDER BY entry) FROM decided WHERE decision = 'doubt') AS doubtful`;
    return row?.doubtful ?? [];
  }
}

/** Distinct values, each named by its index in `values` (the order first given). */
class Indices<T> {
  readonly values: T[] = [];
  readonly #index = new Map<T, number>();

  of(value: T): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.#index.set(value, index);
    }
    return index;
  }
}
