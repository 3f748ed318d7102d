/**
 * DeleteObjects in a bucket under a storage quota: the Delete document that delete-objects.ts
 * reads and forwards passes through here, which asks the store for the size of every key it names
 * before the deletion and, once the store has answered and before the client hears it, whether
 * each is still there. Keys that were there and are gone were deleted; what they held is freed.
 */
import type { Exchange } from '../exchange.js';
import type { StorageChange } from '../../store/storage-usage.js';
import { deleteObjectKeys } from './delete-objects.js';
import { headObject } from './probe.js';
import { Upstream, type Forwarded } from './upstream.js';

/** HEADs in flight at once for one DeleteObjects (which names up to 1,000 keys). */
const CONCURRENT_HEADS = 8;

export class CountedDeletions extends Upstream {
  readonly #bucket: string;
  readonly #record: (freed: StorageChange) => Promise<void>;

  /** `record` is given what the deletions freed (negative figures); it must not reject. */
  constructor(upstream: Upstream, bucket: string, record: (freed: StorageChange) => Promise<void>) {
    super(upstream.connection, upstream.metrics, upstream.logger);
    this.#bucket = bucket;
    this.#record = record;
  }

  override async forward(exchange: Exchange, forwarded: Forwarded): Promise<void> {
    const keys = Buffer.isBuffer(forwarded.body) ? [...new Set(deleteObjectKeys(forwarded.body))] : [];
    const before = await this.#sizes(exchange, keys);
    const present = keys.filter((key) => before.get(key) !== null);
    await super.forward(exchange, {
      ...forwarded,
      beforeAnswer: async (status) => {
        if (status >= 300 || present.length === 0) return;
        let after: Map<string, number | null>;
        try {
          after = await this.#sizes(exchange, present);
        } catch (error) {
          // What it freed is left to the next count of the bucket.
          this.logger.warn({ err: error, requestId: exchange.id }, 'could not tell what DeleteObjects freed');
          return;
        }
        const freed = { bytes: 0, objects: 0 };
        for (const key of present) {
          if (after.get(key) !== null) continue;
          freed.bytes -= before.get(key) ?? 0;
          freed.objects -= 1;
        }
        if (freed.objects !== 0) await this.#record(freed);
      },
    });
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
