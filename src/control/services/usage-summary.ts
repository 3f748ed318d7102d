import { burstOf } from '../../access/request-rates.js';
import type {
  BucketRecord,
  OrganisationLimits,
  OrganisationRecord,
  RequestRate,
} from '../../store/records.js';
import type { StoredFigures } from '../../store/storage-usage.js';
import { bucketScope, organisationScope } from '../../store/usage-scopes.js';
import type { UsageRow } from '../../store/usage.js';
import type {
  BucketUsage,
  CredentialUsage,
  RequestRateReport,
  RequestRateView,
  StorageReport,
  StoredUsage,
  UsageFigures,
} from '../models/organisation.js';

function add(into: UsageFigures, row: UsageFigures): void {
  into.requests += row.requests;
  into.bytesIn += row.bytesIn;
  into.bytesOut += row.bytesOut;
}

/** Per-bucket-and-credential sums folded into totals, per-bucket and per-credential figures. */
export function summariseUsage(rows: UsageRow[]): {
  totals: UsageFigures;
  byBucket: BucketUsage[];
  byCredential: CredentialUsage[];
} {
  const totals: UsageFigures = { requests: 0, bytesIn: 0, bytesOut: 0 };
  const buckets = new Map<string, BucketUsage>();
  const credentials = new Map<string, CredentialUsage>();
  for (const row of rows) {
    add(totals, row);
    let bucket = buckets.get(row.bucket);
    if (bucket === undefined) {
      bucket = { bucket: row.bucket, requests: 0, bytesIn: 0, bytesOut: 0 };
      buckets.set(row.bucket, bucket);
    }
    add(bucket, row);
    let credential = credentials.get(row.accessKeyId);
    if (credential === undefined) {
      credential = { accessKeyId: row.accessKeyId, requests: 0, bytesIn: 0, bytesOut: 0 };
      credentials.set(row.accessKeyId, credential);
    }
    add(credential, row);
  }
  const byName =
    <T>(key: (item: T) => string) =>
    (a: T, b: T) =>
      key(a).localeCompare(key(b));
  return {
    totals,
    byBucket: [...buckets.values()].sort(byName((item) => item.bucket)),
    byCredential: [...credentials.values()].sort(byName((item) => item.accessKeyId)),
  };
}

/** `{ usage }` for counted figures, nothing for a scope that is not counted. */
function storedUsage(figures: StoredFigures | undefined): { usage?: StoredUsage } {
  if (figures === undefined) return {};
  return {
    usage: {
      storedBytes: figures.storedBytes,
      storedObjects: figures.storedObjects,
      reservedBytes: figures.reservedBytes,
      reservedObjects: figures.reservedObjects,
      partBytes: figures.partBytes,
      countedAt: figures.countedAt,
    },
  };
}

/** Every bucket's quota and, where it is counted, what the store holds; the same for the organisation. */
export function summariseStorage(
  organisation: OrganisationRecord,
  buckets: readonly BucketRecord[],
  figures: readonly StoredFigures[],
): StorageReport {
  const byScope = new Map(figures.map((row) => [row.scope, row]));
  return {
    quota: { ...organisation.limits.storage },
    ...storedUsage(byScope.get(organisationScope(organisation.id))),
    buckets: buckets.map((bucket) => ({
      bucket: bucket.name,
      quota: { ...bucket.quota },
      ...storedUsage(byScope.get(bucketScope(bucket.name))),
    })),
  };
}

function rateView(rate: RequestRate | null): RequestRateView | undefined {
  return rate === null ? undefined : { requestsPerSecond: rate.requestsPerSecond, burst: burstOf(rate) };
}

/** The rates in force, and the requests they refused in the window, in all and per credential. */
export function summariseRequestRates(
  limits: OrganisationLimits,
  rows: readonly UsageRow[],
): RequestRateReport {
  const byCredential = new Map<string, number>();
  let throttledRequests = 0;
  for (const row of rows) {
    if (row.throttled === 0) continue;
    throttledRequests += row.throttled;
    byCredential.set(row.accessKeyId, (byCredential.get(row.accessKeyId) ?? 0) + row.throttled);
  }
  const organisation = rateView(limits.requests);
  const perCredential = rateView(limits.credentialRequests);
  return {
    ...(organisation === undefined ? {} : { organisation }),
    ...(perCredential === undefined ? {} : { perCredential }),
    throttledRequests,
    byCredential: [...byCredential]
      .map(([accessKeyId, throttled]) => ({ accessKeyId, throttledRequests: throttled }))
      .sort((a, b) => a.accessKeyId.localeCompare(b.accessKeyId)),
  };
}
