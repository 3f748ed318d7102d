/**
 * KEY=VALUE changes to storage quotas and request rates, as `s3gw organisation limits` and
 * `s3gw buckets quota` take them: a number, a byte size with a unit for byte limits (100GiB), or
 * `none` to remove the limit.
 */
import { UsageError } from './errors.js';

const BYTE_UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KIB: 2 ** 10,
  MIB: 2 ** 20,
  GIB: 2 ** 30,
  TIB: 2 ** 40,
};

function byteSize(key: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(raw);
  const unit = BYTE_UNITS[(match?.[2] ?? '').toUpperCase() || 'B'];
  if (match === null || unit === undefined) {
    throw new UsageError(`${key}=${raw}: give bytes, with a unit if you like (100GiB, 500MB), or none`);
  }
  return Math.round(Number(match[1]) * unit);
}

/** What a limit counts: bytes take a unit (100GiB), counts are whole, rates may be fractions. */
export type LimitKind = 'bytes' | 'count' | 'rate';

/**
 * Parses the changes; `keys` names each allowed key (the API's field, see the callers' `satisfies`)
 * and what it counts. The answer has only the keys given, as the API's update objects want.
 */
export function parseLimitChanges<Key extends string>(
  changes: readonly string[],
  keys: Readonly<Record<Key, LimitKind>>,
): Partial<Record<Key, number | null>> {
  const parsed: Partial<Record<Key, number | null>> = {};
  for (const change of changes) {
    const equals = change.indexOf('=');
    const named = equals <= 0 ? change : change.slice(0, equals);
    // Object.hasOwn: "constructor=5" is not a limit either.
    const key = Object.hasOwn(keys, named) ? (named as Key) : undefined;
    if (equals <= 0 || key === undefined) {
      throw new UsageError(
        `a limit is KEY=VALUE with KEY one of ${Object.keys(keys).join(', ')}; not "${change}"`,
      );
    }
    const kind = keys[key];
    const raw = change.slice(equals + 1).trim();
    if (raw === 'none') parsed[key] = null;
    else if (kind === 'bytes') parsed[key] = byteSize(key, raw);
    else if (/^\d+(\.\d+)?$/.test(raw) && (kind === 'rate' || /^\d+$/.test(raw))) parsed[key] = Number(raw);
    else
      throw new UsageError(`${key}=${raw}: give a ${kind === 'rate' ? 'number' : 'whole number'}, or none`);
  }
  return parsed;
}

/** The keys of a limits table, typed as the API's fields they were checked against. */
export function limitKeys<Key extends string>(keys: Readonly<Record<Key, LimitKind>>): Key[] {
  return Object.keys(keys) as Key[];
}

/** A limit as people read it. */
export function describeLimit(value: number | null | undefined): string {
  return value === null || value === undefined ? 'none' : String(value);
}
