/**
 * The policy of a browser form upload (POST Object): a base64 JSON document with an expiration and
 * conditions, signed with SigV4 (the signature covers the base64 text itself). The conditions bound
 * what the form may send: exact values (`{"key": "a"}`, `["eq", "$key", "a"]`), prefixes
 * (`["starts-with", "$key", "uploads/"]`) and the file's size (`["content-length-range", 0, 1048576]`);
 * and every field the form sends must be named by one of them (but the few S3 exempts).
 *
 * A policy lives at most as long as a presigned URL (service-spec §5.3 and §8: 7 days), counted
 * from the form's x-amz-date. S3 itself bounds a POST policy only by its `expiration`, so a policy
 * made client-side could otherwise stay valid for years; the gateway refuses it instead.
 */
import { MAX_PRESIGN_SECONDS } from '../protocol/limits.js';

export type PolicyCondition =
  | {
      readonly kind: 'eq' | 'starts-with';
      readonly field: string;
      readonly value: string;
      readonly text: string;
    }
  | {
      readonly kind: 'content-length-range';
      readonly min: number;
      readonly max: number;
      readonly text: string;
    };

export interface PostPolicy {
  readonly expiration: Date;
  readonly conditions: readonly PolicyCondition[];
}

/** Form fields no condition has to name (S3's list; `x-ignore-*` too). */
const EXEMPT_FIELDS: ReadonlySet<string> = new Set(['policy', 'x-amz-signature', 'file', 'bucket']);

function fieldName(reference: unknown): string | null {
  if (typeof reference !== 'string' || !reference.startsWith('$') || reference.length < 2) return null;
  return reference.slice(1).toLowerCase();
}

function condition(entry: unknown): PolicyCondition | null {
  const text = JSON.stringify(entry);
  if (Array.isArray(entry)) {
    const [operator, first, second] = entry as unknown[];
    if (entry.length !== 3 || typeof operator !== 'string') return null;
    if (operator.toLowerCase() === 'content-length-range') {
      const min = Number(first);
      const max = Number(second);
      if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || max < min) return null;
      return { kind: 'content-length-range', min, max, text };
    }
    const field = fieldName(first);
    const kind = operator.toLowerCase();
    if (field === null || typeof second !== 'string' || (kind !== 'eq' && kind !== 'starts-with'))
      return null;
    return { kind, field, value: second, text };
  }
  if (typeof entry === 'object' && entry !== null) {
    const pairs = Object.entries(entry as Record<string, unknown>);
    if (pairs.length !== 1) return null;
    const [name, value] = pairs[0] as [string, unknown];
    if (typeof value !== 'string') return null;
    return { kind: 'eq', field: name.toLowerCase(), value, text };
  }
  return null;
}

/** The policy a form carries, or null when it is not base64 JSON of the expected shape. */
export function parsePostPolicy(base64: string): PostPolicy | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof document !== 'object' || document === null) return null;
  const { expiration, conditions } = document as { expiration?: unknown; conditions?: unknown };
  if (typeof expiration !== 'string' || !Array.isArray(conditions)) return null;
  const expires = new Date(expiration);
  if (Number.isNaN(expires.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(expiration)) return null;
  const parsed = conditions.map(condition);
  if (parsed.some((entry) => entry === null)) return null;
  return { expiration: expires, conditions: parsed as PolicyCondition[] };
}

export type PolicyVerdict =
  | { readonly ok: true; readonly lengthRange: { readonly min: number; readonly max: number } | null }
  | {
      readonly ok: false;
      readonly failure: 'lifetime' | 'expired' | 'condition' | 'extra-field';
      readonly detail: string;
    };

/**
 * Holds the form against its policy. `fields` are the form's fields by lower-case name, plus
 * `bucket` (the addressed bucket, which conditions may name); `signedAt` is the form's verified
 * x-amz-date. The file's size is checked against the `content-length-range` the verdict returns,
 * once known.
 */
export function checkPostPolicy(
  policy: PostPolicy,
  fields: ReadonlyMap<string, string>,
  times: { readonly now: Date; readonly signedAt: Date },
): PolicyVerdict {
  // In whole seconds, as x-amz-date counts: signers date the form to the second and put the
  // milliseconds of the same instant into the expiration (the AWS SDKs' 604800 s is allowed).
  const lifetimeSeconds = Math.floor((policy.expiration.getTime() - times.signedAt.getTime()) / 1000);
  if (lifetimeSeconds > MAX_PRESIGN_SECONDS) return { ok: false, failure: 'lifetime', detail: '' };
  if (times.now.getTime() >= policy.expiration.getTime())
    return { ok: false, failure: 'expired', detail: '' };
  let lengthRange: { min: number; max: number } | null = null;
  const named = new Set<string>();
  for (const rule of policy.conditions) {
    if (rule.kind === 'content-length-range') {
      lengthRange = { min: rule.min, max: rule.max };
      continue;
    }
    named.add(rule.field);
    const value = fields.get(rule.field);
    const holds =
      rule.kind === 'eq'
        ? value === rule.value
        : (value ?? '').startsWith(rule.value) && (value !== undefined || rule.value === '');
    if (!holds) return { ok: false, failure: 'condition', detail: rule.text };
  }
  const extra = [...fields.keys()].filter(
    (name) => !EXEMPT_FIELDS.has(name) && !name.startsWith('x-ignore-') && !named.has(name),
  );
  if (extra.length > 0) return { ok: false, failure: 'extra-field', detail: extra.join(', ') };
  return { ok: true, lengthRange };
}
