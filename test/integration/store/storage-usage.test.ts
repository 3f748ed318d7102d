import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/security/ids.js';
import type { Database } from '../../../src/store/database.js';
import { InstanceRegistry } from '../../../src/store/instances.js';
import { runMigrations } from '../../../src/store/migrate.js';
import {
  bucketScope,
  NO_CHANGE,
  organisationScope,
  StorageUsageStore,
  type ScopeQuota,
} from '../../../src/store/storage-usage.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../../support/database.js';

/**
 * The storage usage rows under concurrent writes from two instances (two connection pools on one
 * database, each with several connections on a real server, so the reservations really race; the
 * embedded database has one session and cannot race).
 */
const postgres = realPostgresFor('the storage usage race tests');

describe.runIf(postgres)('storage usage shared by two instances', () => {
  let database: TestDatabase;
  let first: Database;
  let second: Database;
  const organisationId = newId();

  beforeAll(async () => {
    database = await createTestDatabase();
    first = database.connect(10);
    second = database.connect(10);
    await runMigrations(first.sql);
    await first.sql`INSERT INTO organisations (id, name) VALUES (${organisationId}, 'usage-org')`;
    for (const bucket of ['race', 'orphans'])
      await first.sql`INSERT INTO buckets (name, organisation_id) VALUES (${bucket}, ${organisationId})`;
    const usage = new StorageUsageStore(first.sql);
    for (const bucket of ['race', 'orphans'])
      await usage.recordBucketCount(organisationId, bucket, { bytes: 0, objects: 0 });
    await usage.startOrganisation(organisationId);
  });
  afterAll(() => database.drop());

  const quotas = (bucket: string, maxBytes: number): ScopeQuota[] => [
    { scope: bucketScope(bucket), maxBytes, maxObjects: null },
    { scope: organisationScope(organisationId), maxBytes: null, maxObjects: 100 },
  ];

  it('lets exactly as many concurrent uploads through as the quota has room for', async () => {
    const stores = [new StorageUsageStore(first.sql), new StorageUsageStore(second.sql)];
    const attempts = Array.from({ length: 20 }, (_, index) =>
      (stores[index % 2] as StorageUsageStore).reserve(newId(), quotas('race', 1000), {
        bytes: 300,
        objects: 1,
      }),
    );
    const reservations = await Promise.all(attempts);
    const held = reservations.filter((reservation) => reservation.ok);
    expect(held).toHaveLength(3);
    for (const refused of reservations.filter((reservation) => !reservation.ok)) {
      expect(refused).toEqual({ ok: false, exceeded: [bucketScope('race')] });
    }
    // The uploads complete: what they reserved is now stored, in the bucket and its organisation.
    await Promise.all(
      held.map((reservation) =>
        reservation.ok
          ? stores[0]?.settle(reservation.id, reservation.scopes, { bytes: 300, objects: 1 })
          : null,
      ),
    );
    const figures = await stores[1]?.figures(organisationId);
    expect(
      figures?.map(({ scope, storedBytes, storedObjects, reservedBytes, reservedObjects }) => ({
        scope,
        storedBytes,
        storedObjects,
        reservedBytes,
        reservedObjects,
      })),
    ).toEqual([
      {
        scope: bucketScope('orphans'),
        storedBytes: 0,
        storedObjects: 0,
        reservedBytes: 0,
        reservedObjects: 0,
      },
      {
        scope: bucketScope('race'),
        storedBytes: 900,
        storedObjects: 3,
        reservedBytes: 0,
        reservedObjects: 0,
      },
      {
        scope: organisationScope(organisationId),
        storedBytes: 900,
        storedObjects: 3,
        reservedBytes: 0,
        reservedObjects: 0,
      },
    ]);
  });

  it("releases the reservations of an instance that left, and keeps a live one's", async () => {
    const usage = new StorageUsageStore(first.sql);
    const leaving = new InstanceRegistry(first.sql);
    const staying = new InstanceRegistry(second.sql);
    await leaving.beat();
    await staying.beat();
    expect(staying.live).toBeGreaterThanOrEqual(1);
    const left = await usage.reserve(leaving.id, quotas('orphans', 1000), { bytes: 400, objects: 1 });
    const kept = await usage.reserve(staying.id, quotas('orphans', 1000), { bytes: 500, objects: 1 });
    expect([left.ok, kept.ok]).toEqual([true, true]);
    // Full now: 900 of 1000 bytes reserved.
    expect((await usage.reserve(staying.id, quotas('orphans', 1000), { bytes: 200, objects: 1 })).ok).toBe(
      false,
    );

    await leaving.close();
    const reserved = async () =>
      (await usage.figures(organisationId)).find((row) => row.scope === bucketScope('orphans'))
        ?.reservedBytes;
    expect(await reserved()).toBe(500);
    // The live instance's upload ends as usual.
    if (kept.ok) await usage.settle(kept.id, kept.scopes, NO_CHANGE);
    expect(await reserved()).toBe(0);
    await staying.close();
  });
});
