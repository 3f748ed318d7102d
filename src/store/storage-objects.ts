/**
 * The size of every object of a counted bucket (migration 0005), kept so that a counted write reads
 * what it replaces in the statement that holds its key (storage-reservations.ts) instead of asking the
 * store. Complete from the listing that starts a bucket's count (`objects_listed` of its usage
 * row); each counted write keeps what it left under its keys, while it still holds them, in the
 * statement that adds its change to the count: the count is the sum of these sizes. A write whose
 * outcome was not heard keeps nothing, so the two stay in step, and the next write to the key
 * (which replaces whatever the store holds there) brings both back to what the store holds.
 * Uploads admitted from a lease hold no key: their records change a row relative to what it holds
 * and only when they are the later write, told by the stamp every row written since migration 0006
 * carries (storage-records.ts); a deletion leaves a stamped row without a size, a tombstone.
 */
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';
import type { Sql } from './database.js';

/** An object a counted write goes to. */
export interface ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

/**
 * Which write a row holds: the process that made it and the interval it was in flight at the
 * store, from sending to the answer, in microseconds since the epoch on that process's clock
 * (migration 0006). Writes to one key are ordered by it (storage-records.ts).
 */
export interface WriteStamp {
  readonly writer: string;
  readonly from: number;
  readonly until: number;
}

/** Now, in microseconds since the epoch, as write stamps count. */
export function stampClock(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/**
 * What a write left under keys of a bucket, for the sizes kept of a bucket whose sizes are all
 * known: each key's size now, null where the store holds no object. With `stamp` (a write the
 * store answered), each key's row names that write, and a key left empty keeps a row with no size
 * (a tombstone); without, a key left empty loses its row (the mark a refused write made).
 */
export interface KeptSizes {
  readonly bucket: string;
  readonly sizes: ReadonlyMap<string, number | null>;
  readonly stamp?: WriteStamp;
}

/** What `object` holds now: its size, null for nothing; `stamp`: the write that left it so. */
export function keptOf(object: ObjectRef, size: number | null, stamp?: WriteStamp): KeptSizes {
  const sizes = new Map([[object.key, size]]);
  return stamp === undefined ? { bucket: object.bucket, sizes } : { bucket: object.bucket, sizes, stamp };
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
  const writers: (string | null)[] = [];
  const froms: (number | null)[] = [];
  const untils: (number | null)[] = [];
  kept.forEach((write, entry) => {
    for (const [key, bytes] of write?.sizes ?? []) {
      entries.push(entry);
      buckets.push(write?.bucket ?? '');
      keys.push(key);
      sizes.push(bytes);
      writers.push(write?.stamp?.writer ?? null);
      froms.push(write?.stamp?.from ?? null);
      untils.push(write?.stamp?.until ?? null);
    }
  });
  return {
    writes: sql`
      written AS (
        SELECT * FROM unnest(
          ${entries}::int[], ${buckets}::text[], ${keys}::text[], ${sizes}::bigint[],
          ${writers}::uuid[], ${froms}::bigint[], ${untils}::bigint[]
        ) AS written (entry, bucket, object_key, bytes, writer, written_from, written_until)
        WHERE ${counts}
      ),
      stored AS (
        INSERT INTO storage_objects (bucket, object_key, bytes, writer, written_from, written_until)
        SELECT bucket, object_key, bytes, writer, written_from, written_until FROM written
        WHERE bytes IS NOT NULL OR written_until IS NOT NULL
        ORDER BY bucket, object_key
        ON CONFLICT (bucket, object_key) DO UPDATE SET
          bytes = EXCLUDED.bytes, writer = EXCLUDED.writer,
          written_from = EXCLUDED.written_from, written_until = EXCLUDED.written_until
      ),
      absent AS (
        DELETE FROM storage_objects AS kept USING written
        WHERE written.bytes IS NULL AND written.written_until IS NULL
          AND NOT (kept.bytes IS NULL AND kept.written_until IS NOT NULL)
          AND kept.bucket = written.bucket AND kept.object_key = written.object_key
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

/**
 * Drops the mark a refused write made on a key under which the store holds no object (always safe:
 * it counts as absent); a deletion's tombstone stays.
 */
export async function forgetAbsent(sql: Sql, object: ObjectRef): Promise<void> {
  await sql`
    DELETE FROM storage_objects
    WHERE bucket = ${object.bucket} AND object_key = ${object.key} AND bytes IS NULL
      AND written_until IS NULL`;
}

/** How long a deletion's tombstone is kept: far longer than any record waits to be written. */
const TOMBSTONE_MICROS = 3_600_000_000;
/**
 * Rows a sweep's step reads, in primary-key order: at one step per heartbeat, a process walks a
 * table of ten million objects in under three hours, whatever the table's size costing the
 * database the same small range scan each time.
 */
const SWEEP_SLICE_ROWS = 2_000;

/** What one step of a TombstoneSweep did. */
export interface SweepStep {
  /** Tombstones older than an hour it dropped. */
  readonly forgotten: number;
  /** It reached the last row: the next step starts from the first again. */
  readonly wrapped: boolean;
}

/**
 * Drops the deletions' tombstones older than an hour, a slice of storage_objects at a time in
 * primary-key order. No index names tombstones: one would cover columns every recorded upload
 * changes and keep those updates from staying heap-only (migration 0007).
 */
export class TombstoneSweep {
  readonly #sql: Sql;
  readonly #sliceRows: number;
  /** The last row of the previous step; null to start from the first. */
  #after: ObjectRef | null = null;

  constructor(sql: Sql, sliceRows = SWEEP_SLICE_ROWS) {
    this.#sql = sql;
    this.#sliceRows = sliceRows;
  }

  async step(): Promise<SweepStep> {
    const after = this.#after;
    const sql = this.#sql;
    // The delete reads the slice's range of the primary key again (a join with the slice's rows
    // was planned as a scan of the whole table), and tests each row as it is when deleted: one
    // written since the slice was read stays.
    const afterLast =
      after === null ? sql`true` : sql`(kept.bucket, kept.object_key) > (${after.bucket}, ${after.key})`;
    const [row] = await sql<
      { seen: number; forgotten: number; bucket: string | null; object_key: string | null }[]
    >`
      WITH slice AS (
        SELECT bucket, object_key FROM storage_objects AS kept WHERE ${afterLast}
        ORDER BY bucket, object_key
        LIMIT ${this.#sliceRows}
      ),
      last AS (SELECT bucket, object_key FROM slice ORDER BY bucket DESC, object_key DESC LIMIT 1),
      gone AS (
        DELETE FROM storage_objects AS kept
        WHERE ${afterLast}
          AND (kept.bucket, kept.object_key) <= ((SELECT bucket FROM last), (SELECT object_key FROM last))
          AND kept.bytes IS NULL AND kept.written_until < ${stampClock() - TOMBSTONE_MICROS}::bigint
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM slice)::int AS seen, (SELECT count(*) FROM gone)::int AS forgotten,
             (SELECT bucket FROM last) AS bucket, (SELECT object_key FROM last) AS object_key`;
    const wrapped =
      row === undefined || row.seen < this.#sliceRows || row.bucket === null || row.object_key === null;
    this.#after = wrapped ? null : { bucket: row.bucket as string, key: row.object_key as string };
    return { forgotten: row?.forgotten ?? 0, wrapped };
  }
}
