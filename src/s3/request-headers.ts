/**
 * The headers a request means, as opposed to the headers it carries. Presigned URLs hoist
 * `x-amz-*` headers into the query (x-amz-acl, x-amz-meta-*, x-amz-checksum-*, ...) and S3 applies
 * them as headers, so bans, checksum verification and forwarding must see them too, or a query
 * parameter could smuggle past a header rule. Signature verification never uses this view: it
 * checks the request exactly as received.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { QueryParameter } from './address.js';
import { S3Error } from './errors.js';

/** Query parameters that carry the presigned signature itself; never headers, never forwarded. */
const PRESIGN_AUTH_PARAMETERS: ReadonlySet<string> = new Set([
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-signedheaders',
  'x-amz-signature',
  'x-amz-security-token',
  'x-amz-content-sha256',
]);

export type HeaderMap = Readonly<Record<string, string | readonly string[] | undefined>>;

export function isPresignAuthParameter(name: string): boolean {
  return PRESIGN_AUTH_PARAMETERS.has(name.toLowerCase());
}

/** An `x-amz-*` query parameter that stands for a header. */
export function isHoistedHeaderParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('x-amz-') && !PRESIGN_AUTH_PARAMETERS.has(lower);
}

/**
 * S3 does not apply checksum parameters of presigned URLs (its documentation: presigned uploads do
 * not support the CRC/SHA checksum algorithms). The AWS SDK for JavaScript (since 3.729) signs the
 * CRC32 of an empty body into every presigned PUT; honouring it would break every such upload.
 */
function isIgnoredHoistedParameter(lowerName: string): boolean {
  return lowerName.startsWith('x-amz-checksum-') || lowerName === 'x-amz-sdk-checksum-algorithm';
}

/**
 * What an HTTP header value may hold (Node's own rule for outgoing headers): tab, visible ASCII,
 * space and Latin-1. A received header cannot break it, but a decoded query parameter can.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Received headers plus hoisted query headers; a hoisted value wins, as S3 applies the signed URL.
 * A hoisted value no header can carry (CR/LF, control characters, beyond Latin-1) is the client's
 * error: forwarded, it would fail as the upstream request is built.
 */
export function effectiveHeaders(headers: IncomingHttpHeaders, query: readonly QueryParameter[]): HeaderMap {
  const merged: Record<string, string | readonly string[] | undefined> = { ...headers };
  for (const parameter of query) {
    const name = parameter.name.toLowerCase();
    if (!isHoistedHeaderParameter(name) || isIgnoredHoistedParameter(name)) continue;
    if (!HEADER_VALUE.test(parameter.value)) throw new S3Error('InvalidHeaderParameter');
    merged[name] = parameter.value;
  }
  return merged;
}

/** One header as text; repeated headers joined with ',' as HTTP defines. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}
