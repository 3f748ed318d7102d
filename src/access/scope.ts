/**
 * A storage credential's scope: which buckets of its organisation it reaches, optionally only
 * under some key prefixes of a bucket, and which HTTP methods it may use. Both planes use this
 * module: the control plane to validate what people set (and what it presigns), the storage
 * endpoint to decide each request.
 */
import { MAX_KEY_BYTES } from '../protocol/limits.js';

export type ScopeLevel = 'read-only' | 'read-write';

/** The shape people send and read back (control-plane.md). */
export interface CredentialScope {
  buckets: string[];
  level?: ScopeLevel;
  methods?: string[];
  /**
   * Per bucket, the key prefixes the credential is limited to; a bucket not named here is
   * reachable whole. `{"photos": ["users/42/"]}`: only keys under users/42/ of photos.
   */
  prefixes?: Record<string, string[]>;
}

/** Prefixes per bucket a scope may name (each at most an S3 key's length, MAX_KEY_BYTES). */
export const MAX_PREFIXES_PER_BUCKET = 100;

export const READ_METHODS: readonly string[] = ['GET', 'HEAD'];
export const OBJECT_METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'];

const LEVEL_METHODS: Record<ScopeLevel, readonly string[]> = {
  'read-only': READ_METHODS,
  'read-write': OBJECT_METHODS,
};

export class ScopeValidationError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'ScopeValidationError';
    this.field = field;
  }
}

/**
 * Checks a scope and returns it in stored form: `level` kept when given, `methods` always the explicit,
 * upper-cased, de-duplicated list the storage endpoint checks against.
 */
export function normaliseScope(
  input: CredentialScope,
): Required<Pick<CredentialScope, 'buckets' | 'methods'>> & Pick<CredentialScope, 'level' | 'prefixes'> {
  if (!Array.isArray(input.buckets) || input.buckets.length === 0) {
    throw new ScopeValidationError('scope.buckets', 'must list at least one bucket name, or "*"');
  }
  const buckets = [...new Set(input.buckets.map((bucket) => String(bucket).trim()))];
  if (buckets.some((bucket) => bucket.length === 0)) {
    throw new ScopeValidationError('scope.buckets', 'bucket names must not be empty');
  }
  if (buckets.includes('*') && buckets.length > 1) {
    throw new ScopeValidationError('scope.buckets', '"*" already covers every bucket; give it alone');
  }
  if (input.level !== undefined && input.methods !== undefined) {
    throw new ScopeValidationError('scope', 'give either level or methods, not both');
  }
  const prefixes = normalisePrefixes(input.prefixes, buckets);
  const withPrefixes = prefixes === undefined ? {} : { prefixes };
  if (input.level !== undefined) {
    if (!(input.level in LEVEL_METHODS)) {
      throw new ScopeValidationError('scope.level', 'must be "read-only" or "read-write"');
    }
    return { buckets, level: input.level, methods: [...LEVEL_METHODS[input.level]], ...withPrefixes };
  }
  if (input.methods === undefined || input.methods.length === 0) {
    throw new ScopeValidationError(
      'scope',
      'give a level ("read-only" or "read-write") or a list of methods',
    );
  }
  const methods = [...new Set(input.methods.map((method) => String(method).toUpperCase()))];
  const unknown = methods.filter((method) => !OBJECT_METHODS.includes(method));
  if (unknown.length > 0) {
    throw new ScopeValidationError(
      'scope.methods',
      `unknown method ${unknown.join(', ')}; allowed: ${OBJECT_METHODS.join(', ')}`,
    );
  }
  return { buckets, methods, ...withPrefixes };
}

function normalisePrefixes(
  input: CredentialScope['prefixes'],
  buckets: readonly string[],
): Record<string, string[]> | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ScopeValidationError('scope.prefixes', 'must map bucket names to lists of key prefixes');
  }
  const prefixes: Record<string, string[]> = {};
  for (const [bucket, list] of Object.entries(input)) {
    const field = `scope.prefixes.${bucket}`;
    if (!buckets.includes('*') && !buckets.includes(bucket)) {
      throw new ScopeValidationError(field, `bucket "${bucket}" is not in scope.buckets`);
    }
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_PREFIXES_PER_BUCKET) {
      throw new ScopeValidationError(field, `must list 1 to ${MAX_PREFIXES_PER_BUCKET} key prefixes`);
    }
    const unique = [...new Set(list.map(String))];
    for (const prefix of unique) {
      if (prefix === '' || Buffer.byteLength(prefix, 'utf8') > MAX_KEY_BYTES || prefix.includes('\u0000')) {
        throw new ScopeValidationError(
          field,
          `a prefix must be 1 to ${MAX_KEY_BYTES} bytes without NUL (to reach the whole bucket, leave it out of prefixes)`,
        );
      }
    }
    prefixes[bucket] = unique;
  }
  return Object.keys(prefixes).length === 0 ? undefined : prefixes;
}

export function scopeCoversBucket(scope: CredentialScope, bucket: string): boolean {
  return scope.buckets.includes('*') || scope.buckets.includes(bucket);
}

export function scopeAllowsMethod(scope: CredentialScope, method: string): boolean {
  const methods = scope.methods ?? LEVEL_METHODS[scope.level ?? 'read-only'];
  const upper = method.toUpperCase();
  // OPTIONS is never sent signed by browsers; HEAD is a read wherever GET is allowed.
  return methods.includes(upper) || (upper === 'HEAD' && methods.includes('GET'));
}

/** The prefixes a scope limits `bucket` to, or null when the whole bucket is reachable. */
export function scopePrefixes(scope: CredentialScope, bucket: string): readonly string[] | null {
  return scope.prefixes?.[bucket] ?? null;
}

/** Whether the scope reaches `key` of `bucket` (always, for a bucket without prefixes). */
export function scopeCoversKey(scope: CredentialScope, bucket: string, key: string): boolean {
  const prefixes = scopePrefixes(scope, bucket);
  return prefixes === null || prefixes.some((prefix) => key.startsWith(prefix));
}

/**
 * Whether a listing of `bucket` with this `prefix` parameter stays inside the scope: every key it
 * could name starts with an allowed prefix, so the prefix parameter itself must.
 */
export function scopeCoversListing(scope: CredentialScope, bucket: string, prefix: string): boolean {
  return scopeCoversKey(scope, bucket, prefix);
}
