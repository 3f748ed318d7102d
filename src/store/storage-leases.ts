/**
 * Room leased to a process in advance, for the uploads it admits in memory (s3/limits/leases.ts):
 * a row of storage_reservations without a held key, counted in the scopes' reserved room like
 * any reservation, so that what the leases of every process hold and what is stored never exceed
 * a quota together. A lease grows when its process takes more room, shrinks as the uploads it
 * admitted are recorded (storage-records.ts) or when its process gives unused room back, and goes
 * with its process: at shutdown, or with the reservations of an instance that stopped
 * (instances.ts).
 *
 * A lease is only granted while the scopes have plenty of room: at most a sixteenth of what is
 * free in each, and only into a bucket whose sizes are all known (the records are counted against
 * them). Near a quota there is no lease and every upload takes the exact path.
 */
import { bucketScope, type ScopeQuota, type StorageChange } from './usage-scopes.js';
import type { Sql } from './database.js';
import { quotaRows } from './storage-reservations.js';

/** The share of a scope's free room one lease may take. */
const FREE_ROOM_DIVISOR = 16;

export class StorageLeases {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Adds room to the lease `id` of `instanceId` (created when it has none) under `quotas`, for
   * uploads into `bucket`: at most `most`, and at most a sixteenth of what each scope has free. The
   * room added: none (both figures 0) when that is under `least` bytes or one object, when a scope
   * is not counted, or when the bucket's sizes are not all known.
   */
  async take(
    instanceId: string,
    id: string,
    quotas: readonly ScopeQuota[],
    bucket: string,
    most: StorageChange,
    leastBytes: number,
  ): Promise<StorageChange> {
    const scopes = quotas.map((quota) => quota.scope).sort();
    const [row] = await this.#sql<{ bytes: string | number; objects: string | number }[]>`
      WITH ${quotaRows(this.#sql, quotas)},
      room AS (
        SELECT
          least(${most.bytes}::bigint,
                coalesce(min((wanted.max_bytes - locked.bytes) / ${FREE_ROOM_DIVISOR}), ${most.bytes}::bigint)) AS bytes,
          least(${most.objects}::bigint,
                coalesce(min((wanted.max_objects - locked.objects) / ${FREE_ROOM_DIVISOR}), ${most.objects}::bigint)) AS objects,
          count(*) AS counted,
          coalesce(bool_or(locked.scope = ${bucketScope(bucket)} AND locked.objects_listed), false) AS listed
        FROM locked JOIN wanted USING (scope)
      ),
      granted AS (
        SELECT CASE WHEN ok THEN room.bytes ELSE 0 END AS bytes, CASE WHEN ok THEN room.objects ELSE 0 END AS objects
        FROM room, LATERAL (
          SELECT room.listed AND room.counted = ${scopes.length} AND room.bytes >= ${leastBytes} AND room.objects >= 1 AS ok
        ) AS fits
      ),
      registered AS (
        INSERT INTO gateway_instances (id) SELECT ${instanceId}::uuid FROM granted WHERE granted.bytes > 0
        ON CONFLICT (id) DO NOTHING
      ),
      leased AS (
        INSERT INTO storage_reservations AS lease (id, instance_id, scopes, bytes, objects, held_key)
        SELECT ${id}::uuid, ${instanceId}::uuid, ${scopes}::text[], granted.bytes, granted.objects, NULL
        FROM granted WHERE granted.bytes > 0
        ON CONFLICT (id) DO UPDATE SET
          bytes = lease.bytes + EXCLUDED.bytes, objects = lease.objects + EXCLUDED.objects
        RETURNING lease.id
      ),
      raised AS (
        UPDATE storage_usage SET
          reserved_bytes = reserved_bytes + granted.bytes,
          reserved_objects = reserved_objects + granted.objects
        FROM granted
        WHERE EXISTS (SELECT 1 FROM leased) AND storage_usage.scope IN (SELECT scope FROM locked)
      )
      SELECT bytes, objects FROM granted`;
    return { bytes: Number(row?.bytes ?? 0), objects: Number(row?.objects ?? 0) };
  }

  /** Gives `room` of the lease `id` back to its scopes (never more than the lease holds). */
  async giveBack(id: string, room: StorageChange): Promise<void> {
    if (room.bytes <= 0 && room.objects <= 0) return;
    await this.#sql`
      WITH target AS (SELECT scopes FROM storage_reservations WHERE id = ${id}::uuid),
      locked AS (
        SELECT scope FROM storage_usage
        WHERE scope IN (SELECT unnest(scopes) FROM target) ORDER BY scope FOR UPDATE
      ),
      lease AS (
        SELECT scopes, least(bytes, ${Math.max(0, room.bytes)}::bigint) AS bytes,
               least(objects, ${Math.max(0, room.objects)}::bigint) AS objects
        FROM storage_reservations
        WHERE id = ${id}::uuid AND (SELECT count(*) FROM locked) >= 0
        FOR UPDATE
      ),
      shrunk AS (
        UPDATE storage_reservations AS held SET bytes = held.bytes - lease.bytes, objects = held.objects - lease.objects
        FROM lease WHERE held.id = ${id}::uuid
      )
      UPDATE storage_usage SET
        reserved_bytes = greatest(0, reserved_bytes - lease.bytes),
        reserved_objects = greatest(0, reserved_objects - lease.objects)
      FROM lease
      WHERE storage_usage.scope IN (SELECT scope FROM locked)`;
  }
}
