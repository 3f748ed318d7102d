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
import { burstOf } from '../../access/request-rates.js';
import type { OrganisationLimits, RequestRate } from '../../store/records.js';

/**
 * Buckets kept per kind of limit before the full ones are forgotten (a full bucket is what a new
 * one would be); past that even those not full are, which lets at most one extra burst through.
 */
const MAX_BUCKETS = 100_000;

/** Tokens refill at `rate` per second up to `capacity`; a request takes one. */
export class TokenBucket {
  #tokens: number;
  #updatedAt: number;
  /** The share it last refilled at, for telling whether it is full (`fullBy`). */
  #rate = 0;
  #capacity: number;

  constructor(capacity: number, now: number) {
    this.#tokens = capacity;
    this.#capacity = capacity;
    this.#updatedAt = now;
  }

  /** Seconds until a token is there (0: one is there now); refills first. */
  wait(rate: number, capacity: number, now: number): number {
    this.#tokens = Math.min(capacity, this.#tokens + ((now - this.#updatedAt) / 1000) * rate);
    this.#updatedAt = now;
    this.#rate = rate;
    this.#capacity = capacity;
    return this.#tokens >= 1 ? 0 : (1 - this.#tokens) / rate;
  }

  take(): void {
    this.#tokens -= 1;
  }

  /** Whether it has refilled to its capacity by `now`, as a new bucket would be. */
  fullBy(now: number): boolean {
    return this.#tokens + ((now - this.#updatedAt) / 1000) * this.#rate >= this.#capacity;
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

export type RateLimitKind = 'credential_rate' | 'organisation_rate';

/** A request over a limit: which, and how long until it has a token. */
export interface Verdict {
  readonly limit: RateLimitKind;
  readonly retryAfterSeconds: number;
}

/** The token buckets of one kind of limit, by key. */
class TokenBuckets {
  readonly #buckets = new Map<string, TokenBucket>();

  /** The bucket of `key`, made full for a share of `capacity` when there is none. */
  of(key: string, capacity: number, now: number): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#forget(now);
      bucket = new TokenBucket(capacity, now);
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Forgets the buckets that are full by now, or all of them when that is not enough. */
  #forget(now: number): void {
    for (const [key, bucket] of this.#buckets) if (bucket.fullBy(now)) this.#buckets.delete(key);
    if (this.#buckets.size >= MAX_BUCKETS) this.#buckets.clear();
  }
}

/**
 * The rate limits of every request of this process. Each request of a limited organisation passes
 * here, so it builds no list of limits and finds its buckets in plain maps by the records' own
 * strings (an access key id, an organisation's id): no key joined and no LRU cache's look-up per
 * request (BENCHMARKS.md, change 34).
 */
export class RequestRateLimiter {
  readonly #credentials = new TokenBuckets();
  readonly #organisations = new TokenBuckets();
  readonly #processes: () => number;

  /** `processes`: how many processes share each limit now. */
  constructor(processes: () => number) {
    this.#processes = processes;
  }

  /**
   * Admits a request of `organisationId` under its `limits`, and of the credential `accessKeyId`
   * (null: not a credential's) under their limit per credential, taking a token from each that
   * applies; or takes none and says which limit it is over (the credential's first).
   */
  admit(
    limits: Pick<OrganisationLimits, 'requests' | 'credentialRequests'>,
    organisationId: string,
    accessKeyId: string | null,
    now = performance.now(),
  ): Verdict | null {
    const perKey = accessKeyId === null ? null : limits.credentialRequests;
    // Most organisations have no rate limit: their requests go without a look at the process count.
    if (limits.requests === null && perKey === null) return null;
    const live = Math.max(1, this.#processes());
    let byCredential: TokenBucket | null = null;
    if (perKey !== null && accessKeyId !== null) {
      const { rate, capacity } = shareOf(perKey, live);
      byCredential = this.#credentials.of(accessKeyId, capacity, now);
      const wait = byCredential.wait(rate, capacity, now);
      if (wait > 0) return { limit: 'credential_rate', retryAfterSeconds: wait };
    }
    if (limits.requests !== null) {
      const { rate, capacity } = shareOf(limits.requests, live);
      const byOrganisation = this.#organisations.of(organisationId, capacity, now);
      const wait = byOrganisation.wait(rate, capacity, now);
      if (wait > 0) return { limit: 'organisation_rate', retryAfterSeconds: wait };
      byOrganisation.take();
    }
    byCredential?.take();
    return null;
  }
}
