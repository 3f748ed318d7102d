import { describe, expect, it } from 'vitest';
import { RequestRateLimiter, shareOf, TokenBucket } from '../../../../src/s3/limits/request-rates.js';

describe('a token bucket', () => {
  it('admits its capacity at once, then one request per 1/rate seconds', () => {
    const bucket = new TokenBucket(3, 0);
    const admitted = [];
    for (let request = 0; request < 5; request += 1) {
      const wait = bucket.wait(2, 3, 0);
      admitted.push(wait === 0);
      if (wait === 0) bucket.take();
    }
    expect(admitted).toEqual([true, true, true, false, false]);
    // Two tokens a second: the next one is 500 ms away, and there after 500 ms.
    expect(bucket.wait(2, 3, 0)).toBeCloseTo(0.5);
    expect(bucket.wait(2, 3, 499)).toBeGreaterThan(0);
    expect(bucket.wait(2, 3, 500)).toBe(0);
  });

  it('never holds more than its capacity, however long it was idle', () => {
    const bucket = new TokenBucket(2, 0);
    bucket.wait(1, 2, 60_000);
    bucket.take();
    bucket.take();
    expect(bucket.wait(1, 2, 60_000)).toBeCloseTo(1);
  });
});

describe('a process share of a limit', () => {
  it('divides the rate and the burst by the processes sharing it', () => {
    expect(shareOf({ requestsPerSecond: 100, burst: 40 }, 4)).toEqual({ rate: 25, capacity: 10 });
    // No burst given: one second's worth.
    expect(shareOf({ requestsPerSecond: 100, burst: null }, 2)).toEqual({ rate: 50, capacity: 50 });
  });

  it('keeps at least one request of burst, or the share would admit nothing', () => {
    expect(shareOf({ requestsPerSecond: 3, burst: 2 }, 3)).toEqual({ rate: 1, capacity: 1 });
  });
});

describe('the request rate limiter', () => {
  const limits = {
    credentialRequests: { requestsPerSecond: 1, burst: 2 },
    requests: { requestsPerSecond: 1, burst: 3 },
  };

  it('names the first limit a request is over, and takes no token from the others', () => {
    const limiter = new RequestRateLimiter(() => 1);
    expect(limiter.admit(limits, 'o', 'a', 0)).toBeNull();
    expect(limiter.admit(limits, 'o', 'a', 0)).toBeNull();
    expect(limiter.admit(limits, 'o', 'a', 0)).toMatchObject({ limit: 'credential_rate' });
    // The refused request took nothing from the organisation: one token is left there.
    expect(limiter.admit(limits, 'o', 'b', 0)).toBeNull();
    expect(limiter.admit(limits, 'o', 'b', 0)).toEqual({ limit: 'organisation_rate', retryAfterSeconds: 1 });
    // Refused by the organisation, b's credential kept its token: one more, then none.
    const credentialOnly = { ...limits, requests: null };
    expect(limiter.admit(credentialOnly, 'o', 'b', 0)).toBeNull();
    expect(limiter.admit(credentialOnly, 'o', 'b', 0)).toMatchObject({ limit: 'credential_rate' });
  });

  it("holds a request that is not a credential's to the organisation's limit alone", () => {
    const limiter = new RequestRateLimiter(() => 1);
    for (let request = 0; request < 3; request += 1) expect(limiter.admit(limits, 'o', null, 0)).toBeNull();
    expect(limiter.admit(limits, 'o', null, 0)).toMatchObject({ limit: 'organisation_rate' });
  });

  it('takes its share of each limit from the live process count', () => {
    let processes = 2;
    const limiter = new RequestRateLimiter(() => processes);
    const organisation = { requests: { requestsPerSecond: 10, burst: 4 }, credentialRequests: null };
    expect(limiter.admit(organisation, 'o', 'a', 0)).toBeNull();
    expect(limiter.admit(organisation, 'o', 'a', 0)).toBeNull();
    expect(limiter.admit(organisation, 'o', 'a', 0)).not.toBeNull();
    // Alone now: the whole rate refills this bucket, 10 a second.
    processes = 1;
    expect(limiter.admit(organisation, 'o', 'a', 100)).toBeNull();
  });

  it("keeps an organisation's bucket apart from a credential's of the same key", () => {
    const limiter = new RequestRateLimiter(() => 1);
    const rate = { requestsPerSecond: 1, burst: 1 };
    expect(limiter.admit({ credentialRequests: rate, requests: null }, 'x', 'same', 0)).toBeNull();
    expect(limiter.admit({ credentialRequests: null, requests: rate }, 'same', 'x', 0)).toBeNull();
    expect(limiter.admit({ credentialRequests: rate, requests: null }, 'x', 'same', 0)).toMatchObject({
      limit: 'credential_rate',
    });
  });

  it('forgets full buckets once it holds 100,000 of a kind, and keeps those still spent', () => {
    const limiter = new RequestRateLimiter(() => 1);
    const perCredential = { credentialRequests: { requestsPerSecond: 1, burst: 1 }, requests: null };
    for (let key = 0; key < 100_000; key += 1) limiter.admit(perCredential, 'o', `k${key}`, 0);
    // Two seconds on, every bucket is full again but k0's, which spends its token now.
    expect(limiter.admit(perCredential, 'o', 'k0', 2000)).toBeNull();
    // A new key makes room: the full buckets go, k0's stays, still empty.
    expect(limiter.admit(perCredential, 'o', 'new', 2000)).toBeNull();
    expect(limiter.admit(perCredential, 'o', 'k0', 2000)).toMatchObject({ limit: 'credential_rate' });
    expect(limiter.admit(perCredential, 'o', 'k1', 2000)).toBeNull();
  });
});
