/**
 * The scopes storage is counted in (a row of storage_usage each), the quota each is held to, and
 * the changes counted in them: shared by the usage rows (storage-usage.ts), the reservations of
 * room for writes (storage-reservations.ts) and the parts of uploads under way (storage-uploads.ts).
 */
import type { StorageQuota } from './records.js';

/** A row of storage_usage: 'bucket:<name>' or 'organisation:<id>'. */
export type UsageScope = `bucket:${string}` | `organisation:${string}`;

export function bucketScope(bucket: string): UsageScope {
  return `bucket:${bucket}`;
}

export function organisationScope(organisationId: string): UsageScope {
  return `organisation:${organisationId}`;
}

/** A scope and the quota it is held to. */
export interface ScopeQuota extends StorageQuota {
  readonly scope: UsageScope;
}

/** How much an upload or a deletion changes what is stored: bytes and objects, either sign. */
export interface StorageChange {
  readonly bytes: number;
  readonly objects: number;
}

export const NO_CHANGE: StorageChange = Object.freeze({ bytes: 0, objects: 0 });

/** Whether any storage quota is set (the usage is then counted). */
export function quotaApplies(quota: StorageQuota): boolean {
  return quota.maxBytes !== null || quota.maxObjects !== null;
}
