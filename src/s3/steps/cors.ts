/**
 * CORS for browser uploads and downloads, from the bucket's rules (set through the control plane,
 * read from the access cache). Actual responses, errors included, carry the CORS headers of the
 * matching rule so a browser can read them; preflights are answered in answers/preflight.ts.
 */
import type { AccessCache, BucketEntry } from '../../store/access-cache.js';
import type { CorsRule } from '../../store/records.js';
import type { Exchange } from '../exchange.js';
import type { Addressed } from '../stages.js';
import { addressedBucket } from './authorise.js';

/** A rule origin may hold one `*` wildcard: `https://*.example.com`, or `*` alone. */
export function originMatches(pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === origin;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  return (
    origin.length >= prefix.length + suffix.length && origin.startsWith(prefix) && origin.endsWith(suffix)
  );
}

function headerAllowed(patterns: readonly string[], header: string): boolean {
  return patterns.some((pattern) => originMatches(pattern.toLowerCase(), header));
}

/** `Access-Control-Request-Headers` as lower-case names. */
export function requestedHeaders(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/** The first rule (in order, as S3 evaluates them) allowing this origin, method and header set. */
export function findCorsRule(
  rules: readonly CorsRule[],
  origin: string,
  method: string,
  headers: readonly string[] = [],
): CorsRule | undefined {
  return rules.find(
    (rule) =>
      rule.allowedOrigins.some((pattern) => originMatches(pattern, origin)) &&
      rule.allowedMethods.some((allowed) => allowed.toUpperCase() === method.toUpperCase()) &&
      headers.every((header) => headerAllowed(rule.allowedHeaders ?? [], header)),
  );
}

function allowOrigin(rule: CorsRule, origin: string): Record<string, string> {
  // A rule for every origin answers `*`; a named origin is echoed and may send credentials.
  const anyOrigin = rule.allowedOrigins.includes('*');
  return anyOrigin
    ? { 'access-control-allow-origin': '*' }
    : { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' };
}

/** Headers for an actual (non-preflight) response to a browser request from `origin`. */
export function actualResponseHeaders(rule: CorsRule, origin: string): Record<string, string> {
  const headers: Record<string, string> = {
    ...allowOrigin(rule, origin),
    'access-control-allow-methods': rule.allowedMethods.map((method) => method.toUpperCase()).join(', '),
    vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
  };
  if (rule.exposeHeaders !== undefined && rule.exposeHeaders.length > 0) {
    headers['access-control-expose-headers'] = rule.exposeHeaders.join(', ');
  }
  if (rule.maxAgeSeconds !== undefined) headers['access-control-max-age'] = String(rule.maxAgeSeconds);
  return headers;
}

/** Headers for a successful preflight: the actual response's, plus the request headers allowed. */
export function preflightResponseHeaders(
  rule: CorsRule,
  origin: string,
  headers: readonly string[],
): Record<string, string> {
  const answer = actualResponseHeaders(rule, origin);
  if (headers.length > 0) answer['access-control-allow-headers'] = headers.join(', ');
  return answer;
}

/**
 * Sets the exchange's CORS response headers when the bucket has a rule for this browser request.
 * Returns the bucket entry when it had to be looked up (authorisation reuses it), else undefined;
 * a promise only when the cache has to load it.
 */
export function applyCors(
  stage: Addressed,
  cache: AccessCache,
): BucketEntry | null | undefined | Promise<BucketEntry | null> {
  const { exchange } = stage;
  const origin = exchange.headers.origin;
  if (origin === undefined || exchange.method === 'OPTIONS' || stage.bucket === null) return undefined;
  const entry = addressedBucket(stage, cache);
  return entry instanceof Promise
    ? entry.then((loaded) => corsFor(exchange, loaded, origin))
    : corsFor(exchange, entry, origin);
}

function corsFor(exchange: Exchange, entry: BucketEntry | null, origin: string): BucketEntry | null {
  const rule = findCorsRule(entry?.cors?.rules ?? [], origin, exchange.method);
  if (rule !== undefined) exchange.corsHeaders = actualResponseHeaders(rule, origin);
  return entry;
}
