import { parse, serialize } from 'cookie';
import type { Request } from 'express';
import type { GatewayConfig } from '../../config/schema.js';
import type { RequestOrigin } from './caller.js';

const REFRESH_COOKIE_NAME = 'gw_refresh';
/** Sent only to the authentication endpoints that read it, never with ordinary API calls. */
const REFRESH_COOKIE_PATH = '/v1/auth';

export function readRefreshCookie(request: Request): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  const value = parse(header)[REFRESH_COOKIE_NAME];
  return value === undefined || value === '' ? null : value;
}

/** Set-Cookie values for the refresh token: HttpOnly, SameSite=Strict, Path=/v1/auth, Secure per config. */
export class RefreshCookies {
  readonly #secure: GatewayConfig['control']['cookieSecure'];

  constructor(config: GatewayConfig) {
    this.#secure = config.control.cookieSecure;
  }

  issue(token: string, origin: RequestOrigin, expiresAt: Date): string {
    return this.#serialize(token, origin, expiresAt);
  }

  cleared(origin: RequestOrigin): string {
    return this.#serialize('', origin, new Date(0));
  }

  #serialize(value: string, origin: RequestOrigin, expires: Date): string {
    return serialize(REFRESH_COOKIE_NAME, value, {
      httpOnly: true,
      sameSite: 'strict',
      path: REFRESH_COOKIE_PATH,
      secure: this.#secure === 'always' || (this.#secure === 'auto' && origin.secure),
      expires,
    });
  }
}
