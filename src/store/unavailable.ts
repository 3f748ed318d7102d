/**
 * Whether an error means the database is not answering (down, restarting, unreachable, out of
 * connections), as opposed to a query it answered with an error. Both planes answer the former
 * with 503 and a Retry-After: the request may succeed as it is once the database is back.
 */

/** Socket-level failures (node:net) and postgres.js's own connection errors. */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01–57P03
 * (shutting down, crashed, not yet accepting connections) and 53300 (too many connections).
 */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300'
  );
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || isUnavailableSqlState(code)))
    return true;
  // A connection attempt to several addresses fails with all of their errors at once.
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable);
}
