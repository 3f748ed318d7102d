/**
 * The SigV4 canonical request, S3 flavour.
 *
 * S3 signs the path as sent: no dot-segment removal, no slash merging, no second round of
 * encoding (the generic SigV4 test suite does all three; S3 does none). What S3 does do is spell
 * every escape one way: each path segment and each query name/value is decoded and re-encoded with
 * the SigV4 encoder, so `%7e`, `%7E` and `~` all sign as `~`.
 */
import { hash } from 'node:crypto';
import { normalisePercentEncoding } from '../protocol/encoding.js';
import type { HeaderMap } from '../protocol/headers.js';
import type { QueryParameter } from '../protocol/query.js';
import { compareCodeUnits, sortFew } from './code-unit-order.js';
import { SCOPE_TERMINATOR, SIGV4_ALGORITHM } from './constants.js';

/**
 * The canonical URI: every `/`-separated segment decoded and re-encoded. Separators and empty
 * segments (`//`) survive, so the canonical path addresses the same key. An escaped slash (`%2F`)
 * stays escaped because it is re-encoded inside its segment.
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  return rawPath.split('/').map(normalisePercentEncoding).join('/');
}

interface CanonicalPair {
  readonly name: string;
  readonly value: string;
}

function comparePairs(left: CanonicalPair, right: CanonicalPair): number {
  return compareCodeUnits(left.name, right.name) || compareCodeUnits(left.value, right.value);
}

/**
 * The canonical query string: pairs sorted by encoded name, then by encoded value. `excludeName`
 * drops a parameter (X-Amz-Signature when verifying a presigned URL; it cannot sign itself). Names
 * are compared after encoding, as SigV4 specifies.
 */
export function canonicalQueryString(query: readonly QueryParameter[], excludeName?: string): string {
  if (query.length === 0) return '';
  const excluded = excludeName === undefined ? undefined : normalisePercentEncoding(excludeName);
  const pairs: CanonicalPair[] = [];
  for (const parameter of query) {
    const name = normalisePercentEncoding(parameter.rawName);
    if (name !== excluded) pairs.push({ name, value: normalisePercentEncoding(parameter.rawValue) });
  }
  sortFew(pairs, comparePairs);
  let canonical = '';
  for (const pair of pairs)
    canonical += canonical === '' ? `${pair.name}=${pair.value}` : `&${pair.name}=${pair.value}`;
  return canonical;
}

/** Trims a header value and collapses inner runs of spaces/tabs into one space. */
function trimHeaderValue(value: string): string {
  const trimmed = value.trim();
  return trimmed.includes('  ') || trimmed.includes('\t') ? trimmed.replace(/[ \t]+/g, ' ') : trimmed;
}

/**
 * A header's canonical value. Repeated headers (an array, as `req.headersDistinct` gives them)
 * join with a bare comma, as SigV4 specifies. A missing header signs as empty: the client could
 * only have produced a matching signature by signing an empty value.
 */
export function canonicalHeaderValue(value: string | readonly string[] | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return trimHeaderValue(value);
  return value.map(trimHeaderValue).join(',');
}

/** The canonical-headers block: one `name:value\n` line per signed header, in the order listed. */
export function canonicalHeadersBlock(headers: HeaderMap, signedHeaders: readonly string[]): string {
  let block = '';
  for (const name of signedHeaders) block += `${name}:${canonicalHeaderValue(headers[name.toLowerCase()])}\n`;
  return block;
}

export interface CanonicalRequestParts {
  readonly method: string;
  /** Output of {@link canonicalUri}. */
  readonly canonicalUri: string;
  /** Output of {@link canonicalQueryString}. */
  readonly canonicalQuery: string;
  readonly headers: HeaderMap;
  readonly signedHeaders: readonly string[];
  /** Hex SHA-256 of the payload or one of the literal payload modes (UNSIGNED-PAYLOAD, ...). */
  readonly payloadHash: string;
}

export function buildCanonicalRequest(parts: CanonicalRequestParts): string {
  return `${parts.method}\n${parts.canonicalUri}\n${parts.canonicalQuery}\n${canonicalHeadersBlock(parts.headers, parts.signedHeaders)}\n${parts.signedHeaders.join(';')}\n${parts.payloadHash}`;
}

/** The date, region and service a SigV4 signature is scoped to (not the credential's access scope, access/scope.ts). */
export interface SigningScope {
  /** YYYYMMDD */
  readonly date: string;
  readonly region: string;
  readonly service: string;
}

/** `20130524/us-east-1/s3/aws4_request` */
export function credentialScope(scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/${SCOPE_TERMINATOR}`;
}

/** One-shot: a third of the cost of a Hash object, and every request hashes two canonical requests. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

export function stringToSign(amzDate: string, scope: SigningScope, canonicalRequest: string): string {
  return `${SIGV4_ALGORITHM}\n${amzDate}\n${credentialScope(scope)}\n${sha256Hex(canonicalRequest)}`;
}
