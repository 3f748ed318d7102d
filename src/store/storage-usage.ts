/**
 * What the object store holds, per bucket and per organisation, counted while a storage quota
 * applies (migration 0003): the rows the quotas are held against. Every change is one statement
 * that first locks the rows it touches in scope order, so concurrent uploads on any instance are
 * serialised on the same rows (PostgreSQL) and never deadlock each other.
 *
 * An upload first reserves room (`reserve`): it fails when the room is not there, atomically, so
 * two uploads cannot both pass a check that only one of them fits. Once the store has answered,
 * `settle` drops the reservation and adds what the store now holds; deletions and counts through
 * the store move `stored_*` directly. A reservation names the instance holding it, so one left by
 * an instance that stopped is released by the others (instances.ts).
 */
import { newId } from '../security/ids.js';
import { countOf, inTransaction, type Sql } from './database.js';
import type { StorageQuota } from './records.js';

/** A row of storage_usage: 'bucket:<name>' or 'organisation:<id>'. */
export type UsageScope = `bucket:${string}` | `organisation:${string}`;

export function bucketScope(bucket: string): UsageScope {
  return `bucket:${bucket}`;
}

export function organisationScope(organisationId: string): UsageScope {
  return `organisation:${organisationId}`;
}

/** A scope and the quota it is held to. */
export interface ScopeQuota extends StorageQuota {
  readonly scope: UsageScope;
}

/** How much an upload or a deletion changes what is stored: bytes and objects, either sign. */
export interface StorageChange {
  readonly bytes: number;
  readonly objects: number;
}

export const NO_CHANGE: StorageChange = Object.freeze({ bytes: 0, objects: 0 });

export type Reservation =
  /** `id` is null when none of the scopes is counted (nothing to hold). */
  | { readonly ok: true; readonly id: string | null; readonly scopes: readonly UsageScope[] }
  /** The scopes whose quota the upload would exceed. */
  | { readonly ok: false; readonly exceeded: readonly UsageScope[] };

export interface StoredFigures {
  readonly scope: UsageScope;
  readonly bucket: string | null;
  readonly storedBytes: number;
  readonly storedObjects: number;
  readonly reservedBytes: number;
  readonly reservedObjects: number;
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
}

interface UsageRow {
  scope: UsageScope;
  bucket: string | null;
  stored_bytes: bigint;
  stored_objects: bigint;
  reserved_bytes: bigint;
  reserved_objects: bigint;
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
    countedAt: row.counted_at,
  };
}

/** The room an upload asks for: what it adds, never less than nothing. */
function room(change: StorageChange): StorageChange {
  return { bytes: Math.max(0, change.bytes), objects: Math.max(0, change.objects) };
}

export class StorageUsageStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Holds room for `change` in every counted scope, or holds nothing and names the scopes whose
   * quota it would exceed. Counted against each quota: stored plus reserved plus the room asked.
   */
  async reserve(
    instanceId: string,
    quotas: readonly ScopeQuota[],
    change: StorageChange,
  ): Promise<Reservation> {
    const { bytes, objects } = room(change);
    const scopes = quotas.map((quota) => quota.scope);
    const id = newId();
    const [row] = await this.#sql<{ over: UsageScope[] | null; held: UsageScope[] | null }[]>`
      WITH wanted AS (
        SELECT * FROM unnest(
          ${scopes}::text[],
          ${quotas.map((quota) => quota.maxBytes)}::bigint[],
          ${quotas.map((quota) => quota.maxObjects)}::bigint[]
        ) AS wanted (scope, max_bytes, max_objects)
      ),
      locked AS (
        SELECT scope, stored_bytes + reserved_bytes AS bytes, stored_objects + reserved_objects AS objects
        FROM storage_usage WHERE scope = ANY(${scopes}::text[])
        ORDER BY scope FOR UPDATE
      ),
      over AS (
        SELECT scope FROM locked JOIN wanted USING (scope)
        WHERE (max_bytes IS NOT NULL AND bytes + ${bytes} > max_bytes)
           OR (max_objects IS NOT NULL AND objects + ${objects} > max_objects)
      ),
      held AS (
        INSERT INTO storage_reservations (id, instance_id, scopes, bytes, objects)
        SELECT ${id}, ${instanceId}, array_agg(scope ORDER BY scope), ${bytes}, ${objects}
        FROM locked WHERE NOT EXISTS (SELECT 1 FROM over)
        HAVING count(*) > 0
        RETURNING scopes
      ),
      raised AS (
        UPDATE storage_usage SET
          reserved_bytes = reserved_bytes + ${bytes},
          reserved_objects = reserved_objects + ${objects}
        WHERE scope IN (SELECT unnest(scopes) FROM held)
        RETURNING scope
      )
      SELECT
        (SELECT array_agg(scope ORDER BY scope) FROM over) AS over,
        (SELECT array_agg(scope ORDER BY scope) FROM raised) AS held`;
    if (row?.over != null) return { ok: false, exceeded: row.over };
    const held = row?.held ?? [];
    return { ok: true, id: held.length === 0 ? null : id, scopes: held };
  }

  /** Whether `change` would fit every quota now, without holding anything (the scopes over, if not). */
  async exceeded(quotas: readonly ScopeQuota[], change: StorageChange): Promise<UsageScope[]> {
    const { bytes, objects } = room(change);
    const rows = await this.#sql<{ scope: UsageScope }[]>`
      SELECT usage.scope FROM storage_usage AS usage
      JOIN unnest(
        ${quotas.map((quota) => quota.scope)}::text[],
        ${quotas.map((quota) => quota.maxBytes)}::bigint[],
        ${quotas.map((quota) => quota.maxObjects)}::bigint[]
      ) AS wanted (scope, max_bytes, max_objects) ON wanted.scope = usage.scope
      WHERE (wanted.max_bytes IS NOT NULL AND usage.stored_bytes + usage.reserved_bytes + ${bytes} > wanted.max_bytes)
         OR (wanted.max_objects IS NOT NULL AND usage.stored_objects + usage.reserved_objects + ${objects} > wanted.max_objects)
      ORDER BY usage.scope`;
    return rows.map((row) => row.scope);
  }

  /**
   * After the store's answer: drops the reservation `id` (when there is one and nobody released it
   * yet) and adds `change` to what the scopes hold (NO_CHANGE when the store stored nothing).
   */
  async settle(id: string | null, scopes: readonly UsageScope[], change: StorageChange): Promise<void> {
    if (scopes.length === 0) return;
    await this.#sql`
      WITH released AS (
        DELETE FROM storage_reservations WHERE id = ${id}::uuid RETURNING bytes, objects
      ),
      locked AS (
        SELECT scope FROM storage_usage WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE
      )
      UPDATE storage_usage SET
        reserved_bytes = greatest(0, reserved_bytes - coalesce((SELECT bytes FROM released), 0)),
        reserved_objects = greatest(0, reserved_objects - coalesce((SELECT objects FROM released), 0)),
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

  /** Every counted scope of the organisation: its own row (if counted) and its buckets'. */
  async figures(organisationId: string): Promise<StoredFigures[]> {
    const rows = await this.#sql<UsageRow[]>`
      SELECT scope, bucket, stored_bytes, stored_objects, reserved_bytes, reserved_objects, counted_at
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
      }[]
    >`
      SELECT o.name, o.max_bytes, o.max_objects, o.requests_per_second, u.stored_bytes, u.stored_objects
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
    }));
  }

  /**
   * Sets a bucket's row to a count through the store (creating it: counting starts), and moves its
   * organisation's row, when counted, by the difference. Writes that settle while the listing runs
   * may be missed or counted twice; a later count corrects them.
   */
  async recordBucketCount(
    organisationId: string,
    bucket: string,
    count: { bytes: number; objects: number },
    tx?: Sql,
  ): Promise<void> {
    const run = async (sql: Sql) => {
      const scopes = [bucketScope(bucket), organisationScope(organisationId)];
      await sql`SELECT scope FROM storage_usage WHERE scope = ANY(${scopes}::text[]) ORDER BY scope FOR UPDATE`;
      const [previous] = await sql<{ stored_bytes: bigint; stored_objects: bigint }[]>`
        SELECT stored_bytes, stored_objects FROM storage_usage WHERE scope = ${bucketScope(bucket)}`;
      await sql`
        INSERT INTO storage_usage (scope, organisation_id, bucket, stored_bytes, stored_objects, counted_at)
        VALUES (${bucketScope(bucket)}, ${organisationId}, ${bucket}, ${count.bytes}, ${count.objects}, now())
        ON CONFLICT (scope) DO UPDATE SET
          stored_bytes = EXCLUDED.stored_bytes, stored_objects = EXCLUDED.stored_objects, counted_at = now()`;
      const bytes = count.bytes - (countOf(previous?.stored_bytes ?? null) ?? 0);
      const objects = count.objects - (countOf(previous?.stored_objects ?? null) ?? 0);
      await sql`
        UPDATE storage_usage SET
          stored_bytes = greatest(0, stored_bytes + ${bytes}),
          stored_objects = greatest(0, stored_objects + ${objects})
        WHERE scope = ${organisationScope(organisationId)}`;
    };
    if (tx !== undefined) await run(tx);
    else await this.#sql.begin((transaction) => run(inTransaction(transaction)));
  }

  /** A bucket counted from its creation (empty), when its organisation's usage is counted. */
  async startEmptyBucket(organisationId: string, bucket: string, tx?: Sql): Promise<void> {
    await (tx ?? this.#sql)`
      INSERT INTO storage_usage (scope, organisation_id, bucket)
      SELECT ${bucketScope(bucket)}, ${organisationId}, ${bucket}
      WHERE EXISTS (SELECT 1 FROM storage_usage WHERE scope = ${organisationScope(organisationId)})
      ON CONFLICT (scope) DO NOTHING`;
  }

  /**
   * Counting starts for the organisation: its row holds the sum of its buckets' rows, which must
   * all be counted already (the caller counts those that are not first).
   */
  async startOrganisation(organisationId: string, tx?: Sql): Promise<void> {
    await (tx ?? this.#sql)`
      INSERT INTO storage_usage (scope, organisation_id, stored_bytes, stored_objects, counted_at)
      SELECT ${organisationScope(organisationId)}, ${organisationId},
             coalesce(sum(stored_bytes), 0), coalesce(sum(stored_objects), 0), now()
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
        RETURNING stored_bytes, stored_objects
      )
      UPDATE storage_usage SET
        stored_bytes = greatest(0, stored_bytes - (SELECT stored_bytes FROM gone)),
        stored_objects = greatest(0, stored_objects - (SELECT stored_objects FROM gone))
      WHERE scope = ${organisationScope(organisationId)} AND EXISTS (SELECT 1 FROM gone)`;
  }

  /** Counting stops for these scopes (no quota applies to them any more). */
  async stop(scopes: readonly UsageScope[], tx?: Sql): Promise<void> {
    await (tx ?? this.#sql)`DELETE FROM storage_usage WHERE scope = ANY(${scopes}::text[])`;
  }
}
