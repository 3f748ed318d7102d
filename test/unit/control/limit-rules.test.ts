import { describe, expect, it } from 'vitest';
import {
  bucketQuotasAbove,
  updatedBucketQuota,
  updatedOrganisationLimits,
} from '../../../src/control/services/limit-rules.js';
import { ProblemError } from '../../../src/control/problems.js';
import type { OrganisationLimits } from '../../../src/store/records.js';

const NONE: OrganisationLimits = {
  storage: { maxBytes: null, maxObjects: null },
  requests: null,
  credentialRequests: null,
};

function problemOf(call: () => unknown): ProblemError {
  try {
    call();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('expected a problem');
}

describe('organisation limits', () => {
  it('keep what an update leaves out and remove what it sets to null', () => {
    const current: OrganisationLimits = {
      storage: { maxBytes: 1000, maxObjects: 10 },
      requests: { requestsPerSecond: 100, burst: null },
      credentialRequests: { requestsPerSecond: 10, burst: 20 },
    };
    expect(updatedOrganisationLimits(current, { maxObjects: null, requestBurst: 150 }, true)).toEqual({
      storage: { maxBytes: 1000, maxObjects: null },
      requests: { requestsPerSecond: 100, burst: 150 },
      credentialRequests: { requestsPerSecond: 10, burst: 20 },
    });
  });

  it('leave the storage quota and the organisation rate to platform admins', () => {
    const problem = problemOf(() => updatedOrganisationLimits(NONE, { maxBytes: 1 }, false));
    expect(problem.code).toBe('platform_admin_required');
    expect(
      updatedOrganisationLimits(NONE, { credentialRequestsPerSecond: 5 }, false).credentialRequests,
    ).toEqual({
      requestsPerSecond: 5,
      burst: null,
    });
  });

  it("hold a credential's rate to the organisation's, and a burst to a rate", () => {
    const limited = { ...NONE, requests: { requestsPerSecond: 10, burst: null } };
    const problem = problemOf(() =>
      updatedOrganisationLimits(limited, { credentialRequestsPerSecond: 11, requestBurst: null }, true),
    );
    expect(problem.errors?.map((error) => error.field)).toEqual(['limits.credentialRequestsPerSecond']);
    const orphan = problemOf(() => updatedOrganisationLimits(NONE, { credentialRequestBurst: 5 }, false));
    expect(orphan.errors?.map((error) => error.field)).toEqual(['limits.credentialRequestBurst']);
  });
});

describe('bucket quotas', () => {
  it("stay within the organisation's quota", () => {
    const organisation = { maxBytes: 1000, maxObjects: null };
    const none = { maxBytes: null, maxObjects: null };
    expect(updatedBucketQuota(none, { maxBytes: 1000, maxObjects: 5 }, organisation)).toEqual({
      maxBytes: 1000,
      maxObjects: 5,
    });
    const problem = problemOf(() => updatedBucketQuota(none, { maxBytes: 1001 }, organisation));
    expect(problem.errors?.map((error) => error.field)).toEqual(['quota.maxBytes']);
  });
});

describe('an organisation quota lowered under its buckets', () => {
  it("names each limit below a bucket's own, with the largest bucket quota it must stay above", () => {
    const buckets = [
      { name: 'small', quota: { maxBytes: 100, maxObjects: null } },
      { name: 'large', quota: { maxBytes: 5000, maxObjects: 20 } },
      { name: 'free', quota: { maxBytes: null, maxObjects: null } },
    ];
    expect(bucketQuotasAbove({ maxBytes: 1000, maxObjects: 10 }, buckets)).toEqual([
      {
        field: 'limits.maxBytes',
        message: "must be at least 5000, the quota of bucket large: lower the bucket's quota first",
      },
      {
        field: 'limits.maxObjects',
        message: "must be at least 20, the quota of bucket large: lower the bucket's quota first",
      },
    ]);
    expect(bucketQuotasAbove({ maxBytes: 5000, maxObjects: null }, buckets)).toEqual([]);
  });
});
