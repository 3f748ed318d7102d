/**
 * CORS for browser uploads and downloads, from the bucket's rules (set through the control plane,
 * read from the access cache). A preflight needs no signature; without a rule for its origin,
 * method and headers it gets a 403 error document and the browser fails, which is the symptom
 * the spec describes. Actual responses, errors included, carry the CORS headers of the matching
 * rule so a browser can read them.
 */
import type { AccessCache } from '../store/access-cache.js';
import type { CorsRule } from '../store/records.js';
import { assertOrganisationActive, loadBucket } from './authorise.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { sendEmpty } from './respond.js';

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

/** Sets the exchange's CORS response headers when the bucket has a rule for this browser request. */
export async function applyCors(exchange: S3Exchange, cache: AccessCache): Promise<void> {
  const origin = exchange.headers.origin;
  if (origin === undefined || exchange.method === 'OPTIONS' || exchange.address?.bucket == null) return;
  const rules = (await loadBucket(exchange, cache))?.cors?.rules ?? [];
  const rule = findCorsRule(rules, origin, exchange.method);
  if (rule !== undefined) exchange.corsHeaders = actualResponseHeaders(rule, origin);
}

/** Answers an OPTIONS preflight from the bucket's rules; no signature involved. */
export async function answerPreflight(exchange: S3Exchange, cache: AccessCache): Promise<void> {
  const origin = exchange.headers.origin;
  if (origin === undefined) throw new S3Error('MissingCorsHeaders');
  const method = exchange.headers['access-control-request-method'];
  if (method === undefined || method.trim() === '') throw new S3Error('InvalidCorsRequestMethod');
  if (exchange.address?.bucket == null) throw new S3Error('CorsPreflightRefused');
  const entry = await loadBucket(exchange, cache);
  if (entry === null) throw new S3Error('NoSuchBucket');
  // Every storage request of a suspended organisation is AccountProblem, a browser's preflight too.
  await assertOrganisationActive(exchange, cache, entry.bucket.organisationId);
  const headers = requestedHeaders(exchange.headers['access-control-request-headers']);
  const rule = findCorsRule(entry.cors?.rules ?? [], origin, method.trim(), headers);
  if (rule === undefined) throw new S3Error('CorsPreflightRefused');
  sendEmpty(exchange, 200, preflightResponseHeaders(rule, origin, headers));
}
