import { GatewayUnreachableError } from './errors.js';
import { cliVersion } from './version.js';

/** What openapi-fetch calls to send a request. */
export type Transport = (request: Request) => Promise<Response>;

/** A gateway that accepted the connection but stays silent this long counts as unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;

export const USER_AGENT = `s3gw/${cliVersion()} node/${process.versions.node}`;

/**
 * fetch with a timeout, where every failure to get an answer at all (refused, unresolved, TLS,
 * timeout) becomes one error with exit code 4 that names the address and the cause.
 */
export const networkTransport: Transport = async (request) => {
  try {
    return await fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new GatewayUnreachableError(
      `cannot reach the gateway at ${new URL(request.url).origin}: ${reasonOf(error)}`,
    );
  }
};

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the gateway running, and is this its control-plane address?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (temporary DNS failure)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_SOCKET: 'the connection closed before an answer',
};

function reasonOf(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  if (code !== undefined && CAUSES[code] !== undefined) return `${CAUSES[code]} (${code})`;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
