/**
 * Multipart uploads under way in counted buckets (migration 0004): the store holds their parts, so
 * the parts count against the quota (`part_bytes` of the bucket's and the organisation's usage
 * rows) from the moment the store has one until the upload completes (the parts become the
 * object), is aborted, or the store no longer knows it (a lifecycle rule expired it; a periodic
 * check asks the store, s3/limits/upload-checks.ts). Each change locks the usage rows first, in scope
 * order, like every change of storage_usage (storage-usage.ts).
 */
import type { Sql } from './database.js';
import { countOf } from './database.js';
import { keptSizes, type KeptSizes } from './storage-objects.js';
import { bucketScope, type StorageChange } from './usage-scopes.js';

/** A multipart upload of a bucket. */
export interface UploadRef {
  readonly bucket: string;
  readonly uploadId: string;
}

/** A part the store now holds: its upload (and the upload's key), number and size. */
export interface StoredPart extends UploadRef {
  readonly key: string;
  readonly partNumber: number;
  readonly bytes: number;
}

/** An upload to ask the store about: its key is part of the path. */
export interface UploadToCheck extends UploadRef {
  readonly key: string;
}

export class StorageUploadsStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * After the store took a part: drops the reservation `id` that held room for it, and counts the
   * part in the scopes it names, replacing a part of the same number. Once: a reservation already
   * gone changes nothing. Whether it was still there.
   */
  async settlePart(id: string, part: StoredPart): Promise<boolean> {
    const [row] = await this.#sql<{ released: number }[]>`
      WITH target AS (
        SELECT DISTINCT unnest(scopes) AS scope FROM storage_reservations WHERE id = ${id}::uuid
      ),
      locked AS (
        SELECT scope FROM storage_usage WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      released AS (
        DELETE FROM storage_reservations
        WHERE id = ${id}::uuid AND (SELECT count(*) FROM locked) >= 0
        RETURNING bytes, objects
      ),
      previous AS (
        SELECT bytes FROM storage_upload_parts
        WHERE bucket = ${part.bucket} AND upload_id = ${part.uploadId} AND part_number = ${part.partNumber}
      ),
      upload AS (
        INSERT INTO storage_uploads (bucket, upload_id, object_key)
        SELECT ${part.bucket}, ${part.uploadId}, ${part.key} WHERE EXISTS (SELECT 1 FROM released)
        ON CONFLICT (bucket, upload_id) DO NOTHING
      ),
      stored AS (
        INSERT INTO storage_upload_parts (bucket, upload_id, part_number, bytes)
        SELECT ${part.bucket}, ${part.uploadId}, ${part.partNumber}, ${part.bytes}
        WHERE EXISTS (SELECT 1 FROM released)
        ON CONFLICT (bucket, upload_id, part_number) DO UPDATE SET bytes = EXCLUDED.bytes
      ),
      changed AS (
        UPDATE storage_usage SET
          reserved_bytes = greatest(0, reserved_bytes - released.bytes),
          reserved_objects = greatest(0, reserved_objects - released.objects),
          part_bytes = greatest(0, part_bytes + ${part.bytes} - coalesce((SELECT bytes FROM previous), 0))
        FROM released
        WHERE storage_usage.scope IN (SELECT scope FROM locked)
      )
      SELECT count(*)::int AS released FROM released`;
    return (row?.released ?? 0) > 0;
  }

  /**
   * After the store completed `upload`: drops the reservation `id`, adds `change` (the object it
   * assembled, less what it replaced) and takes the upload's parts out of the count (they are the
   * object now, or gone with the upload). `kept`: the size the upload's key holds now. Once.
   * Whether the reservation was still there.
   */
  async settleCompletion(
    id: string,
    upload: UploadRef,
    change: StorageChange,
    kept?: KeptSizes,
  ): Promise<boolean> {
    const sizes = keptSizes(this.#sql, kept);
    const [row] = await this.#sql<{ released: number }[]>`
      WITH target AS (
        SELECT DISTINCT unnest(scopes) AS scope FROM storage_reservations WHERE id = ${id}::uuid
      ),
      locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      released AS (
        DELETE FROM storage_reservations
        WHERE id = ${id}::uuid AND (SELECT count(*) FROM locked) >= 0
        RETURNING bytes, objects
      ),
      parts AS (
        DELETE FROM storage_upload_parts
        WHERE bucket = ${upload.bucket} AND upload_id = ${upload.uploadId} AND EXISTS (SELECT 1 FROM released)
        RETURNING bytes
      ),
      gone AS (
        DELETE FROM storage_uploads
        WHERE bucket = ${upload.bucket} AND upload_id = ${upload.uploadId} AND EXISTS (SELECT 1 FROM released)
      ),
      freed AS (SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM parts),
      listed AS (
        SELECT 1 FROM locked
        WHERE locked.scope = ${bucketScope(kept?.bucket ?? '')} AND locked.objects_listed AND EXISTS (SELECT 1 FROM released)
      ),
      ${sizes.writes},
      changed AS (
        UPDATE storage_usage SET
          reserved_bytes = greatest(0, reserved_bytes - released.bytes),
          reserved_objects = greatest(0, reserved_objects - released.objects),
          stored_bytes = greatest(0, stored_bytes + ${change.bytes}),
          stored_objects = greatest(0, stored_objects + ${change.objects}),
          part_bytes = greatest(0, part_bytes - freed.bytes)
        FROM released, freed
        WHERE storage_usage.scope IN (SELECT scope FROM locked)
      )
      SELECT count(*)::int AS released FROM released`;
    return (row?.released ?? 0) > 0;
  }

  /** The bytes counted for the upload's parts, or for its part `partNumber` (0 when none is counted). */
  async partBytes(upload: UploadRef, partNumber?: number): Promise<number> {
    const [row] = await this.#sql<{ bytes: bigint }[]>`
      SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM storage_upload_parts
      WHERE bucket = ${upload.bucket} AND upload_id = ${upload.uploadId}
        AND (${partNumber ?? null}::int IS NULL OR part_number = ${partNumber ?? null}::int)`;
    return countOf(row?.bytes ?? null) ?? 0;
  }

  /**
   * The upload is gone from the store (aborted, or expired by it): its parts no longer count, in
   * the bucket's row and its organisation's.
   */
  async forget(upload: UploadRef): Promise<void> {
    await this.#sql`
      WITH target AS (
        SELECT scope FROM storage_usage
        WHERE scope = 'bucket:' || ${upload.bucket}
           OR scope = (SELECT 'organisation:' || organisation_id::text FROM buckets WHERE name = ${upload.bucket})
      ),
      locked AS (
        SELECT scope FROM storage_usage WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      parts AS (
        DELETE FROM storage_upload_parts
        WHERE bucket = ${upload.bucket} AND upload_id = ${upload.uploadId} AND (SELECT count(*) FROM locked) >= 0
        RETURNING bytes
      ),
      gone AS (
        DELETE FROM storage_uploads
        WHERE bucket = ${upload.bucket} AND upload_id = ${upload.uploadId} AND (SELECT count(*) FROM locked) >= 0
      ),
      freed AS (SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM parts)
      UPDATE storage_usage SET part_bytes = greatest(0, part_bytes - freed.bytes)
      FROM freed
      WHERE storage_usage.scope IN (SELECT scope FROM locked)`;
  }

  /**
   * Up to `limit` uploads the store last confirmed more than `olderThanSeconds` ago, marked as
   * checked now: no two instances ask about the same upload.
   */
  async claimUnchecked(olderThanSeconds: number, limit: number): Promise<UploadToCheck[]> {
    const rows = await this.#sql<{ bucket: string; upload_id: string; object_key: string }[]>`
      UPDATE storage_uploads AS upload SET checked_at = now()
      FROM (
        SELECT bucket, upload_id FROM storage_uploads
        WHERE checked_at < now() - make_interval(secs => ${olderThanSeconds})
        ORDER BY checked_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ) AS due
      WHERE upload.bucket = due.bucket AND upload.upload_id = due.upload_id
      RETURNING upload.bucket, upload.upload_id, upload.object_key`;
    return rows.map((row) => ({ bucket: row.bucket, uploadId: row.upload_id, key: row.object_key }));
  }
}
