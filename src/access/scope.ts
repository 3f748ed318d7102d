/**
 * A storage credential's scope: which buckets of its organisation it reaches and which HTTP methods it
 * may use. Both planes use this module: the control plane to validate what people set, the storage
 * endpoint to decide each request.
 */

export type ScopeLevel = 'read-only' | 'read-write';

/** The shape people send and read back (control-plane.md). */
export interface CredentialScope {
  buckets: string[];
  level?: ScopeLevel;
  methods?: string[];
}

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
): Required<Pick<CredentialScope, 'buckets' | 'methods'>> & Pick<CredentialScope, 'level'> {
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
  if (input.level !== undefined) {
    if (!(input.level in LEVEL_METHODS)) {
      throw new ScopeValidationError('scope.level', 'must be "read-only" or "read-write"');
    }
    return { buckets, level: input.level, methods: [...LEVEL_METHODS[input.level]] };
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
  return { buckets, methods };
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
