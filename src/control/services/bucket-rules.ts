import type { CorsRule } from '../../store/records.js';
import type { CorsRuleBody } from '../models/buckets.js';
import type { FieldError } from '../problems.js';

const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;
const RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/**
 * Why a name is not a DNS-compatible S3 bucket name (AWS's general-purpose bucket rules), or null.
 * Names are global across organisations and appear as host names in virtual-hosted addressing.
 */
export function bucketNameProblem(name: string): string | null {
  if (name.length < 3 || name.length > 63) return 'must be 3 to 63 characters long';
  if (!/^[a-z0-9.-]+$/.test(name)) return 'may hold only lower-case letters, digits, dots and hyphens';
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return 'must begin and end with a letter or digit';
  if (name.includes('..')) return 'must not hold two dots in a row';
  if (name.includes('.-') || name.includes('-.')) return 'must not hold a dot next to a hyphen';
  if (IP_ADDRESS.test(name)) return 'must not look like an IP address';
  const prefix = RESERVED_PREFIXES.find((reserved) => name.startsWith(reserved));
  if (prefix !== undefined) return `must not begin with the reserved prefix "${prefix}"`;
  const suffix = RESERVED_SUFFIXES.find((reserved) => name.endsWith(reserved));
  if (suffix !== undefined) return `must not end with the reserved suffix "${suffix}"`;
  return null;
}

const CORS_METHODS: readonly string[] = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** scheme://host[:port], where one "*" may stand for part of the host (as S3 allows). */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/i;

/** Checks what the schema cannot and returns the rules in stored form (methods upper-cased). */
export function validateCorsRules(rules: CorsRuleBody[]): { rules: CorsRule[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const normalised = rules.map((rule, index): CorsRule => {
    const at = `rules[${index}]`;
    rule.allowedOrigins.forEach((origin, position) => {
      const stars = origin.split('*').length - 1;
      if (stars > 1 || (origin !== '*' && !ORIGIN.test(origin.replace('*', 'x')))) {
        errors.push({
          field: `${at}.allowedOrigins[${position}]`,
          message: 'must be "*" or scheme://host[:port] with at most one "*"',
        });
      }
    });
    const methods = rule.allowedMethods.map((method) => method.toUpperCase());
    methods.forEach((method, position) => {
      if (!CORS_METHODS.includes(method)) {
        errors.push({
          field: `${at}.allowedMethods[${position}]`,
          message: `must be one of ${CORS_METHODS.join(', ')}`,
        });
      }
    });
    rule.allowedHeaders?.forEach((header, position) => {
      const stars = header.split('*').length - 1;
      if (stars > 1 || !HEADER_NAME.test(header)) {
        errors.push({
          field: `${at}.allowedHeaders[${position}]`,
          message: 'must be a header name, with at most one "*"',
        });
      }
    });
    rule.exposeHeaders?.forEach((header, position) => {
      if (header.includes('*') || !HEADER_NAME.test(header)) {
        errors.push({ field: `${at}.exposeHeaders[${position}]`, message: 'must be a header name' });
      }
    });
    return {
      allowedOrigins: rule.allowedOrigins,
      allowedMethods: [...new Set(methods)],
      ...(rule.allowedHeaders === undefined ? {} : { allowedHeaders: rule.allowedHeaders }),
      ...(rule.exposeHeaders === undefined ? {} : { exposeHeaders: rule.exposeHeaders }),
      ...(rule.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: rule.maxAgeSeconds }),
    };
  });
  return { rules: normalised, errors };
}

/** Keys with "." or ".." path segments address other objects once normalised; storage refuses them. */
export function objectKeyProblem(key: string): string | null {
  if (key.length === 0) return 'must not be empty';
  if (Buffer.byteLength(key, 'utf8') > 1024) return 'must be at most 1024 bytes';
  if (key.split('/').some((segment) => segment === '.' || segment === '..')) {
    return 'must not contain "." or ".." path segments';
  }
  return null;
}
