/**
 * The SigV4 canonical request, S3 flavour.
 *
 * S3 signs the path as sent: no dot-segment removal, no slash merging, no second round of
 * encoding (the generic SigV4 test suite does all three; S3 does none). What S3 does do is
 * spell every escape one way: each path segment and each query name/value is decoded and
 * re-encoded with the SigV4 encoder, so `%7e`, `%7E` and `~` all sign as `~`.
 */

import { createHash } from 'node:crypto';

import { SCOPE_TERMINATOR, SIGV4_ALGORITHM } from './constants.js';
import { normalisePercentEncoding } from './uri-encoding.js';

/** Request headers as Node hands them over: lower-case names; arrays for repeated headers. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A header as one string. A repeated header joins with ',' so that a header which must
 * appear once (x-amz-date, Authorization) fails its format check instead of one copy
 * being silently picked.
 */
export function headerText(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}

export interface RequestTarget {
  /** Path exactly as received, still percent-encoded. */
  readonly path: string;
  /** Query string without the leading `?` ('' when absent). */
  readonly query: string;
}

/** `http://host:port` at the start of an absolute-form request-target (RFC 9112 3.2.2). */
const ABSOLUTE_FORM_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/;

/**
 * Splits a raw request-target (`/bucket/key?x=1`) at the first `?`. An absolute-form target
 * (`http://host/bucket/key`, which HTTP/1.1 servers must accept) signs by its path alone,
 * the way the client's signer saw it. A fragment is never part of a request-target.
 */
export function splitRequestTarget(rawTarget: string): RequestTarget {
  const originForm = rawTarget.replace(ABSOLUTE_FORM_PREFIX, '');
  const questionMark = originForm.indexOf('?');
  if (questionMark === -1) return { path: originForm, query: '' };
  return { path: originForm.slice(0, questionMark), query: originForm.slice(questionMark + 1) };
}

/**
 * The canonical URI: every `/`-separated segment decoded and re-encoded. Separators and
 * empty segments (`//`) survive, so the canonical path addresses the same key. An escaped
 * slash (`%2F`) stays escaped because it is re-encoded inside its segment.
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  return rawPath.split('/').map(normalisePercentEncoding).join('/');
}

export interface QueryParameter {
  /** Decoded and SigV4-encoded name. */
  readonly name: string;
  /** Decoded and SigV4-encoded value; '' for a bare subresource such as `?uploads`. */
  readonly value: string;
}

/** Parses a raw query string into canonically encoded name/value pairs, in arrival order. */
export function parseCanonicalQuery(rawQuery: string): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  for (const piece of rawQuery.split('&')) {
    // `a=1&&b=2` and a trailing `&` carry no parameter; signers never emit one for them.
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    const rawName = equals === -1 ? piece : piece.slice(0, equals);
    const rawValue = equals === -1 ? '' : piece.slice(equals + 1);
    parameters.push({ name: normalisePercentEncoding(rawName), value: normalisePercentEncoding(rawValue) });
  }
  return parameters;
}

function compareCodeUnits(left: string, right: string): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

/**
 * The canonical query string: pairs sorted by encoded name, then by encoded value.
 * `excludeName` drops a parameter (X-Amz-Signature when verifying a presigned URL; it
 * cannot sign itself). The names are compared after encoding, as SigV4 specifies.
 */
export function canonicalQueryString(rawQuery: string, excludeName?: string): string {
  const excluded = excludeName === undefined ? undefined : normalisePercentEncoding(excludeName);
  return parseCanonicalQuery(rawQuery)
    .filter((parameter) => parameter.name !== excluded)
    .sort(
      (left, right) => compareCodeUnits(left.name, right.name) || compareCodeUnits(left.value, right.value),
    )
    .map((parameter) => `${parameter.name}=${parameter.value}`)
    .join('&');
}

/** Trims a header value and collapses inner runs of spaces/tabs into one space. */
function trimHeaderValue(value: string): string {
  return value.trim().replace(/[ \t]+/g, ' ');
}

/**
 * A header's canonical value. Repeated headers (an array, as `req.headersDistinct` gives
 * them) join with a bare comma, as SigV4 specifies. A missing header signs as empty: the
 * client could only have produced a matching signature by signing an empty value.
 */
export function canonicalHeaderValue(value: string | readonly string[] | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return trimHeaderValue(value);
  return value.map(trimHeaderValue).join(',');
}

/** The canonical-headers block: one `name:value\n` line per signed header, in the order the client listed them. */
export function canonicalHeadersBlock(headers: RequestHeaders, signedHeaders: readonly string[]): string {
  return signedHeaders
    .map((name) => `${name}:${canonicalHeaderValue(headers[name.toLowerCase()])}\n`)
    .join('');
}

export interface CanonicalRequestParts {
  readonly method: string;
  /** Output of {@link canonicalUri}. */
  readonly canonicalUri: string;
  /** Output of {@link canonicalQueryString}. */
  readonly canonicalQuery: string;
  readonly headers: RequestHeaders;
  readonly signedHeaders: readonly string[];
  /** Hex SHA-256 of the payload or one of the literal payload modes (UNSIGNED-PAYLOAD, ...). */
  readonly payloadHash: string;
}

export function buildCanonicalRequest(parts: CanonicalRequestParts): string {
  return [
    parts.method,
    parts.canonicalUri,
    parts.canonicalQuery,
    canonicalHeadersBlock(parts.headers, parts.signedHeaders),
    parts.signedHeaders.join(';'),
    parts.payloadHash,
  ].join('\n');
}

export interface CredentialScope {
  /** YYYYMMDD */
  readonly date: string;
  readonly region: string;
  readonly service: string;
}

/** `20130524/us-east-1/s3/aws4_request` */
export function credentialScope(scope: CredentialScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/${SCOPE_TERMINATOR}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function stringToSign(amzDate: string, scope: CredentialScope, canonicalRequest: string): string {
  return [SIGV4_ALGORITHM, amzDate, credentialScope(scope), sha256Hex(canonicalRequest)].join('\n');
}
