import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../../src/control/auth/login-rate-limiter.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('SlidingWindowLimiter', () => {
  it('allows `limit` attempts per key in any 60 seconds, then says how long to wait', () => {
    const time = clock();
    const limiter = new SlidingWindowLimiter(3, time.now);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(limiter.attempt(['address:a'])).toEqual({ allowed: true });
      time.advance(10_000);
    }
    // The first attempt was 30 s ago: a slot frees in 30 s.
    expect(limiter.attempt(['address:a'])).toEqual({ allowed: false, retryAfterSeconds: 30 });
    time.advance(29_000);
    expect(limiter.attempt(['address:a'])).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(1_000);
    expect(limiter.attempt(['address:a'])).toEqual({ allowed: true });
  });

  it('refuses when any of the keys is at its limit, and then records nothing', () => {
    const time = clock();
    const limiter = new SlidingWindowLimiter(2, time.now);
    limiter.attempt(['address:a', 'account:x']);
    limiter.attempt(['address:b', 'account:x']);
    expect(limiter.attempt(['address:c', 'account:x']).allowed).toBe(false);
    // The refused attempt did not count against address:c.
    expect(limiter.attempt(['address:c', 'account:y'])).toEqual({ allowed: true });
    expect(limiter.attempt(['address:c', 'account:z'])).toEqual({ allowed: true });
    expect(limiter.attempt(['address:c', 'account:w']).allowed).toBe(false);
  });

  it('keeps keys independent', () => {
    const limiter = new SlidingWindowLimiter(1, clock().now);
    expect(limiter.attempt(['account:x']).allowed).toBe(true);
    expect(limiter.attempt(['account:x']).allowed).toBe(false);
    expect(limiter.attempt(['account:y']).allowed).toBe(true);
  });
});
