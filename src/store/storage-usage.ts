/**
 * What the object store holds, per bucket and per organisation, counted while a storage quota
 * applies (migrations 0003 to 0005): the rows the quotas are held against. Every change of a row
 * first locks the rows it touches in scope order, before it touches a reservation, so concurrent
 * writes on any instance are serialised on the same rows (PostgreSQL) and never deadlock.
 *
 * The room reserved in them for the writes under way, and the keys those writes hold, are
 * storage-reservations.ts's.
 */
import { countOf, inTransaction, type Sql } from './database.js';
import { keptSizes, replaceSizes, type KeptSizes } from './storage-objects.js';
import { bucketScope, organisationScope, type StorageChange, type UsageScope } from './usage-scopes.js';

/** An upload under way as the store lists it, with the size of each of its parts. */
export interface CountedUpload {
  readonly uploadId: string;
  readonly key: string;
  readonly parts: readonly { readonly partNumber: number; readonly bytes: number }[];
}

/**
 * What a listing of a bucket found: its objects (and, from a full listing, each object's size),
 * and its uploads under way when the store lists them.
 */
export interface BucketCount {
  readonly bytes: number;
  readonly objects: number;
  readonly sizes?: ReadonlyMap<string, number>;
  readonly uploads?: readonly CountedUpload[];
}

export interface StoredFigures {
  readonly scope: UsageScope;
  readonly bucket: string | null;
  readonly storedBytes: number;
  readonly storedObjects: number;
  readonly reservedBytes: number;
  readonly reservedObjects: number;
  /** Held in parts of multipart uploads under way. */
  readonly partBytes: number;
  readonly countedAt: Date;
}

export interface LimitedOrganisation {
  readonly name: string;
  readonly maxBytes: number | null;
  readonly maxObjects: number | null;
  readonly requestsPerSecond: number | null;
  /** Null while it has no storage quota. */
  readonly storedBytes: number | null;
  readonly storedObjects: number | null;
  readonly partBytes: number | null;
}

interface UsageRow {
  scope: UsageScope;
  bucket: string | null;
  stored_bytes: bigint;
  stored_objects: bigint;
  reserved_bytes: bigint;
  reserved_objects: bigint;
  part_bytes: bigint;
  counted_at: Date;
}

function toFigures(row: UsageRow): StoredFigures {
  return {
    scope: row.scope,
    bucket: row.bucket,
    storedBytes: countOf(row.stored_bytes) ?? 0,
    storedObjects: countOf(row.stored_objects) ?? 0,
    reservedBytes: countOf(row.reserved_bytes) ?? 0,
    reservedObjects: countOf(row.reserved_objects) ?? 0,
    partBytes: countOf(row.part_bytes) ?? 0,
    countedAt: row.counted_at,
  };
}

/**
 * The usage rows: their figures, the counts that set them, and the changes made without a
 * reservation. The reservations held against them are StorageReservations' (the store's
 * `storageReservations`), through which the storage endpoint reserves, settles and releases.
 */
export class StorageUsageStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Adds `change` to the scopes without a reservation: for writes the storage endpoint does not
   * make (the control plane's object deletion). `kept`: what the keys written hold now.
   */
  async adjust(scopes: readonly UsageScope[], change: StorageChange, kept?: KeptSizes): Promise<void> {
    if (scopes.length === 0) return;
    const sizes = keptSizes(this.#sql, kept);
    await this.#sql`
      WITH locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE
      ),
      listed AS (
        SELECT 1 FROM locked WHERE locked.scope = ${bucketScope(kept?.bucket ?? '')} AND locked.objects_listed
      ),
      ${sizes.writes}
      UPDATE storage_usage SET
        stored_bytes = greatest(0, stored_bytes + ${change.bytes}),
        stored_objects = greatest(0, stored_objects + ${change.objects})
      WHERE scope IN (SELECT scope FROM locked)`;
  }

  /** The counted scopes among `scopes`. */
  async counted(scopes: readonly UsageScope[]): Promise<Set<UsageScope>> {
    const rows = await this.#sql<{ scope: UsageScope }[]>`
      SELECT scope FROM storage_usage WHERE scope = ANY(${scopes}::text[])`;
    return new Set(rows.map((row) => row.scope));
  }

  /** Every bucket counted now, by name, with its organisation. */
  async countedBuckets(): Promise<{ bucket: string; organisationId: string }[]> {
    const rows = await this.#sql<{ bucket: string; organisation_id: string }[]>`
      SELECT bucket, organisation_id FROM storage_usage WHERE bucket IS NOT NULL ORDER BY bucket`;
    return rows.map((row) => ({ bucket: row.bucket, organisationId: row.organisation_id }));
  }

  /**
   * Sets a counted organisation's row to the sum of its buckets' rows (all counted while it is) and
   * its reserved room to what the reservations hold; false when it is not counted.
   */
  async resumOrganisation(organisationId: string): Promise<boolean> {
    const scope = organisationScope(organisationId);
    return this.#sql.begin(async (transaction) => {
      const sql = inTransaction(transaction);
      const [locked] = await sql<{ scope: UsageScope }[]>`
        SELECT scope FROM storage_usage WHERE organisation_id = ${organisationId}
        ORDER BY scope FOR UPDATE`;
      if (locked === undefined) return false;
      const [row] = await sql<{ scope: UsageScope }[]>`
        UPDATE storage_usage AS usage SET
          stored_bytes = sums.stored_bytes, stored_objects = sums.stored_objects,
          part_bytes = sums.part_bytes, counted_at = now()
        FROM (
          SELECT coalesce(sum(stored_bytes), 0)::bigint AS stored_bytes,
                 coalesce(sum(stored_objects), 0)::bigint AS stored_objects,
                 coalesce(sum(part_bytes), 0)::bigint AS part_bytes
          FROM storage_usage WHERE organisation_id = ${organisationId} AND bucket IS NOT NULL
        ) AS sums
        WHERE usage.scope = ${scope}
        RETURNING usage.scope`;
      if (row === undefined) return false;
      await rebuildReserved(sql, [scope]);
      return true;
    });
  }

  /** Every counted scope of the organisation: its own row (if counted) and its buckets'. */
  async figures(organisationId: string): Promise<StoredFigures[]> {
    const rows = await this.#sql<UsageRow[]>`
      SELECT scope, bucket, stored_bytes, stored_objects, reserved_bytes, reserved_objects, part_bytes, counted_at
      FROM storage_usage WHERE organisation_id = ${organisationId} ORDER BY scope`;
    return rows.map(toFigures);
  }

  /** Every organisation with a limit: its quota and rate, and what it holds while it is counted. */
  async limitedOrganisations(): Promise<LimitedOrganisation[]> {
    const rows = await this.#sql<
      {
        name: string;
        max_bytes: bigint | null;
        max_objects: bigint | null;
        requests_per_second: number | null;
        stored_bytes: bigint | null;
        stored_objects: bigint | null;
        part_bytes: bigint | null;
      }[]
    >`
      SELECT o.name, o.max_bytes, o.max_objects, o.requests_per_second, u.stored_bytes, u.stored_objects,
             u.part_bytes
      FROM organisations AS o
      LEFT JOIN storage_usage AS u ON u.scope = 'organisation:' || o.id::text
      WHERE o.max_bytes IS NOT NULL OR o.max_objects IS NOT NULL OR o.requests_per_second IS NOT NULL
      ORDER BY o.created_at, o.id`;
    return rows.map((row) => ({
      name: row.name,
      maxBytes: countOf(row.max_bytes),
      maxObjects: countOf(row.max_objects),
      requestsPerSecond: row.requests_per_second,
      storedBytes: countOf(row.stored_bytes),
      storedObjects: countOf(row.stored_objects),
      partBytes: countOf(row.part_bytes),
    }));
  }

  /**
   * Sets a bucket's row to a count through the store (creating it: counting starts), and moves its
   * organisation's row, when counted, by the difference. With `count.uploads` (the uploads under
   * way, when the store lists them) the bucket's parts are replaced by those listed; without, they
   * stay as counted. The room reserved is rebuilt from the reservations held. Writes that settle
   * while the listing runs may be missed or counted twice; a later count corrects them.
   */
  async recordBucketCount(
    organisationId: string,
    bucket: string,
    count: BucketCount,
    tx?: Sql,
  ): Promise<void> {
    const run = async (sql: Sql) => {
      const own = bucketScope(bucket);
      const organisation = organisationScope(organisationId);
      await sql`SELECT scope FROM storage_usage WHERE scope = ANY(${[own, organisation]}::text[]) ORDER BY scope FOR UPDATE`;
      const [previous] = await sql<{ stored_bytes: bigint; stored_objects: bigint; part_bytes: bigint }[]>`
        SELECT stored_bytes, stored_objects, part_bytes FROM storage_usage WHERE scope = ${own}`;
      let partBytes = countOf(previous?.part_bytes ?? null) ?? 0;
      if (count.uploads !== undefined) {
        partBytes = await replaceUploads(sql, bucket, count.uploads);
      } else if (previous === undefined) {
        // Counting starts without a list of the uploads under way: none is known.
        await sql`DELETE FROM storage_uploads WHERE bucket = ${bucket}`;
        await sql`DELETE FROM storage_upload_parts WHERE bucket = ${bucket}`;
        partBytes = 0;
      }
      const listed = count.sizes !== undefined;
      await replaceSizes(sql, bucket, count.sizes);
      await sql`
        INSERT INTO storage_usage
          (scope, organisation_id, bucket, stored_bytes, stored_objects, part_bytes, counted_at, objects_listed)
        VALUES (${own}, ${organisationId}, ${bucket}, ${count.bytes}, ${count.objects}, ${partBytes}, now(), ${listed})
        ON CONFLICT (scope) DO UPDATE SET
          stored_bytes = EXCLUDED.stored_bytes, stored_objects = EXCLUDED.stored_objects,
          part_bytes = EXCLUDED.part_bytes, counted_at = now(), objects_listed = EXCLUDED.objects_listed`;
      const bytes = count.bytes - (countOf(previous?.stored_bytes ?? null) ?? 0);
      const objects = count.objects - (countOf(previous?.stored_objects ?? null) ?? 0);
      const parts = partBytes - (countOf(previous?.part_bytes ?? null) ?? 0);
      await sql`
        UPDATE storage_usage SET
          stored_bytes = greatest(0, stored_bytes + ${bytes}),
          stored_objects = greatest(0, stored_objects + ${objects}),
          part_bytes = greatest(0, part_bytes + ${parts})
        WHERE scope = ${organisation}`;
      await rebuildReserved(sql, [own, organisation]);
    };
    if (tx !== undefined) await run(tx);
    else await this.#sql.begin((transaction) => run(inTransaction(transaction)));
  }

  /** A bucket counted from its creation (empty), when its organisation's usage is counted. */
  async startEmptyBucket(organisationId: string, bucket: string, tx?: Sql): Promise<void> {
    await (tx ?? this.#sql)`
      INSERT INTO storage_usage (scope, organisation_id, bucket, objects_listed)
      SELECT ${bucketScope(bucket)}, ${organisationId}, ${bucket}, true
      WHERE EXISTS (SELECT 1 FROM storage_usage WHERE scope = ${organisationScope(organisationId)})
      ON CONFLICT (scope) DO NOTHING`;
  }

  /**
   * Counting starts for the organisation: its row holds the sum of its buckets' rows, which must
   * all be counted already (the caller counts those that are not first).
   */
  async startOrganisation(organisationId: string, tx?: Sql): Promise<void> {
    await (tx ?? this.#sql)`
      INSERT INTO storage_usage (scope, organisation_id, stored_bytes, stored_objects, part_bytes, counted_at)
      SELECT ${organisationScope(organisationId)}, ${organisationId},
             coalesce(sum(stored_bytes), 0), coalesce(sum(stored_objects), 0), coalesce(sum(part_bytes), 0), now()
      FROM storage_usage WHERE organisation_id = ${organisationId} AND bucket IS NOT NULL
      ON CONFLICT (scope) DO NOTHING`;
  }

  /**
   * A bucket that goes: its row goes with it, and its organisation's row, when counted, no longer
   * holds what the bucket's held (an empty bucket's count may be off; it must not stay behind).
   */
  async forgetBucket(organisationId: string, bucket: string, tx?: Sql): Promise<void> {
    const scopes = [bucketScope(bucket), organisationScope(organisationId)];
    await (tx ?? this.#sql)`
      WITH locked AS (
        SELECT scope FROM storage_usage WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE
      ),
      gone AS (
        DELETE FROM storage_usage
        WHERE scope = ${bucketScope(bucket)} AND scope IN (SELECT scope FROM locked)
        RETURNING stored_bytes, stored_objects, part_bytes
      )
      UPDATE storage_usage SET
        stored_bytes = greatest(0, stored_bytes - (SELECT stored_bytes FROM gone)),
        stored_objects = greatest(0, stored_objects - (SELECT stored_objects FROM gone)),
        part_bytes = greatest(0, part_bytes - (SELECT part_bytes FROM gone))
      WHERE scope = ${organisationScope(organisationId)} AND EXISTS (SELECT 1 FROM gone)`;
  }

  /** Counting stops for these scopes (no quota applies to them any more), and for their buckets' parts. */
  async stop(scopes: readonly UsageScope[], tx?: Sql): Promise<void> {
    const buckets = scopes.filter((scope) => scope.startsWith('bucket:')).map((scope) => scope.slice(7));
    const sql = tx ?? this.#sql;
    await sql`DELETE FROM storage_usage WHERE scope = ANY(${scopes}::text[])`;
    await sql`DELETE FROM storage_objects WHERE bucket = ANY(${buckets}::text[])`;
    await sql`DELETE FROM storage_uploads WHERE bucket = ANY(${buckets}::text[])`;
    await sql`DELETE FROM storage_upload_parts WHERE bucket = ANY(${buckets}::text[])`;
  }
}

/** Replaces the bucket's uploads under way by those listed; the bytes their parts hold. */
async function replaceUploads(sql: Sql, bucket: string, uploads: readonly CountedUpload[]): Promise<number> {
  await sql`DELETE FROM storage_uploads WHERE bucket = ${bucket}`;
  await sql`DELETE FROM storage_upload_parts WHERE bucket = ${bucket}`;
  if (uploads.length === 0) return 0;
  await sql`
    INSERT INTO storage_uploads (bucket, upload_id, object_key)
    SELECT ${bucket}, upload_id, object_key
    FROM unnest(${uploads.map((upload) => upload.uploadId)}::text[], ${uploads.map((upload) => upload.key)}::text[])
      AS listed (upload_id, object_key)
    ON CONFLICT DO NOTHING`;
  const parts = uploads.flatMap((upload) =>
    upload.parts.map((part) => ({ uploadId: upload.uploadId, ...part })),
  );
  if (parts.length > 0) {
    await sql`
      INSERT INTO storage_upload_parts (bucket, upload_id, part_number, bytes)
      SELECT ${bucket}, upload_id, part_number, bytes
      FROM unnest(
        ${parts.map((part) => part.uploadId)}::text[],
        ${parts.map((part) => part.partNumber)}::int[],
        ${parts.map((part) => part.bytes)}::bigint[]
      ) AS listed (upload_id, part_number, bytes)
      ON CONFLICT DO NOTHING`;
  }
  return parts.reduce((sum, part) => sum + part.bytes, 0);
}

/** Sets the room reserved in `scopes` (rows locked by the caller) to what the reservations hold. */
async function rebuildReserved(sql: Sql, scopes: readonly UsageScope[]): Promise<void> {
  await sql`
    UPDATE storage_usage AS usage SET
      reserved_bytes = coalesce(held.bytes, 0),
      reserved_objects = coalesce(held.objects, 0)
    FROM (SELECT unnest(${scopes}::text[]) AS scope) AS wanted
    LEFT JOIN (
      SELECT scope, sum(bytes)::bigint AS bytes, sum(objects)::bigint AS objects
      FROM storage_reservations, unnest(scopes) AS scope GROUP BY scope
    ) AS held USING (scope)
    WHERE usage.scope = wanted.scope`;
}
