/**
 * Which headers cross the gateway, in each direction. Requests forward an allowlist: object
 * metadata, content description, ranges and conditions, copy and checksum headers. Everything
 * about the client's authentication (Authorization, x-amz-date, x-amz-content-sha256,
 * x-amz-security-token), the aws-chunked envelope, hop-by-hop headers and anything unknown stay
 * behind; the signer adds its own host, date, payload hash and Authorization.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { headerValue, type HeaderMap } from './request-headers.js';
import type { ForwardHeaderChanges } from './sigv4/index.js';

const FORWARDED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-md5',
  'content-encoding',
  'content-language',
  'content-disposition',
  'cache-control',
  'expires',
  'range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'x-amz-metadata-directive',
  'x-amz-tagging',
  'x-amz-tagging-directive',
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
  'x-amz-sdk-checksum-algorithm',
  'x-amz-mp-object-size',
]);

const FORWARDED_REQUEST_PREFIXES: readonly string[] = [
  'x-amz-meta-',
  'x-amz-checksum-',
  'x-amz-server-side-encryption',
  // The copy source itself is re-encoded by the gateway; its range and conditions pass.
  'x-amz-copy-source-',
];

export function isForwardedRequestHeader(name: string): boolean {
  return (
    FORWARDED_REQUEST_HEADERS.has(name) ||
    FORWARDED_REQUEST_PREFIXES.some((prefix) => name.startsWith(prefix))
  );
}

/**
 * The headers to forward, before signing: the allowlisted effective headers with the body
 * pipeline's changes applied (no aws-chunked coding, no trailer declaration) and `extra` set last.
 */
export function forwardedRequestHeaders(
  headers: HeaderMap,
  bodyChanges: ForwardHeaderChanges,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headerValue(headers, name);
    if (value !== undefined && isForwardedRequestHeader(name)) forwarded[name] = value;
  }
  for (const name of bodyChanges.remove) delete forwarded[name];
  for (const [name, value] of Object.entries(bodyChanges.set)) {
    if (isForwardedRequestHeader(name)) forwarded[name] = value;
  }
  return { ...forwarded, ...extra };
}

/** Backend response headers the client must not see: hop-by-hop, the backend's ids, its CORS. */
function isDroppedResponseHeader(name: string): boolean {
  return (
    [
      'connection',
      'keep-alive',
      'proxy-authenticate',
      'proxy-connection',
      'transfer-encoding',
      'upgrade',
      'te',
      'trailer',
      'x-amz-request-id',
      'x-amz-id-2',
      'server',
      'date',
    ].includes(name) || name.startsWith('access-control-')
  );
}

export function clientResponseHeaders(backendHeaders: IncomingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(backendHeaders)) {
    if (value !== undefined && !isDroppedResponseHeader(name)) headers[name] = value;
  }
  return headers;
}
