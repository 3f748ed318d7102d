/**
 * When a storage quota first applies to a bucket (its own, or its organisation's), what the store
 * already holds there is counted by listing the bucket through the store; from then on the storage
 * endpoint moves the count with every write (s3/limits/storage-quotas.ts). When no quota applies any more,
 * counting stops. A recount (`npm run admin -- recount-usage <bucket>`) lists the bucket again and
 * sets its count to what the store holds.
 *
 * Listing happens before the transaction that sets the quota, and the count is recorded inside it:
 * the storage endpoint starts accounting once it sees the quota, so a write landing in between can
 * be missed; a recount corrects it.
 */
import type { DeleteResult, ObjectStoreBackend } from '../../backend/object-store.js';
import { newId } from '../../security/ids.js';
import type { Sql } from '../../store/database.js';
import type { Store } from '../../store/index.js';
import type { BucketRecord, StorageQuota } from '../../store/records.js';
import { stampClock } from '../../store/storage-objects.js';
import type { BucketCount } from '../../store/storage-usage.js';
import { bucketScope, organisationScope, quotaApplies, type UsageScope } from '../../store/usage-scopes.js';

/** ListObjectsV2's largest page. */
const PAGE = 1000;
/** Size lookups in flight at once before a deletion of many keys. */
const CONCURRENT_LOOKUPS = 8;

/**
 * Bytes and objects the store holds in `bucket` now, from a listing of it, with each object's size
 * (the storage endpoint reads what a write replaces from them), and the multipart uploads under way
 * with their parts (when the store lists them).
 */
export async function countBucket(backend: ObjectStoreBackend, bucket: string): Promise<BucketCount> {
  let bytes = 0;
  const sizes = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const page = await backend.listObjects(bucket, { limit: PAGE, cursor });
    for (const object of page.objects) {
      bytes += object.size;
      sizes.set(object.key, object.size);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  const uploads = await backend.listUploads(bucket);
  const count = { bytes, objects: sizes.size, sizes };
  return uploads === null ? count : { ...count, uploads };
}

/** What a quota change does to the counting, to record in the transaction that changes the quota. */
export type CountingChange = (tx: Sql) => Promise<void>;

const UNCHANGED: CountingChange = async () => undefined;

/** What counting reads and writes of the store. */
export type CountingStore = Pick<Store, 'buckets' | 'storageUsage'>;

export class StorageCounting {
  readonly #store: CountingStore;
  readonly #backend: ObjectStoreBackend;

  constructor(store: CountingStore, backend: ObjectStoreBackend) {
    this.#store = store;
    this.#backend = backend;
  }

  /** A bucket's own quota goes from `before` to `after`, its organisation's being `organisation`. */
  async bucketQuotaChange(
    bucket: BucketRecord,
    organisation: StorageQuota,
    before: StorageQuota,
    after: StorageQuota,
  ): Promise<CountingChange> {
    const counted = quotaApplies(organisation) || quotaApplies(before);
    const counts = quotaApplies(organisation) || quotaApplies(after);
    const usage = this.#store.storageUsage;
    if (!counted && counts) {
      const count = await countBucket(this.#backend, bucket.name);
      return (tx) => usage.recordBucketCount(bucket.organisationId, bucket.name, count, tx);
    }
    if (counted && !counts) return (tx) => usage.stop([bucketScope(bucket.name)], tx);
    return UNCHANGED;
  }

  /** The organisation's quota goes from `before` to `after`: every bucket of it is counted while it has one. */
  async organisationQuotaChange(
    organisationId: string,
    before: StorageQuota,
    after: StorageQuota,
  ): Promise<CountingChange> {
    const { buckets, storageUsage: usage } = this.#store;
    if (quotaApplies(before) === quotaApplies(after)) return UNCHANGED;
    const all = await buckets.allForOrganisation(organisationId);
    if (!quotaApplies(after)) {
      // Buckets with a quota of their own stay counted.
      const scopes: UsageScope[] = [organisationScope(organisationId)];
      for (const bucket of all) if (!quotaApplies(bucket.quota)) scopes.push(bucketScope(bucket.name));
      return (tx) => usage.stop(scopes, tx);
    }
    const counted = await usage.counted(all.map((bucket) => bucketScope(bucket.name)));
    const counts = new Map<string, BucketCount>();
    for (const bucket of all) {
      if (!counted.has(bucketScope(bucket.name)))
        counts.set(bucket.name, await countBucket(this.#backend, bucket.name));
    }
    return async (tx) => {
      for (const [bucket, count] of counts) await usage.recordBucketCount(organisationId, bucket, count, tx);
      await usage.startOrganisation(organisationId, tx);
    };
  }

  /**
   * Deletes objects with `remove` and, when the bucket is counted, subtracts what the deleted ones
   * held: their sizes are asked of the store first (the control plane does not hold their keys, so
   * it does not read them from the sizes kept).
   */
  async deletions(
    bucket: BucketRecord,
    organisation: StorageQuota,
    keys: readonly string[],
    remove: () => Promise<DeleteResult[]>,
  ): Promise<DeleteResult[]> {
    if (!quotaApplies(organisation) && !quotaApplies(bucket.quota)) return remove();
    const sizes = new Map<string, number | null>();
    let next = 0;
    const lookUp = async () => {
      while (next < keys.length) {
        const key = keys[next++] as string;
        sizes.set(key, await this.#backend.objectSize(bucket.name, key));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_LOOKUPS, keys.length) }, lookUp));
    // The deleted keys keep tombstones stamped with this interval, so that a late record of an
    // upload from a lease made before it does not count its object again (store/storage-records.ts).
    const from = stampClock();
    const results = await remove();
    const stamp = { writer: newId(), from, until: stampClock() };
    const change = { bytes: 0, objects: 0 };
    const gone = new Map<string, null>();
    for (const result of results) {
      const size = sizes.get(result.key);
      if (!result.deleted || size === null || size === undefined) continue;
      change.bytes -= size;
      change.objects -= 1;
      gone.set(result.key, null);
    }
    const scopes = [bucketScope(bucket.name), organisationScope(bucket.organisationId)];
    if (change.objects !== 0)
      await this.#store.storageUsage.adjust(scopes, change, { bucket: bucket.name, sizes: gone, stamp });
    return results;
  }

  /**
   * Lists the bucket and, when its usage is counted, sets the count to what the store holds.
   * Returns the count, and whether it was recorded (false: no quota applies, nothing is counted).
   */
  async recount(bucket: BucketRecord): Promise<{ count: BucketCount; recorded: boolean }> {
    const usage = this.#store.storageUsage;
    const count = await countBucket(this.#backend, bucket.name);
    const recorded = (await usage.counted([bucketScope(bucket.name)])).size > 0;
    if (recorded) await usage.recordBucketCount(bucket.organisationId, bucket.name, count);
    return { count, recorded };
  }
}
