import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/security/ids.js';
import type { Database } from '../../../src/store/database.js';
import { StorageReservations } from '../../../src/store/storage-reservations.js';
import { StorageUsageStore } from '../../../src/store/storage-usage.js';
import {
  bucketScope,
  NO_CHANGE,
  organisationScope,
  type ScopeQuota,
} from '../../../src/store/usage-scopes.js';
import { realPostgresFor, type TestDatabase } from '../../support/database.js';
import { bucketFigures, heldId, twoInstancesOn } from '../../support/usage-rows.js';

/**
 * The storage usage rows: the pool their counters are written through, a recount that rebuilds
 * the room reserved in them, an organisation's row summed from its buckets'. The reservations held
 * against them are storage-reservations.test.ts's.
 */
const postgres = realPostgresFor('the storage usage tests');

describe.runIf(postgres)('storage usage rows', () => {
  let database: TestDatabase;
  let first: Database;
  const organisationId = newId();
  const bucket = 'held';

  beforeAll(async () => {
    ({ database, first } = await twoInstancesOn(
      { id: organisationId, name: 'held-org' },
      [bucket],
      [bucket],
    ));
  });
  afterAll(() => database.drop());

  const quota: ScopeQuota[] = [{ scope: bucketScope(bucket), maxBytes: 10_000, maxObjects: null }];
  const figures = () => bucketFigures(first.sql, organisationId, bucket);

  it('writes the counters through a pool whose commits do not wait for the disk, and the rest durably', async () => {
    const [counters] = await first.counters<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
    const [durable] = await first.sql<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
    expect(counters?.synchronous_commit).toBe('off');
    expect(durable?.synchronous_commit).toBe('on');
  });

  it('rebuilds the room reserved from the reservations held when the bucket is recounted', async () => {
    const reservations = new StorageReservations(first.sql);
    const usage = new StorageUsageStore(first.sql);
    const instance = newId();
    const id = heldId(
      await reservations.reserve(instance, quota, { bytes: 250, objects: 1 }, 'object:held/r'),
    );
    // Drift: the row says more is reserved than any reservation holds.
    await first.sql`UPDATE storage_usage SET reserved_bytes = 9999 WHERE scope = ${bucketScope(bucket)}`;
    await usage.recordBucketCount(organisationId, bucket, { bytes: 100, objects: 1 });
    expect(await figures()).toEqual({ stored: 100, reserved: 250 });
    await reservations.settle(id, NO_CHANGE);
    expect(await figures()).toEqual({ stored: 100, reserved: 0 });
    await first.sql`DELETE FROM gateway_instances WHERE id = ${instance}`;
  });

  it("sets an organisation's usage to the sum of its buckets' when asked to", async () => {
    const usage = new StorageUsageStore(first.sql);
    expect(await usage.resumOrganisation(organisationId)).toBe(false);
    await usage.startOrganisation(organisationId);
    await first.sql`UPDATE storage_usage SET stored_bytes = 1, stored_objects = 99 WHERE scope = ${organisationScope(organisationId)}`;
    expect(await usage.resumOrganisation(organisationId)).toBe(true);
    const bucketRow = (await usage.figures(organisationId)).find((row) => row.scope === bucketScope(bucket));
    const organisationRow = (await usage.figures(organisationId)).find(
      (row) => row.scope === organisationScope(organisationId),
    );
    expect([organisationRow?.storedBytes, organisationRow?.storedObjects]).toEqual([
      bucketRow?.storedBytes,
      bucketRow?.storedObjects,
    ]);
  });
});
