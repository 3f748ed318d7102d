/**
 * Storage quotas as a tenant sees them through the control plane: a bucket given a quota, and the
 * usage the organisation's report shows for it.
 */
import { expect } from 'vitest';
import type { ControlClient } from './control-plane.js';
import type { TestGateway } from './gateway.js';

/** The refusal of an upload a bucket's quota has no room for (service spec, storage quotas). */
export const BUCKET_QUOTA_EXCEEDED = {
  code: 'QuotaExceeded',
  status: 403,
  message:
    "The bucket's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask an owner of the organisation to raise the bucket's quota.",
};

/** A bucket's counted usage, as GET /v1/organisation/usage reports it. */
export interface Stored {
  storedBytes: number;
  storedObjects: number;
  reservedBytes: number;
  reservedObjects: number;
  partBytes: number;
}

/** Creates `name` and gives it `quota`, as an owner of the organisation `client` is logged in to. */
export async function bucketWithQuota(
  client: ControlClient,
  name: string,
  quota: { maxBytes?: number; maxObjects?: number },
): Promise<void> {
  expect((await client.post('/v1/buckets', { name })).status).toBe(201);
  const set = await client.patch(`/v1/buckets/${name}`, { quota });
  expect(set.status, set.text).toBe(200);
  expect(set.body.quota).toEqual({ maxBytes: quota.maxBytes ?? null, maxObjects: quota.maxObjects ?? null });
}

/** The bucket's counted usage from GET /v1/organisation/usage (undefined: not counted). */
export async function usageOf(client: ControlClient, bucket: string): Promise<Stored | undefined> {
  const report = await client.get('/v1/organisation/usage');
  expect(report.status, report.text).toBe(200);
  const entry = (report.body.storage.buckets as { bucket: string; usage?: Stored }[]).find(
    (item) => item.bucket === bucket,
  );
  const usage = entry?.usage;
  return usage === undefined
    ? undefined
    : {
        storedBytes: usage.storedBytes,
        storedObjects: usage.storedObjects,
        reservedBytes: usage.reservedBytes,
        reservedObjects: usage.reservedObjects,
        partBytes: usage.partBytes,
      };
}

/** Usage holding `bytes` in `objects` and `partBytes` in parts of uploads under way, nothing reserved. */
export function held(bytes: number, objects: number, partBytes = 0): Stored {
  return { storedBytes: bytes, storedObjects: objects, reservedBytes: 0, reservedObjects: 0, partBytes };
}

/** What the store holds in the bucket, from a listing of it past the gateway. */
export async function storeHolds(
  gw: TestGateway,
  bucket: string,
): Promise<{ bytes: number; objects: number }> {
  const listing = await gw.gateway.context.backend.listObjects(bucket, { limit: 1000 });
  return {
    bytes: listing.objects.reduce((sum, object) => sum + object.size, 0),
    objects: listing.objects.length,
  };
}
