/**
 * Request rate limits, checked in memory on every request: a token bucket per organisation and per
 * credential, in each process serving the storage endpoint. A limit is a budget shared by every
 * such process of every gateway instance: each takes an equal share, the rate and the burst
 * divided by the live processes (store/instances.ts counts them from their heartbeats). No request
 * waits on the database; the shares follow the count within a heartbeat.
 *
 * Equal shares assume traffic spread evenly over the processes, which SO_REUSEPORT does between
 * the workers of an instance and a load balancer between instances. Traffic that reaches only
 * some of them is held below the limit, never above it (README, "Quotas and rate limits").
 */
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { burstOf } from '../../access/request-rates.js';
import type { RequestRate } from '../../store/records.js';

/** Buckets kept per kind of limit; one evicted comes back full, which lets at most one extra burst through. */
const MAX_BUCKETS = 100_000;

/** Tokens refill at `rate` per second up to `capacity`; a request takes one. */
export class TokenBucket {
  #tokens: number;
  #updatedAt: number;

  constructor(capacity: number, now: number) {
    this.#tokens = capacity;
    this.#updatedAt = now;
  }

  /** Seconds until a token is there (0: one is there now); refills first. */
  wait(rate: number, capacity: number, now: number): number {
    this.#tokens = Math.min(capacity, this.#tokens + ((now - this.#updatedAt) / 1000) * rate);
    this.#updatedAt = now;
    return this.#tokens >= 1 ? 0 : (1 - this.#tokens) / rate;
  }

  take(): void {
    this.#tokens -= 1;
  }
}

/** A limit as one process applies it: its share of the rate and of the burst. */
export interface Share {
  readonly rate: number;
  readonly capacity: number;
}

export function shareOf(rate: RequestRate, processes: number): Share {
  const live = Math.max(1, processes);
  // A bucket that holds less than one token never admits a request.
  return { rate: rate.requestsPerSecond / live, capacity: Math.max(1, burstOf(rate) / live) };
}

/** A request checked against several limits: the first one it is over, and for how long. */
export interface Verdict<Limit> {
  readonly limit: Limit;
  readonly retryAfterSeconds: number;
}

export class RequestRateLimiter {
  /**
   * Per kind of limit, its buckets by the key it is counted under. Keys are the records' own
   * strings (an access key id, an organisation's id): one joined per request cost a copy and its
   * hash each time (BENCHMARKS.md, change 34).
   */
  readonly #buckets = new Map<unknown, LRUCache<string, TokenBucket>>();
  readonly #processes: () => number;

  /** `processes`: how many processes share each limit now. */
  constructor(processes: () => number) {
    this.#processes = processes;
  }

  /**
   * Admits a request under every limit given, taking a token from each, or takes none and says
   * which limit it is over. `key` names the bucket among those of its `limit` (an organisation's
   * id, a credential's access key id).
   */
  admit<Limit>(
    limits: readonly { readonly key: string; readonly rate: RequestRate; readonly limit: Limit }[],
    now = performance.now(),
  ): Verdict<Limit> | null {
    const processes = this.#processes();
    const admitted: TokenBucket[] = [];
    for (const { key, rate, limit } of limits) {
      const share = shareOf(rate, processes);
      const buckets = this.#bucketsOf(limit);
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        bucket = new TokenBucket(share.capacity, now);
        buckets.set(key, bucket);
      }
      const wait = bucket.wait(share.rate, share.capacity, now);
      if (wait > 0) return { limit, retryAfterSeconds: wait };
      admitted.push(bucket);
    }
    for (const bucket of admitted) bucket.take();
    return null;
  }

  #bucketsOf(limit: unknown): LRUCache<string, TokenBucket> {
    let buckets = this.#buckets.get(limit);
    if (buckets === undefined) {
      buckets = new LRUCache<string, TokenBucket>({ max: MAX_BUCKETS });
      this.#buckets.set(limit, buckets);
    }
    return buckets;
  }
}
