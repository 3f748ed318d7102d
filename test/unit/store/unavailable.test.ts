import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../src/store/unavailable.js';

function errorWithCode(code: string): Error {
  return Object.assign(new Error(code), { code });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'CONNECT_TIMEOUT',
    'CONNECTION_CLOSED',
    'CONNECTION_DESTROYED',
    '08006',
    '57P01',
    '57P03',
    '53300',
  ])('is true for %s (the database is not answering)', (code) => {
    expect(isDatabaseUnavailable(errorWithCode(code))).toBe(true);
  });

  it.each(['22P02', '23505', '42P01', 'ENOENT'])(
    'is false for %s (an answered query or another fault)',
    (code) => {
      expect(isDatabaseUnavailable(errorWithCode(code))).toBe(false);
    },
  );

  it('is true for a connection attempt to several addresses that all failed', () => {
    const error = new AggregateError([errorWithCode('ECONNREFUSED'), errorWithCode('ECONNREFUSED')]);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([]))).toBe(false);
  });

  it('is false for what is not an error with a code', () => {
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
