/**
 * The size of every object of a counted bucket (migration 0005), kept so that a counted write reads
 * what it replaces in the statement that holds its key (storage-reservations.ts) instead of asking the
 * store. Complete from the listing that starts a bucket's count (`objects_listed` of its usage
 * row); each counted write keeps what it left under its keys, while it still holds them, in the
 * statement that adds its change to the count: the count is the sum of these sizes. A write whose
 * outcome was not heard keeps nothing, so the two stay in step, and the next write to the key
 * (which replaces whatever the store holds there) brings both back to what the store holds.
 */
import type postgres from 'postgres';
import type { Sql } from './database.js';

/** An object a counted write goes to. */
export interface ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

/**
 * What a write left under keys of a bucket, for the sizes kept of a bucket whose sizes are all
 * known: each key's size now, null where the store holds no object.
 */
export interface KeptSizes {
  readonly bucket: string;
  readonly sizes: ReadonlyMap<string, number | null>;
}

/** What `object` holds now: its size, null for nothing. */
export function keptOf(object: ObjectRef, size: number | null): KeptSizes {
  return { bucket: object.bucket, sizes: new Map([[object.key, size]]) };
}

/**
 * The common table expressions that keep `kept` in storage_objects, for a statement that defines
 * `listed` (a row when the write counts and its bucket has its sizes all known).
 */
export function keptSizes(sql: Sql, kept: KeptSizes | undefined) {
  return keptWrites(sql, kept === undefined ? [] : [kept], sql`EXISTS (SELECT 1 FROM listed)`);
}

/**
 * The same for the writes of a batch (`kept[i]`: what write i left, if anything), for a statement
 * that defines `listed (entry)`: the writes that count, in a bucket whose sizes are all known.
 */
export function keptSizesOfEach(sql: Sql, kept: readonly (KeptSizes | undefined)[]) {
  return keptWrites(sql, kept, sql`written.entry IN (SELECT entry FROM listed)`);
}

function keptWrites(sql: Sql, kept: readonly (KeptSizes | undefined)[], counts: postgres.Fragment) {
  const entries: number[] = [];
  const buckets: string[] = [];
  const keys: string[] = [];
  const sizes: (number | null)[] = [];
  kept.forEach((write, entry) => {
    for (const [key, bytes] of write?.sizes ?? []) {
      entries.push(entry);
      buckets.push(write?.bucket ?? '');
      keys.push(key);
      sizes.push(bytes);
    }
  });
  return {
    writes: sql`
      written AS (
        SELECT * FROM unnest(${entries}::int[], ${buckets}::text[], ${keys}::text[], ${sizes}::bigint[])
          AS written (entry, bucket, object_key, bytes)
        WHERE ${counts}
      ),
      stored AS (
        INSERT INTO storage_objects (bucket, object_key, bytes)
        SELECT bucket, object_key, bytes FROM written WHERE bytes IS NOT NULL
        ORDER BY bucket, object_key
        ON CONFLICT (bucket, object_key) DO UPDATE SET bytes = EXCLUDED.bytes
      ),
      absent AS (
        DELETE FROM storage_objects AS kept USING written
        WHERE written.bytes IS NULL AND kept.bucket = written.bucket AND kept.object_key = written.object_key
      )`,
  };
}

/** Rows written at once when a listing replaces a bucket's sizes. */
const SIZES_PER_STATEMENT = 10_000;

/** Replaces the sizes kept of the bucket's objects by those listed (none kept without a listing). */
export async function replaceSizes(
  sql: Sql,
  bucket: string,
  sizes: ReadonlyMap<string, number> | undefined,
): Promise<void> {
  await sql`DELETE FROM storage_objects WHERE bucket = ${bucket}`;
  const entries = [...(sizes ?? [])];
  for (let start = 0; start < entries.length; start += SIZES_PER_STATEMENT) {
    const slice = entries.slice(start, start + SIZES_PER_STATEMENT);
    await sql`
      INSERT INTO storage_objects (bucket, object_key, bytes)
      SELECT ${bucket}, object_key, bytes
      FROM unnest(${slice.map(([key]) => key)}::text[], ${slice.map(([, bytes]) => bytes)}::bigint[])
        AS listed (object_key, bytes)`;
  }
}

/** Drops the row of a key under which the store holds no object (always safe: it counts as absent). */
export async function forgetAbsent(sql: Sql, object: ObjectRef): Promise<void> {
  await sql`
    DELETE FROM storage_objects
    WHERE bucket = ${object.bucket} AND object_key = ${object.key} AND bytes IS NULL`;
}
