import type { StoredCookie } from './profile-store.js';

/**
 * The few cookies the authentication endpoints set, kept the way a browser would for their path:
 * the refresh cookie rotates on every refresh, and the previous one is refused as reuse (which
 * ends the whole session), so each answer's Set-Cookie must replace what was stored.
 */
export function applySetCookies(
  jar: Record<string, StoredCookie>,
  setCookies: readonly string[],
  now: Date = new Date(),
): Record<string, StoredCookie> {
  const next = { ...jar };
  for (const header of setCookies) {
    const [pair = '', ...attributes] = header.split(';');
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    const value = decodeCookieValue(pair.slice(equals + 1).trim());
    const expiresAt = expiryOf(attributes, now);
    if (value === '' || (expiresAt !== undefined && expiresAt.getTime() <= now.getTime())) {
      delete next[name];
      continue;
    }
    next[name] = expiresAt === undefined ? { value } : { value, expiresAt: expiresAt.toISOString() };
  }
  return next;
}

/** The Cookie request header for the cookies still valid at `now`, or null when none is. */
export function cookieHeader(jar: Record<string, StoredCookie>, now: Date = new Date()): string | null {
  const pairs = Object.entries(jar)
    .filter(([, cookie]) => cookie.expiresAt === undefined || Date.parse(cookie.expiresAt) > now.getTime())
    .map(([name, cookie]) => `${name}=${encodeURIComponent(cookie.value)}`);
  return pairs.length === 0 ? null : pairs.join('; ');
}

function decodeCookieValue(raw: string): string {
  const unquoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
  try {
    return decodeURIComponent(unquoted);
  } catch {
    return unquoted;
  }
}

/** Max-Age wins over Expires (RFC 6265 §5.3). */
function expiryOf(attributes: readonly string[], now: Date): Date | undefined {
  let expires: Date | undefined;
  for (const attribute of attributes) {
    const equals = attribute.indexOf('=');
    const name = (equals === -1 ? attribute : attribute.slice(0, equals)).trim().toLowerCase();
    const value = equals === -1 ? '' : attribute.slice(equals + 1).trim();
    if (name === 'max-age' && /^-?\d+$/.test(value)) {
      return new Date(now.getTime() + Number(value) * 1000);
    }
    if (name === 'expires') {
      const parsed = Date.parse(value);
      if (!Number.isNaN(parsed)) expires = new Date(parsed);
    }
  }
  return expires;
}
