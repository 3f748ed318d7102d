import { describe, expect, it } from 'vitest';
import { RefreshCookies } from '../../../src/control/auth/refresh-cookie.js';
import type { GatewayConfig } from '../../../src/config/schema.js';

const config = (cookieSecure: 'auto' | 'always' | 'never') =>
  ({ control: { cookieSecure } }) as unknown as GatewayConfig;
const origin = (secure: boolean) => ({ sourceAddress: null, userAgent: null, secure });
const expires = new Date('2030-01-01T00:00:00Z');

describe('the refresh cookie', () => {
  it('is HttpOnly, SameSite=Strict and scoped to /v1/auth', () => {
    const cookie = new RefreshCookies(config('never')).issue('tok', origin(true), expires);
    expect(cookie).toBe(
      'gw_refresh=tok; Path=/v1/auth; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly; SameSite=Strict',
    );
  });

  it('is Secure when configured always, or auto and the request came over HTTPS', () => {
    const secure = (setting: 'auto' | 'always' | 'never', https: boolean) =>
      new RefreshCookies(config(setting)).issue('t', origin(https), expires).includes('; Secure');
    expect(secure('always', false)).toBe(true);
    expect(secure('auto', true)).toBe(true);
    expect(secure('auto', false)).toBe(false);
    expect(secure('never', true)).toBe(false);
  });

  it('is cleared with an empty value that expired long ago', () => {
    expect(new RefreshCookies(config('always')).cleared(origin(false))).toBe(
      'gw_refresh=; Path=/v1/auth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
    );
  });
});
