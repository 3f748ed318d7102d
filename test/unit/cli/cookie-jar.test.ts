import { describe, expect, it } from 'vitest';
import { applySetCookies, cookieHeader } from '../../../src/cli/cookie-jar.js';

const NOW = new Date('2030-01-01T00:00:00Z');

describe('the refresh cookie kept by the CLI', () => {
  it('is replaced by the one each answer sets (the previous one would count as reuse)', () => {
    const first = applySetCookies(
      {},
      ['gw_refresh=one; Path=/v1/auth; Expires=Fri, 01 Feb 2030 00:00:00 GMT; HttpOnly; SameSite=Strict'],
      NOW,
    );
    expect(first).toEqual({ gw_refresh: { value: 'one', expiresAt: '2030-02-01T00:00:00.000Z' } });
    const second = applySetCookies(first, ['gw_refresh=two; Path=/v1/auth; Max-Age=60; HttpOnly'], NOW);
    expect(second).toEqual({ gw_refresh: { value: 'two', expiresAt: '2030-01-01T00:01:00.000Z' } });
    expect(cookieHeader(second, NOW)).toBe('gw_refresh=two');
  });

  it('is dropped when cleared, and not sent once expired', () => {
    const jar = { gw_refresh: { value: 'one', expiresAt: '2030-02-01T00:00:00.000Z' } };
    expect(
      applySetCookies(jar, ['gw_refresh=; Path=/v1/auth; Expires=Thu, 01 Jan 1970 00:00:00 GMT'], NOW),
    ).toEqual({});
    expect(cookieHeader(jar, new Date('2030-03-01T00:00:00Z'))).toBeNull();
  });

  it('round-trips values that need encoding', () => {
    const jar = applySetCookies({}, ['token=a%2Fb%3D; Path=/v1/auth'], NOW);
    expect(jar.token?.value).toBe('a/b=');
    expect(cookieHeader(jar, NOW)).toBe('token=a%2Fb%3D');
  });
});
