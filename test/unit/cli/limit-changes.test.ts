import { describe, expect, it } from 'vitest';
import { parseLimitChanges } from '../../../src/cli/limit-changes.js';

const KEYS = { maxBytes: 'bytes', maxObjects: 'count', requestsPerSecond: 'rate' } as const;

describe('s3gw limit changes (KEY=VALUE)', () => {
  it('reads byte sizes with units, counts, rates and none', () => {
    expect(parseLimitChanges(['maxBytes=100GiB', 'maxObjects=5000', 'requestsPerSecond=2.5'], KEYS)).toEqual({
      maxBytes: 100 * 2 ** 30,
      maxObjects: 5000,
      requestsPerSecond: 2.5,
    });
    expect(parseLimitChanges(['maxBytes=500MB'], KEYS)).toEqual({ maxBytes: 500_000_000 });
    expect(parseLimitChanges(['maxBytes=1024'], KEYS)).toEqual({ maxBytes: 1024 });
    expect(parseLimitChanges(['maxBytes=none', 'requestsPerSecond=none'], KEYS)).toEqual({
      maxBytes: null,
      requestsPerSecond: null,
    });
  });

  it.each([
    ['maxBytes'],
    ['quota=5'],
    ['maxBytes=lots'],
    ['maxBytes=5 parsecs'],
    ['maxObjects=2.5'],
    ['maxObjects=-1'],
    ['requestsPerSecond=fast'],
    ['constructor=5'],
  ])('refuses %s with a usage error', (change) => {
    expect(() => parseLimitChanges([change], KEYS)).toThrow(/KEY=VALUE|give/);
  });
});
