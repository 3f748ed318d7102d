import { describe, expect, it } from 'vitest';
import { RequestRateLimiter } from '../../../src/s3/limits/request-rates.js';
import type { Sql } from '../../../src/store/database.js';
import { InstanceRegistry } from '../../../src/store/instances.js';

/** A database that does not answer: every query fails. */
const unreachable = (() => Promise.reject(new Error('connection refused'))) as unknown as Sql;

describe('InstanceRegistry before its first beat', () => {
  it('counts the processes it knows of, not one, while the database does not answer', async () => {
    const errors: unknown[] = [];
    const registry = new InstanceRegistry(unreachable, {
      assumedLive: 4,
      onError: (error) => errors.push(error),
    });
    await registry.start();
    expect({ live: registry.live, counted: registry.counted, errors: errors.length }).toEqual({
      live: 4,
      counted: false,
      errors: 1,
    });
    // A limit of 8 per second with a burst of 8 admits a quarter of it in this process.
    const limiter = new RequestRateLimiter(() => registry.live);
    const limits = { requests: { requestsPerSecond: 8, burst: 8 }, credentialRequests: null };
    expect([0, 1, 2].map(() => limiter.admit(limits, 'o', null, 0))).toEqual([null, null, expect.anything()]);
    await registry.close();
  });
});
