/**
 * DeleteObjects in a bucket under a storage quota: the Delete document that delete-objects.ts
 * reads and forwards passes through here. Its keys are held against other counted writes to them
 * (limits/storage-quotas.ts) while the size of each before the deletion is read (from the sizes
 * the gateway keeps of the bucket, else asked of the store) and, once the store has answered and
 * before the client hears it, the store is asked what the keys still hold: what they held before
 * less what they hold after is what the deletions freed (a deleted version may leave an older one
 * current).
 */
import type { Exchange } from '../exchange.js';
import { NO_CHANGE, type StorageChange } from '../../store/usage-scopes.js';
import { deleteObjectKeys } from './delete-objects.js';
import { headObject } from './probe.js';
import { Upstream, type Forwarded } from './upstream.js';

/** HEADs in flight at once for one DeleteObjects (which names up to 1,000 keys). */
const CONCURRENT_HEADS = 8;

/**
 * Keys held for a deletion; `settle` records what it freed and what the keys it changed hold now
 * (null: nothing), and lets them go. It must not reject.
 */
export interface KeyHold {
  /** What each key holds, when the sizes kept of the bucket tell it (the store is not asked then). */
  readonly before?: ReadonlyMap<string, number | null>;
  settle(freed: StorageChange, sizes: ReadonlyMap<string, number | null>): Promise<void>;
}

const NOTHING_KEPT: ReadonlyMap<string, number | null> = new Map();

export class CountedDeletions extends Upstream {
  readonly #bucket: string;
  readonly #hold: (keys: readonly string[]) => Promise<KeyHold>;

  /** `hold` holds the keys until the hold it gives is settled. */
  constructor(upstream: Upstream, bucket: string, hold: (keys: readonly string[]) => Promise<KeyHold>) {
    super(upstream.connection, upstream.metrics, upstream.logger);
    this.#bucket = bucket;
    this.#hold = hold;
  }

  override async forward(exchange: Exchange, forwarded: Forwarded): Promise<void> {
    const keys = Buffer.isBuffer(forwarded.body) ? [...new Set(deleteObjectKeys(forwarded.body))] : [];
    const hold = await this.#hold(keys);
    let settled = false;
    try {
      const before = hold.before ?? (await this.#sizes(exchange, keys));
      const present = keys.filter((key) => before.get(key) !== null);
      // Still nothing there, whatever the store answers.
      const absent = new Map(keys.filter((key) => before.get(key) === null).map((key) => [key, null]));
      await super.forward(exchange, {
        ...forwarded,
        beforeAnswer: async (status) => {
          settled = true;
          if (status >= 300 || present.length === 0) return hold.settle(NO_CHANGE, absent);
          let after: Map<string, number | null>;
          try {
            after = await this.#sizes(exchange, present);
          } catch (error) {
            // What it freed is left to the next count of the bucket.
            this.logger.warn(
              { err: error, requestId: exchange.id },
              'could not tell what DeleteObjects freed',
            );
            return hold.settle(NO_CHANGE, absent);
          }
          const freed = { bytes: 0, objects: 0 };
          for (const key of present) {
            const now = after.get(key) ?? null;
            freed.bytes += (now ?? 0) - (before.get(key) ?? 0);
            freed.objects += now === null ? -1 : 0;
          }
          return hold.settle(freed, new Map([...absent, ...after]));
        },
      });
    } finally {
      // What the store did is not known: nothing changes, the sizes kept stay in step with the count.
      if (!settled) await hold.settle(NO_CHANGE, NOTHING_KEPT);
    }
  }

  /** Each key's size, null for a key the store does not hold. */
  async #sizes(exchange: Exchange, keys: readonly string[]): Promise<Map<string, number | null>> {
    const sizes = new Map<string, number | null>();
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const key = keys[next++] as string;
        const answer = await headObject(exchange, this, { bucket: this.#bucket, key, versionId: null });
        const length = Number(answer.headers['content-length']);
        sizes.set(key, answer.status === 200 && Number.isSafeInteger(length) ? length : null);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_HEADS, keys.length) }, worker));
    return sizes;
  }
}
