/**
 * Request headers as S3 reads them: Node's header map, the payload modes of
 * `x-amz-content-sha256`, and the headers a request means as opposed to those it carries.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { S3Error } from './errors.js';
import { isHoistedHeaderParameter, type QueryParameter } from './query.js';

/** Lower-case names, arrays for repeated headers, as Node hands them over. */
export type HeaderMap = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * One header as text; repeated headers joined with ',' as HTTP defines, so that a header which
 * must appear once (x-amz-date, Authorization) fails its format check instead of one copy being
 * silently picked.
 */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined || typeof value === 'string') return value;
  return value.join(',');
}

/** The first value of a header an answer should carry once (a store's ETag, Content-Length). */
export function firstHeaderValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return value === undefined || typeof value === 'string' ? value : value[0];
}

/** x-amz-content-sha256 values that are not a hex digest. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_UNSIGNED_PAYLOAD_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const STREAMING_SIGNED_PAYLOAD = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_PAYLOAD_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';

/** A hex SHA-256 digest (either case; normalise to lower case before comparing). */
export const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** SHA-256 of zero bytes, the payload hash of every bodiless request. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * What an HTTP header value may hold (Node's own rule for outgoing headers): tab, visible ASCII,
 * space and Latin-1. A received header cannot break it, but a decoded query parameter can.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function isValidHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
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
 * Received headers plus hoisted query headers; a hoisted value wins, as S3 applies the signed URL,
 * so bans, checksum verification and forwarding see them too and no query parameter can smuggle
 * past a header rule. A hoisted value no header can carry (CR/LF, control characters, beyond
 * Latin-1) is the client's error. Signature verification never uses this view.
 */
export function effectiveHeaders(headers: IncomingHttpHeaders, query: readonly QueryParameter[]): HeaderMap {
  let merged: Record<string, string | readonly string[] | undefined> | null = null;
  for (const parameter of query) {
    if (!isHoistedHeaderParameter(parameter.name)) continue;
    const name = parameter.name.toLowerCase();
    if (isIgnoredHoistedParameter(name)) continue;
    if (!isValidHeaderValue(parameter.value)) throw new S3Error('InvalidHeaderParameter');
    merged ??= { ...headers };
    merged[name] = parameter.value;
  }
  return merged ?? headers;
}
