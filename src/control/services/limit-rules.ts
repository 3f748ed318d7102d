/**
 * Who may set which tenant limit, and how the limits fit together: platform admins set an
 * organisation's storage quota and request rate; its owners and admins set the rate of each of its
 * credentials (at most the organisation's) and each bucket's quota (at most the organisation's).
 * A field left out of an update keeps its value; null removes the limit.
 */
import type { OrganisationLimits, RequestRate, StorageQuota } from '../../store/records.js';
import type { BucketQuotaUpdate } from '../models/buckets.js';
import type { OrganisationLimitsUpdate, OrganisationLimitsView } from '../models/organisation.js';
import { ProblemError, validationProblem, type FieldError } from '../problems.js';

/** The fields of an organisation's limits only platform admins may change. */
const PLATFORM_ADMIN_FIELDS = ['maxBytes', 'maxObjects', 'requestsPerSecond', 'requestBurst'] as const;

export function limitsView(limits: OrganisationLimits): OrganisationLimitsView {
  return {
    maxBytes: limits.storage.maxBytes,
    maxObjects: limits.storage.maxObjects,
    requestsPerSecond: limits.requests?.requestsPerSecond ?? null,
    requestBurst: limits.requests?.burst ?? null,
    credentialRequestsPerSecond: limits.credentialRequests?.requestsPerSecond ?? null,
    credentialRequestBurst: limits.credentialRequests?.burst ?? null,
  };
}

/** `update[field]` when given (null included), else `current`. */
function pick<T, K extends keyof T>(update: T, field: K, current: T[K]): T[K] {
  return update[field] === undefined ? current : update[field];
}

/** A rate from its two fields; a burst without a rate is an error. */
function rateOf(
  requestsPerSecond: number | null | undefined,
  burst: number | null | undefined,
  burstField: string,
  errors: FieldError[],
): RequestRate | null {
  if (requestsPerSecond === null || requestsPerSecond === undefined) {
    if (burst !== null && burst !== undefined)
      errors.push({ field: burstField, message: 'needs a requests-per-second rate to go with it' });
    return null;
  }
  return { requestsPerSecond, burst: burst ?? null };
}

/** Each of `quota`'s limits that exceeds `within`'s, as field errors under `prefix`. */
export function quotaExcess(quota: StorageQuota, within: StorageQuota, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['maxBytes', 'maxObjects'] as const) {
    const own = quota[field];
    const limit = within[field];
    if (own !== null && limit !== null && own > limit)
      errors.push({ field: `${prefix}.${field}`, message: `must be at most the organisation's ${limit}` });
  }
  return errors;
}

/**
 * Each of the organisation's storage limits that is below a bucket's own, as field errors: a
 * bucket's quota lies within its organisation's, so the organisation's cannot be lowered past it.
 */
export function bucketQuotasAbove(
  organisation: StorageQuota,
  buckets: readonly { readonly name: string; readonly quota: StorageQuota }[],
): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['maxBytes', 'maxObjects'] as const) {
    const limit = organisation[field];
    if (limit === null) continue;
    let largest: { name: string; value: number } | null = null;
    for (const bucket of buckets) {
      const value = bucket.quota[field];
      if (value !== null && value > limit && (largest === null || value > largest.value))
        largest = { name: bucket.name, value };
    }
    if (largest !== null)
      errors.push({
        field: `limits.${field}`,
        message: `must be at least ${largest.value}, the quota of bucket ${largest.name}: lower the bucket's quota first`,
      });
  }
  return errors;
}

/** The organisation's limits after `update`, checked against who the caller is. */
export function updatedOrganisationLimits(
  current: OrganisationLimits,
  update: OrganisationLimitsUpdate,
  platformAdmin: boolean,
): OrganisationLimits {
  if (!platformAdmin) {
    const refused = PLATFORM_ADMIN_FIELDS.filter((field) => update[field] !== undefined);
    if (refused.length > 0) {
      throw new ProblemError(
        'platform_admin_required',
        `Only platform admins set an organisation's storage quota and request rate (limits.${refused.join(', limits.')}).`,
      );
    }
  }
  const view = limitsView(current);
  const errors: FieldError[] = [];
  const requests = rateOf(
    pick(update, 'requestsPerSecond', view.requestsPerSecond),
    pick(update, 'requestBurst', view.requestBurst),
    'limits.requestBurst',
    errors,
  );
  const credentialRequests = rateOf(
    pick(update, 'credentialRequestsPerSecond', view.credentialRequestsPerSecond),
    pick(update, 'credentialRequestBurst', view.credentialRequestBurst),
    'limits.credentialRequestBurst',
    errors,
  );
  if (
    requests !== null &&
    credentialRequests !== null &&
    credentialRequests.requestsPerSecond > requests.requestsPerSecond
  ) {
    errors.push({
      field: 'limits.credentialRequestsPerSecond',
      message: `must be at most the organisation's ${requests.requestsPerSecond} requests per second`,
    });
  }
  if (errors.length > 0) throw validationProblem(errors);
  return {
    storage: {
      maxBytes: pick(update, 'maxBytes', view.maxBytes) ?? null,
      maxObjects: pick(update, 'maxObjects', view.maxObjects) ?? null,
    },
    requests,
    credentialRequests,
  };
}

/** The bucket's quota after `update`, within its organisation's. */
export function updatedBucketQuota(
  current: StorageQuota,
  update: BucketQuotaUpdate,
  organisation: StorageQuota,
): StorageQuota {
  const quota = {
    maxBytes: pick(update, 'maxBytes', current.maxBytes) ?? null,
    maxObjects: pick(update, 'maxObjects', current.maxObjects) ?? null,
  };
  const errors = quotaExcess(quota, organisation, 'quota');
  if (errors.length > 0) throw validationProblem(errors);
  return quota;
}
