/**
 * What the object store holds, per bucket and per organisation, counted while a storage quota
 * applies (migrations 0003 to 0005): the rows the quotas are held against. Every change of a row
 * first locks the rows it touches in scope order, before it touches a reservation, so concurrent
 * writes on any instance are serialised on the same rows (PostgreSQL) and never deadlock.
 *
 * A write first reserves room (`reserve`): it fails when the room is not there, atomically, so two
 * uploads cannot both pass a check that only one of them fits. The reservation also holds the key
 * the write goes to: a second counted write to the same key (on any instance) finds it held and
 * waits, so what each write replaces is known exactly: read from the sizes kept of the bucket's
 * objects (storage_objects, complete from the listing that started the count), or, for a bucket
 * whose sizes are not all known, asked of the store by the caller. Once the store has answered, `settle`
 * drops the reservation and adds what the store now holds, once: settling a reservation that is
 * gone changes nothing. Against each quota count what is stored, the room reserved and the parts
 * of multipart uploads under way (`part_bytes`, storage-uploads.ts keeps them). A reservation
 * names the instance holding it, so one left by an instance that stopped is released by the
 * others (instances.ts), and an instance frees its own that no write of it holds any more. The
 * storage endpoint writes them through `Database.counters` (database.ts: commits that do not wait
 * for the WAL flush, so a quota's row is not held through one). The reservations and settlements
 * a process has under way at the same moment go in one statement (batches.ts), each answered as
 * if it had gone alone; those under the same quotas take turns, one statement at a time.
 */
import { newId } from '../security/ids.js';
import { countOf, inTransaction, type Sql } from './database.js';
import { Batches, Failed, Lanes } from './batches.js';
import {
  forgetAbsent,
  keptSizes,
  keptSizesOfEach,
  replaceSizes,
  type KeptSizes,
  type ObjectRef,
} from './storage-objects.js';
import {
  bucketScope,
  organisationScope,
  type ScopeQuota,
  type StorageChange,
  type UsageScope,
} from './usage-scopes.js';

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

export type Reservation =
  /**
   * `id` is null when none of the scopes is counted (nothing to hold). `replaced`: the size of the
   * object the write replaces (null: none), read under its hold when the write names its object and
   * the bucket's sizes are all known; undefined otherwise (the store is to be asked).
   */
  | {
      readonly outcome: 'held';
      readonly id: string | null;
      readonly scopes: readonly UsageScope[];
      readonly replaced?: number | null;
    }
  /** The scopes whose quota the upload would exceed. */
  | { readonly outcome: 'over'; readonly exceeded: readonly UsageScope[] }
  /** Another write holds the key. */
  | { readonly outcome: 'busy' };

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

/** A reservation asked for (the arguments of `reserve`). */
interface Asked {
  readonly instanceId: string;
  readonly quotas: readonly ScopeQuota[];
  readonly change: StorageChange;
  readonly heldKey: string | null;
  readonly id: string;
  readonly object: ObjectRef | undefined;
}

/** A reservation settled (the arguments of `settle`, for one reservation). */
interface Settled {
  readonly id: string;
  readonly change: StorageChange;
  readonly kept: KeptSizes | undefined;
}

/** The most reservations (or settlements) one statement carries. */
const BATCH_LARGEST = 64;

/** Reservations whose lane is remembered for their settlement (beyond, they settle in a shared lane). */
const LANES_REMEMBERED = 100_000;

/**
 * The lane of a write under `quotas`: the most shared usage row its statements lock, its
 * organisation's when that is counted (every write of the organisation locks it), else its
 * bucket's. Writes that lock the same row take turns anyway; others never wait for each other.
 */
function laneOf(quotas: readonly ScopeQuota[]): string {
  return quotas.map((quota) => quota.scope).sort((a, b) => (a < b ? 1 : -1))[0] ?? '';
}

/** Runs `alone` for each item in turn; an item whose statement failed gets its error. */
async function eachAlone<Item, Result>(
  items: readonly Item[],
  alone: (item: Item) => Promise<Result>,
): Promise<(Result | Failed)[]> {
  const results: (Result | Failed)[] = [];
  for (const item of items) results.push(await alone(item).catch((error: unknown) => new Failed(error)));
  return results;
}

/** The room an upload asks for: what it adds, never less than nothing. */
export function roomOf(change: StorageChange): StorageChange {
  return { bytes: Math.max(0, change.bytes), objects: Math.max(0, change.objects) };
}

/**
 * The checks against a quota look only at the figures a write adds to: a write that adds nothing
 * (an overwrite by a smaller object, a copy onto itself) passes even while a scope is over a quota
 * that was lowered below what it holds.
 */
export class StorageUsageStore {
  readonly #sql: Sql;
  /**
   * Concurrent reservations and settlements go to the database together (batches.ts), one
   * statement at a time per set of usage rows they lock (a lane: the scopes of the quotas, which a
   * settlement finds by its reservation): statements that wait for each other's locks in
   * PostgreSQL cost it several times the work (BENCHMARKS.md), and writes under other quotas do
   * not wait for them.
   */
  readonly #lanes = new Lanes();
  readonly #reservations = new Batches<Asked, Reservation>(
    (asked) => this.#reserveBatch(asked),
    BATCH_LARGEST,
    this.#lanes,
  );
  readonly #settlements = new Batches<Settled, boolean>(
    (settled) => this.#settleBatch(settled),
    BATCH_LARGEST,
    this.#lanes,
  );
  /** The lane of each reservation this store made whose write is not over yet, by its id. */
  readonly #laneOf = new Map<string, string>();

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Holds room for `change` in every counted scope, and the key `heldKey` (null: none), or holds
   * nothing: 'over' names the scopes whose quota it would exceed, 'busy' says another write
   * holds the key. Counted against each quota: stored, reserved and part bytes plus the room asked.
   * `id` is the reservation's, chosen by the caller so it knows it before the database answers.
   *
   * With `object` (the object the write replaces) in a bucket whose sizes are all known, the size
   * of that object is read in the same statement, as it is once every write before it settled
   * (the upsert reads the latest row, not the statement's snapshot), and the room asked is what
   * `change` adds beyond it: an overwrite asks only for what it adds.
   */
  reserve(
    instanceId: string,
    quotas: readonly ScopeQuota[],
    change: StorageChange,
    heldKey: string | null = null,
    id: string = newId(),
    object?: ObjectRef,
  ): Promise<Reservation> {
    const lane = laneOf(quotas);
    const reserved = this.#reservations.submit(lane, { instanceId, quotas, change, heldKey, id, object });
    return reserved.then((reservation) => {
      if (reservation.outcome === 'held' && reservation.id !== null && this.#laneOf.size < LANES_REMEMBERED)
        this.#laneOf.set(reservation.id, lane);
      return reservation;
    });
  }

  /**
   * The reservations of a batch: together when they all fit, else each alone (to say which fit),
   * and each alone too when the statement failed, so that one write's error is its own.
   */
  async #reserveBatch(asked: readonly Asked[]): Promise<(Reservation | Failed)[]> {
    // A bucket's name holds no slash: bucket/key names one object.
    const objects = asked.flatMap((one) =>
      one.object === undefined ? [] : [`${one.object.bucket}/${one.object.key}`],
    );
    // A statement reads each object once: two writes to one object (never two of one process's,
    // which take turns at its key) go one after the other.
    if (asked.length > 1 && new Set(objects).size === objects.length) {
      const together = await this.#reserveTogether(asked).catch(() => null);
      if (together !== null) return together;
    }
    return eachAlone(asked, (one) => this.#reserveAlone(one));
  }

  async #reserveAlone({ instanceId, quotas, change, heldKey, id, object }: Asked): Promise<Reservation> {
    const scopes = quotas.map((quota) => quota.scope);
    const objectScope = object === undefined ? null : bucketScope(object.bucket);
    const [row] = await this.#sql<
      {
        over: UsageScope[] | null;
        held: UsageScope[] | null;
        counted: number;
        known: boolean;
        replaced: bigint | null;
      }[]
    >`
      WITH wanted AS (
        SELECT * FROM unnest(
          ${scopes}::text[],
          ${quotas.map((quota) => quota.maxBytes)}::bigint[],
          ${quotas.map((quota) => quota.maxObjects)}::bigint[]
        ) AS wanted (scope, max_bytes, max_objects)
      ),
      locked AS (
        SELECT scope, stored_bytes + reserved_bytes + part_bytes AS bytes,
               stored_objects + reserved_objects AS objects, objects_listed
        FROM storage_usage WHERE scope = ANY(${scopes}::text[])
        ORDER BY scope FOR UPDATE
      ),
      touched AS (
        INSERT INTO storage_objects AS kept (bucket, object_key, bytes)
        SELECT ${object?.bucket ?? ''}, ${object?.key ?? ''}, NULL FROM locked
        WHERE locked.scope = ${objectScope}::text AND locked.objects_listed
        ON CONFLICT (bucket, object_key) DO UPDATE SET bytes = kept.bytes
        RETURNING kept.bytes
      ),
      asked AS (
        SELECT count(*) > 0 AS known, max(touched.bytes) AS replaced,
               greatest(0, ${change.bytes}::bigint - coalesce(max(touched.bytes), 0)) AS bytes,
               greatest(0, ${change.objects}::bigint - count(touched.bytes)) AS objects
        FROM touched
      ),
      over AS (
        SELECT scope FROM locked JOIN wanted USING (scope) CROSS JOIN asked
        WHERE (max_bytes IS NOT NULL AND asked.bytes > 0 AND locked.bytes + asked.bytes > max_bytes)
           OR (max_objects IS NOT NULL AND asked.objects > 0 AND locked.objects + asked.objects > max_objects)
      ),
      registered AS (
        INSERT INTO gateway_instances (id) SELECT ${instanceId}::uuid
        WHERE EXISTS (SELECT 1 FROM locked)
        ON CONFLICT (id) DO NOTHING
      ),
      held AS (
        INSERT INTO storage_reservations (id, instance_id, scopes, bytes, objects, held_key)
        SELECT ${id}::uuid, ${instanceId}::uuid, array_agg(scope ORDER BY scope),
               (SELECT bytes FROM asked), (SELECT objects FROM asked), ${heldKey}
        FROM locked WHERE NOT EXISTS (SELECT 1 FROM over)
        HAVING count(*) > 0
        ON CONFLICT (held_key) DO NOTHING
        RETURNING scopes, bytes, objects
      ),
      raised AS (
        UPDATE storage_usage SET
          reserved_bytes = reserved_bytes + held.bytes,
          reserved_objects = reserved_objects + held.objects
        FROM held
        WHERE storage_usage.scope = ANY(held.scopes)
        RETURNING storage_usage.scope
      )
      SELECT
        (SELECT array_agg(scope ORDER BY scope) FROM over) AS over,
        (SELECT array_agg(scope ORDER BY scope) FROM raised) AS held,
        (SELECT count(*)::int FROM locked) AS counted,
        (SELECT known FROM asked) AS known,
        (SELECT replaced FROM asked) AS replaced`;
    const replaced = row?.known === true ? countOf(row.replaced) : undefined;
    if (row?.over != null) {
      // The statement marked the absent key it read; a refused write leaves no mark behind.
      if (object !== undefined && replaced === null) await forgetAbsent(this.#sql, object);
      return { outcome: 'over', exceeded: row.over };
    }
    if ((row?.counted ?? 0) === 0) return { outcome: 'held', id: null, scopes: [] };
    if (row?.held == null) return { outcome: 'busy' };
    return replaced === undefined
      ? { outcome: 'held', id, scopes: row.held }
      : { outcome: 'held', id, scopes: row.held, replaced };
  }

  /**
   * The reservations of a batch in one statement, read and checked as `#reserveAlone` does each:
   * null (nothing held) when what they ask together would exceed a quota, for them to be asked
   * again one by one, so that those that fit are held and the others refused as if alone.
   */
  async #reserveTogether(asked: readonly Asked[]): Promise<Reservation[] | null> {
    const wanted = asked.flatMap((one, entry) => one.quotas.map((quota) => ({ entry, ...quota })));
    const [row] = await this.#sql<
      {
        over: boolean;
        entries: {
          entry: number;
          known: boolean;
          replaced: number | null;
          scopes: UsageScope[] | null;
          held: boolean;
        }[];
      }[]
    >`
      WITH entry AS (
        SELECT * FROM unnest(
          ${asked.map((_, entry) => entry)}::int[],
          ${asked.map((one) => one.id)}::uuid[],
          ${asked.map((one) => one.instanceId)}::uuid[],
          ${asked.map((one) => one.heldKey)}::text[],
          ${asked.map((one) => one.object?.bucket ?? null)}::text[],
          ${asked.map((one) => one.object?.key ?? null)}::text[],
          ${asked.map((one) => one.change.bytes)}::bigint[],
          ${asked.map((one) => one.change.objects)}::bigint[]
        ) AS entry (entry, id, instance_id, held_key, bucket, object_key, bytes, objects)
      ),
      wanted AS (
        SELECT * FROM unnest(
          ${wanted.map((one) => one.entry)}::int[],
          ${wanted.map((one) => one.scope)}::text[],
          ${wanted.map((one) => one.maxBytes)}::bigint[],
          ${wanted.map((one) => one.maxObjects)}::bigint[]
        ) AS wanted (entry, scope, max_bytes, max_objects)
      ),
      locked AS (
        SELECT scope, stored_bytes + reserved_bytes + part_bytes AS used_bytes,
               stored_objects + reserved_objects AS used_objects, objects_listed
        FROM storage_usage WHERE scope IN (SELECT scope FROM wanted)
        ORDER BY scope FOR UPDATE
      ),
      touched AS (
        INSERT INTO storage_objects AS kept (bucket, object_key, bytes)
        SELECT entry.bucket, entry.object_key, NULL FROM entry
        JOIN locked ON locked.scope = 'bucket:' || entry.bucket AND locked.objects_listed
        WHERE entry.object_key IS NOT NULL
        ORDER BY entry.bucket, entry.object_key
        ON CONFLICT (bucket, object_key) DO UPDATE SET bytes = kept.bytes
        RETURNING kept.bucket, kept.object_key, kept.bytes
      ),
      asked AS (
        SELECT entry.entry, entry.id, entry.instance_id, entry.held_key,
               touched.object_key IS NOT NULL AS known, touched.bytes AS replaced,
               greatest(0, entry.bytes - coalesce(touched.bytes, 0)) AS bytes,
               greatest(0, entry.objects - (touched.bytes IS NOT NULL)::int) AS objects
        FROM entry
        LEFT JOIN touched ON touched.bucket = entry.bucket AND touched.object_key = entry.object_key
      ),
      placed AS (
        SELECT wanted.entry, array_agg(locked.scope ORDER BY locked.scope) AS scopes
        FROM wanted JOIN locked ON locked.scope = wanted.scope
        GROUP BY wanted.entry
      ),
      per_scope AS (
        SELECT wanted.scope, min(wanted.max_bytes) AS max_bytes, min(wanted.max_objects) AS max_objects,
               sum(asked.bytes) AS bytes, sum(asked.objects) AS objects
        FROM wanted JOIN asked ON asked.entry = wanted.entry
        GROUP BY wanted.scope
      ),
      over AS (
        SELECT locked.scope FROM locked JOIN per_scope ON per_scope.scope = locked.scope
        WHERE (per_scope.max_bytes IS NOT NULL AND per_scope.bytes > 0
               AND locked.used_bytes + per_scope.bytes > per_scope.max_bytes)
           OR (per_scope.max_objects IS NOT NULL AND per_scope.objects > 0
               AND locked.used_objects + per_scope.objects > per_scope.max_objects)
      ),
      registered AS (
        INSERT INTO gateway_instances (id)
        SELECT DISTINCT instance_id FROM entry WHERE EXISTS (SELECT 1 FROM locked)
        ON CONFLICT (id) DO NOTHING
      ),
      held AS (
        INSERT INTO storage_reservations (id, instance_id, scopes, bytes, objects, held_key)
        SELECT asked.id, asked.instance_id, placed.scopes, asked.bytes, asked.objects, asked.held_key
        FROM asked JOIN placed ON placed.entry = asked.entry
        WHERE NOT EXISTS (SELECT 1 FROM over)
        ORDER BY asked.held_key
        ON CONFLICT (held_key) DO NOTHING
        RETURNING id, scopes, bytes, objects
      ),
      raised AS (
        UPDATE storage_usage SET
          reserved_bytes = reserved_bytes + per_held.bytes,
          reserved_objects = reserved_objects + per_held.objects
        FROM (
          SELECT scope, sum(held.bytes)::bigint AS bytes, sum(held.objects)::bigint AS objects
          FROM held, unnest(held.scopes) AS scope GROUP BY scope
        ) AS per_held
        WHERE storage_usage.scope = per_held.scope
      )
      SELECT EXISTS (SELECT 1 FROM over) AS over,
             (SELECT json_agg(json_build_object(
                'entry', asked.entry, 'known', asked.known, 'replaced', asked.replaced,
                'scopes', placed.scopes, 'held', held.id IS NOT NULL))
              FROM asked
              LEFT JOIN placed ON placed.entry = asked.entry
              LEFT JOIN held ON held.id = asked.id) AS entries`;
    if (row === undefined || row.over) return null;
    const byEntry = new Map(row.entries.map((entry) => [entry.entry, entry]));
    return asked.map((one, index): Reservation => {
      const entry = byEntry.get(index);
      if (entry?.scopes == null) return { outcome: 'held', id: null, scopes: [] };
      if (!entry.held) return { outcome: 'busy' };
      return entry.known
        ? { outcome: 'held', id: one.id, scopes: entry.scopes, replaced: entry.replaced }
        : { outcome: 'held', id: one.id, scopes: entry.scopes };
    });
  }

  /**
   * Adds room for `change` to the reservation `id` when it fits every quota; the scopes it would
   * exceed otherwise (the reservation is then as it was).
   */
  async grow(id: string, quotas: readonly ScopeQuota[], change: StorageChange): Promise<UsageScope[]> {
    const { bytes, objects } = roomOf(change);
    if (bytes === 0 && objects === 0) return [];
    const scopes = quotas.map((quota) => quota.scope);
    const [row] = await this.#sql<{ over: UsageScope[] | null }[]>`
      WITH wanted AS (
        SELECT * FROM unnest(
          ${scopes}::text[],
          ${quotas.map((quota) => quota.maxBytes)}::bigint[],
          ${quotas.map((quota) => quota.maxObjects)}::bigint[]
        ) AS wanted (scope, max_bytes, max_objects)
      ),
      locked AS (
        SELECT scope, stored_bytes + reserved_bytes + part_bytes AS bytes,
               stored_objects + reserved_objects AS objects
        FROM storage_usage WHERE scope = ANY(${scopes}::text[])
        ORDER BY scope FOR UPDATE
      ),
      over AS (
        SELECT scope FROM locked JOIN wanted USING (scope)
        WHERE (max_bytes IS NOT NULL AND ${bytes}::bigint > 0 AND bytes + ${bytes} > max_bytes)
           OR (max_objects IS NOT NULL AND ${objects}::bigint > 0 AND objects + ${objects} > max_objects)
      ),
      grown AS (
        UPDATE storage_reservations SET bytes = bytes + ${bytes}, objects = objects + ${objects}
        WHERE id = ${id}::uuid AND NOT EXISTS (SELECT 1 FROM over)
          AND (SELECT count(*) FROM locked) >= 0
        RETURNING scopes
      ),
      raised AS (
        UPDATE storage_usage SET
          reserved_bytes = reserved_bytes + ${bytes},
          reserved_objects = reserved_objects + ${objects}
        WHERE scope IN (SELECT unnest(scopes) FROM grown)
        RETURNING scope
      )
      SELECT (SELECT array_agg(scope ORDER BY scope) FROM over) AS over, (SELECT count(*) FROM raised) AS raised`;
    return row?.over ?? [];
  }

  /**
   * Holds each of `keys` for a write that reserves no room (a deletion), all or none: null when
   * another write holds one of them. The ids of the holds, to settle, and with `objects` (the
   * objects the keys name, in a bucket whose sizes are all known) what each of them holds, read
   * like `reserve` reads it.
   */
  async hold(
    instanceId: string,
    scopes: readonly UsageScope[],
    keys: readonly string[],
    objects?: { readonly bucket: string; readonly keys: readonly string[] },
  ): Promise<{ ids: string[]; sizes?: Map<string, number | null> } | null> {
    if (keys.length === 0) return { ids: [] };
    const ids = keys.map(() => newId());
    const wanted = [...(objects?.keys ?? [])].sort();
    const [row] = await this.#sql<
      { held: string[] | null; sizes: { key: string; bytes: number | null }[] | null }[]
    >`
      WITH registered AS (
        INSERT INTO gateway_instances (id) VALUES (${instanceId}::uuid) ON CONFLICT (id) DO NOTHING
      ),
      locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE
      ),
      listed AS (
        SELECT 1 FROM locked WHERE scope = ${bucketScope(objects?.bucket ?? '')} AND objects_listed
      ),
      touched AS (
        INSERT INTO storage_objects AS kept (bucket, object_key, bytes)
        SELECT ${objects?.bucket ?? ''}, object_key, NULL
        FROM unnest(${wanted}::text[]) AS wanted (object_key)
        WHERE EXISTS (SELECT 1 FROM listed)
        ORDER BY object_key
        ON CONFLICT (bucket, object_key) DO UPDATE SET bytes = kept.bytes
        RETURNING kept.object_key, kept.bytes
      ),
      held AS (
        INSERT INTO storage_reservations (id, instance_id, scopes, bytes, objects, held_key)
        SELECT id, ${instanceId}::uuid, ${[...scopes].sort()}::text[], 0, 0, held_key
        FROM unnest(${ids}::uuid[], ${keys}::text[]) AS wanted (id, held_key)
        -- After the rows are locked: the usage rows first, as every write of storage_objects does.
        WHERE (SELECT count(*) FROM touched) >= 0
        ON CONFLICT (held_key) DO NOTHING
        RETURNING id
      )
      SELECT (SELECT array_agg(id) FROM held) AS held,
             (SELECT json_agg(json_build_object('key', object_key, 'bytes', bytes))
              FROM touched) AS sizes`;
    const heldIds = row?.held ?? [];
    if (heldIds.length < keys.length) {
      // Reserving no room, they changed no usage row: letting them go is just deleting them.
      await this.#sql`DELETE FROM storage_reservations WHERE id = ANY(${heldIds}::uuid[])`;
      return null;
    }
    const touched = row?.sizes ?? [];
    if (objects === undefined || touched.length < wanted.length) return { ids };
    return { ids, sizes: new Map(touched.map((size) => [size.key, size.bytes])) };
  }

  /** Whether `change` would fit every quota now, without holding anything (the scopes over, if not). */
  async exceeded(quotas: readonly ScopeQuota[], change: StorageChange): Promise<UsageScope[]> {
    const { bytes, objects } = roomOf(change);
    if (bytes === 0 && objects === 0) return [];
    const rows = await this.#sql<{ scope: UsageScope }[]>`
      SELECT usage.scope FROM storage_usage AS usage
      JOIN unnest(
        ${quotas.map((quota) => quota.scope)}::text[],
        ${quotas.map((quota) => quota.maxBytes)}::bigint[],
        ${quotas.map((quota) => quota.maxObjects)}::bigint[]
      ) AS wanted (scope, max_bytes, max_objects) ON wanted.scope = usage.scope
      WHERE (wanted.max_bytes IS NOT NULL AND ${bytes}::bigint > 0
             AND usage.stored_bytes + usage.reserved_bytes + usage.part_bytes + ${bytes} > wanted.max_bytes)
         OR (wanted.max_objects IS NOT NULL AND ${objects}::bigint > 0
             AND usage.stored_objects + usage.reserved_objects + ${objects} > wanted.max_objects)
      ORDER BY usage.scope`;
    return rows.map((row) => row.scope);
  }

  /**
   * After the store's answer: drops the reservations `ids` and adds `change` to what their scopes
   * hold (NO_CHANGE when the store stored nothing), once: reservations already gone (settled, or
   * released with an instance that was forgotten) change nothing. `kept`: what the keys of the
   * write hold now, kept while the bucket's sizes are all known. Whether the reservations were
   * still there.
   */
  settle(ids: string | readonly string[], change: StorageChange, kept?: KeptSizes): Promise<boolean> {
    const list = typeof ids === 'string' ? [ids] : [...ids];
    if (list.length === 0) return Promise.resolve(false);
    const [only] = list;
    if (list.length === 1 && only !== undefined)
      return this.#settlements.submit(this.#laneOf.get(only) ?? '', { id: only, change, kept });
    return this.#settleAlone(list, change, kept);
  }

  /** The writes of `ids` are over (settled, or given up): the lanes of their reservations go. */
  forgetWrites(ids: readonly string[]): void {
    for (const id of ids) this.#laneOf.delete(id);
  }

  /**
   * The settlements of a batch: together, or each alone when one reservation is named twice (the
   * second changes nothing, as alone) or when the statement failed.
   */
  async #settleBatch(settled: readonly Settled[]): Promise<(boolean | Failed)[]> {
    if (settled.length > 1 && new Set(settled.map((one) => one.id)).size === settled.length) {
      const together = await this.#settleTogether(settled).catch(() => null);
      if (together !== null) return together;
    }
    return eachAlone(settled, (one) => this.#settleAlone([one.id], one.change, one.kept));
  }

  /** The settlements of a batch in one statement, each as `#settleAlone` makes it. */
  async #settleTogether(settled: readonly Settled[]): Promise<boolean[]> {
    const sizes = keptSizesOfEach(
      this.#sql,
      settled.map((one) => one.kept),
    );
    const [row] = await this.#sql<{ settled: number[] | null }[]>`
      WITH entry AS (
        SELECT * FROM unnest(
          ${settled.map((_, entry) => entry)}::int[],
          ${settled.map((one) => one.id)}::uuid[],
          ${settled.map((one) => one.change.bytes)}::bigint[],
          ${settled.map((one) => one.change.objects)}::bigint[],
          ${settled.map((one) => one.kept?.bucket ?? null)}::text[]
        ) AS entry (entry, id, bytes, objects, bucket)
      ),
      target AS (
        SELECT DISTINCT unnest(scopes) AS scope FROM storage_reservations
        WHERE id IN (SELECT id FROM entry)
      ),
      locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      released AS (
        DELETE FROM storage_reservations
        WHERE id IN (SELECT id FROM entry) AND (SELECT count(*) FROM locked) >= 0
        RETURNING id, scopes, bytes, objects
      ),
      done AS (
        SELECT entry.entry, entry.bucket, entry.bytes AS stored_bytes, entry.objects AS stored_objects,
               released.scopes, released.bytes AS reserved_bytes, released.objects AS reserved_objects
        FROM entry JOIN released ON released.id = entry.id
      ),
      per_scope AS (
        SELECT scope, sum(reserved_bytes)::bigint AS reserved_bytes,
               sum(reserved_objects)::bigint AS reserved_objects,
               sum(stored_bytes)::bigint AS stored_bytes, sum(stored_objects)::bigint AS stored_objects
        FROM done, unnest(done.scopes) AS scope GROUP BY scope
      ),
      listed AS (
        SELECT done.entry FROM done
        JOIN locked ON locked.scope = 'bucket:' || done.bucket AND locked.objects_listed
        WHERE locked.scope = ANY(done.scopes)
      ),
      ${sizes.writes},
      changed AS (
        UPDATE storage_usage AS usage SET
          reserved_bytes = greatest(0, usage.reserved_bytes - per_scope.reserved_bytes),
          reserved_objects = greatest(0, usage.reserved_objects - per_scope.reserved_objects),
          stored_bytes = greatest(0, usage.stored_bytes + per_scope.stored_bytes),
          stored_objects = greatest(0, usage.stored_objects + per_scope.stored_objects)
        FROM per_scope
        WHERE usage.scope = per_scope.scope AND usage.scope IN (SELECT scope FROM locked)
      )
      SELECT (SELECT array_agg(entry) FROM done) AS settled`;
    const done = new Set(row?.settled ?? []);
    return settled.map((_, entry) => done.has(entry));
  }

  async #settleAlone(list: readonly string[], change: StorageChange, kept?: KeptSizes): Promise<boolean> {
    const sizes = keptSizes(this.#sql, kept);
    const [row] = await this.#sql<{ released: number }[]>`
      WITH target AS (
        SELECT DISTINCT unnest(scopes) AS scope FROM storage_reservations WHERE id = ANY(${list}::uuid[])
      ),
      locked AS (
        SELECT scope, objects_listed FROM storage_usage
        WHERE scope IN (SELECT scope FROM target) ORDER BY scope FOR UPDATE
      ),
      released AS (
        DELETE FROM storage_reservations
        WHERE id = ANY(${list}::uuid[]) AND (SELECT count(*) FROM locked) >= 0
        RETURNING bytes, objects
      ),
      totals AS (
        SELECT count(*)::int AS released, coalesce(sum(bytes), 0)::bigint AS bytes,
               coalesce(sum(objects), 0)::bigint AS objects
        FROM released
      ),
      listed AS (
        SELECT 1 FROM locked, totals
        WHERE locked.scope = ${bucketScope(kept?.bucket ?? '')} AND locked.objects_listed AND totals.released > 0
      ),
      ${sizes.writes},
      changed AS (
        UPDATE storage_usage SET
          reserved_bytes = greatest(0, reserved_bytes - totals.bytes),
          reserved_objects = greatest(0, reserved_objects - totals.objects),
          stored_bytes = greatest(0, stored_bytes + ${change.bytes}),
          stored_objects = greatest(0, stored_objects + ${change.objects})
        FROM totals
        WHERE totals.released > 0 AND storage_usage.scope IN (SELECT scope FROM locked)
      )
      SELECT released FROM totals`;
    return (row?.released ?? 0) > 0;
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

  /** Releases the reservations of processes no longer registered (instances.ts forgets the silent). */
  releaseOrphaned(): Promise<number> {
    return this.#release(
      (sql) => sql<{ id: string; scopes: UsageScope[] }[]>`
        SELECT id, scopes FROM storage_reservations AS reservation
        WHERE NOT EXISTS (
          SELECT 1 FROM gateway_instances AS instance WHERE instance.id = reservation.instance_id
        )`,
    );
  }

  /**
   * Releases this instance's reservations that none of its writes holds any more (`inFlight`:
   * those that do), older than `olderThanSeconds`: a settle that could not reach the database.
   */
  releaseStale(instanceId: string, inFlight: readonly string[], olderThanSeconds: number): Promise<number> {
    return this.#release(
      (sql) => sql<{ id: string; scopes: UsageScope[] }[]>`
        SELECT id, scopes FROM storage_reservations
        WHERE instance_id = ${instanceId}::uuid AND id <> ALL(${[...inFlight]}::uuid[])
          AND created_at < now() - make_interval(secs => ${olderThanSeconds})`,
    );
  }

  /**
   * Releases the reservations `find` names: their room goes back to each scope. The candidates are
   * read first, then their rows are locked in scope order before the reservations go, like every
   * other change. The number released.
   */
  async #release(find: (sql: Sql) => Promise<{ id: string; scopes: UsageScope[] }[]>): Promise<number> {
    const candidates = await find(this.#sql);
    if (candidates.length === 0) return 0;
    const ids = candidates.map((candidate) => candidate.id);
    const scopes = [...new Set(candidates.flatMap((candidate) => candidate.scopes))].sort();
    const [row] = await this.#sql<{ released: number }[]>`
      WITH locked AS (
        SELECT scope FROM storage_usage WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE
      ),
      released AS (
        DELETE FROM storage_reservations
        WHERE id = ANY(${ids}::uuid[]) AND (SELECT count(*) FROM locked) >= 0
        RETURNING scopes, bytes, objects
      ),
      per_scope AS (
        SELECT scope, sum(bytes)::bigint AS bytes, sum(objects)::bigint AS objects
        FROM released, unnest(released.scopes) AS scope GROUP BY scope
      ),
      changed AS (
        UPDATE storage_usage AS usage SET
          reserved_bytes = greatest(0, usage.reserved_bytes - per_scope.bytes),
          reserved_objects = greatest(0, usage.reserved_objects - per_scope.objects)
        FROM per_scope
        WHERE usage.scope = per_scope.scope AND usage.scope IN (SELECT scope FROM locked)
      )
      SELECT count(*)::int AS released FROM released`;
    return row?.released ?? 0;
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
