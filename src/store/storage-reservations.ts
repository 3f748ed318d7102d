/**
 * The room reserved in the usage rows (storage-usage.ts) for the writes under way, and the keys
 * they hold. Like every change of a row, each statement locks the usage rows it touches in scope
 * order before it touches a reservation.
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
import type postgres from 'postgres';
import { newId } from '../security/ids.js';
import { countOf, type Sql } from './database.js';
import { Batches, Failed, Lanes } from './batches.js';
import {
  forgetAbsent,
  keptSizes,
  keptSizesOfEach,
  type KeptSizes,
  type ObjectRef,
} from './storage-objects.js';
import { bucketScope, type ScopeQuota, type StorageChange, type UsageScope } from './usage-scopes.js';

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

/** The quotas a statement checks, as rows `wanted (scope, max_bytes, max_objects)`. */
function wantedQuotas(sql: Sql, quotas: readonly ScopeQuota[]): postgres.Fragment {
  return sql`unnest(
    ${quotas.map((quota) => quota.scope)}::text[],
    ${quotas.map((quota) => quota.maxBytes)}::bigint[],
    ${quotas.map((quota) => quota.maxObjects)}::bigint[]
  ) AS wanted (scope, max_bytes, max_objects)`;
}

/**
 * The common table expressions `wanted` (wantedQuotas) and `locked`: the usage rows of the quotas'
 * scopes, locked in scope order, with what each counts against its quota (`bytes`, `objects`) and
 * whether its bucket's sizes are all known.
 */
export function quotaRows(sql: Sql, quotas: readonly ScopeQuota[]): postgres.Fragment {
  return sql`
      wanted AS (SELECT * FROM ${wantedQuotas(sql, quotas)}),
      locked AS (
        SELECT scope, stored_bytes + reserved_bytes + part_bytes AS bytes,
               stored_objects + reserved_objects AS objects, objects_listed
        FROM storage_usage WHERE scope = ANY(${quotas.map((quota) => quota.scope)}::text[])
        ORDER BY scope FOR UPDATE
      )`;
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
export class StorageReservations {
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
      WITH ${quotaRows(this.#sql, quotas)},
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
      WITH wanted AS (SELECT * FROM ${wantedQuotas(this.#sql, quotas)}),
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
      JOIN ${wantedQuotas(this.#sql, quotas)} ON wanted.scope = usage.scope
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

  /** Releases the reservations (or leases, storage-leases.ts) `ids`: their room goes back. How many. */
  release(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return Promise.resolve(0);
    return this.#release(
      (sql) => sql<{ id: string; scopes: UsageScope[] }[]>`
        SELECT id, scopes FROM storage_reservations WHERE id = ANY(${[...ids]}::uuid[])`,
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
}
