import type { UsageRow } from '../../store/usage.js';
import type { BucketUsage, CredentialUsage, UsageFigures } from '../models/organisation.js';

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
