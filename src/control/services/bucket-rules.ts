import type { CorsRule } from '../../store/records.js';
import type { CorsRuleBody } from '../models/buckets.js';
import type { FieldError } from '../problems.js';

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
