import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { BucketStore } from './buckets.js';
import type { CredentialStore } from './credentials.js';
import type { Invalidation, InvalidationBus } from './invalidation.js';
import type { OrganisationStore } from './organisations.js';
import type { BucketRecord, CorsRuleSet, CredentialRecord, OrganisationRecord } from './records.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** A bucket with its CORS rules, as the storage endpoint needs it for every request. */
export interface BucketEntry {
  bucket: BucketRecord;
  cors: CorsRuleSet | null;
}

/** lru-cache cannot hold null: an absent record is cached as this box, so unknown keys cost no query. */
interface Box<T> {
  value: T | null;
}

export interface CacheEvents {
  onHit?(kind: Invalidation['kind']): void;
  onMiss?(kind: Invalidation['kind']): void;
  onInvalidate?(kind: Invalidation['kind']): void;
  /** An expired entry served because the database did not answer (stale-if-error). */
  onStale?(kind: Invalidation['kind']): void;
}

export interface AccessCacheOptions {
  ttlMs: number;
  maxEntries: number;
  /**
   * For how long after the database stopped answering expired entries are still served (0: never).
   * Entries an invalidation removed are gone, so a revocation seen before the outage holds.
   */
  staleIfErrorMs?: number;
  events?: CacheEvents;
}

/**
 * The storage endpoint's view of credentials, buckets and organisations: bounded LRUs with a TTL in
 * front of the store. Concurrent misses for one key share one query. Entries are dropped the moment the
 * invalidation bus reports a change (in this process or, through LISTEN/NOTIFY, in another).
 *
 * When the database stops answering, an expired entry is kept and served for `staleIfErrorMs`
 * counted from the first failed load, so requests of known keys go on through a short outage;
 * keys the cache does not hold fail with the database's error (503 on both planes).
 */
export class AccessCache {
  readonly #credentials: LRUCache<string, Box<CredentialRecord>>;
  readonly #buckets: LRUCache<string, Box<BucketEntry>>;
  readonly #organisations: LRUCache<string, Box<OrganisationRecord>>;
  readonly #events: CacheEvents;
  readonly #unsubscribe: () => void;
  readonly #staleIfErrorMs: number;
  /** performance.now() of the first failed load since the last one that succeeded. */
  #outageSince: number | null = null;

  constructor(
    stores: { credentials: CredentialStore; buckets: BucketStore; organisations: OrganisationStore },
    bus: InvalidationBus,
    options: AccessCacheOptions,
  ) {
    this.#events = options.events ?? {};
    this.#staleIfErrorMs = options.staleIfErrorMs ?? 0;
    const common = {
      max: options.maxEntries,
      ttl: options.ttlMs,
      ttlAutopurge: false,
      // An expired entry stays until it is replaced, so a failed reload can fall back on it.
      noDeleteOnStaleGet: true,
      noDeleteOnFetchRejection: true,
    };
    this.#credentials = new LRUCache({
      ...common,
      fetchMethod: (accessKeyId) => this.#loaded(async () => stores.credentials.find(accessKeyId)),
    });
    this.#buckets = new LRUCache({
      ...common,
      fetchMethod: (name) =>
        this.#loaded(async () => {
          const bucket = await stores.buckets.find(name);
          return bucket === null ? null : { bucket, cors: await stores.buckets.findCors(name) };
        }),
    });
    this.#organisations = new LRUCache({
      ...common,
      fetchMethod: (id) => this.#loaded(async () => stores.organisations.find(id)),
    });
    this.#unsubscribe = bus.subscribe((invalidation) => this.invalidate(invalidation));
  }

  /**
   * The credential, from the cache when it is there (no promise on the hot path), else loaded
   * once for all concurrent callers. Null when no such key exists.
   */
  credential(accessKeyId: string): CredentialRecord | null | Promise<CredentialRecord | null> {
    return this.#lookup('credential', this.#credentials, accessKeyId);
  }

  bucket(name: string): BucketEntry | null | Promise<BucketEntry | null> {
    return this.#lookup('bucket', this.#buckets, name);
  }

  organisation(id: string): OrganisationRecord | null | Promise<OrganisationRecord | null> {
    return this.#lookup('organisation', this.#organisations, id);
  }

  invalidate({ kind, key }: Invalidation): void {
    this.#events.onInvalidate?.(kind);
    if (key === '*') {
      this.#credentials.clear();
      this.#buckets.clear();
      this.#organisations.clear();
      return;
    }
    const cache = { credential: this.#credentials, bucket: this.#buckets, organisation: this.#organisations }[
      kind
    ];
    cache.delete(key);
  }

  close(): void {
    this.#unsubscribe();
  }

  #lookup<T>(
    kind: Invalidation['kind'],
    cache: LRUCache<string, Box<T>>,
    key: string,
  ): T | null | Promise<T | null> {
    const box = cache.get(key);
    if (box !== undefined) {
      this.#events.onHit?.(kind);
      return box.value;
    }
    if (this.#outageSince !== null) {
      // The database is not answering: a known key is served at once, not after its reload fails.
      const stale = this.#withinOutageWindow() ? cache.peek(key, { allowStale: true }) : undefined;
      if (stale !== undefined) {
        this.#events.onStale?.(kind);
        this.#load(cache, key).catch(() => undefined);
        return stale.value;
      }
    }
    this.#events.onMiss?.(kind);
    return this.#load(cache, key).catch((error: unknown) => this.#stale(kind, cache, key, error));
  }

  #withinOutageWindow(): boolean {
    const since = this.#outageSince;
    return since !== null && performance.now() - since <= this.#staleIfErrorMs;
  }

  /** Runs one load from the store, keeping track of whether the database answers. */
  async #loaded<T>(load: () => Promise<T | null>): Promise<Box<T>> {
    try {
      const value = await load();
      this.#outageSince = null;
      return { value };
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.#outageSince ??= performance.now();
      throw error;
    }
  }

  /** The expired entry for a key whose reload failed because the database did not answer, if allowed. */
  #stale<T>(
    kind: Invalidation['kind'],
    cache: LRUCache<string, Box<T>>,
    key: string,
    error: unknown,
  ): T | null {
    if (!isDatabaseUnavailable(error) || !this.#withinOutageWindow()) throw error;
    const box = cache.peek(key, { allowStale: true });
    if (box === undefined) throw error;
    this.#events.onStale?.(kind);
    return box.value;
  }

  async #load<T>(cache: LRUCache<string, Box<T>>, key: string): Promise<T | null> {
    // An invalidation that lands while a load is in flight aborts that load (its result may be stale):
    // load again rather than answer from it.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const box = await cache.fetch(key);
        if (box !== undefined) return box.value;
      } catch (error) {
        if (!isAbort(error)) throw error;
      }
    }
    const box = await cache.fetch(key, { forceRefresh: true });
    return box?.value ?? null;
  }
}

/** lru-cache rejects a load it aborted with one of these reasons (its own Error messages). */
const ABORT_REASONS = new Set(['deleted', 'evicted', 'replaced', 'cleared']);

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || ABORT_REASONS.has(error.message));
}
