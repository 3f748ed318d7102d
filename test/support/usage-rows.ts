/**
 * The storage usage rows and the reservations held against them, straight on the database: what
 * the tests of the rows (storage-usage.test.ts) and of the reservations
 * (storage-reservations.test.ts) share.
 */
import type { Database, Sql } from '../../src/store/database.js';
import { runMigrations } from '../../src/store/migrate.js';
import type { Reservation } from '../../src/store/storage-reservations.js';
import { StorageUsageStore } from '../../src/store/storage-usage.js';
import { bucketScope } from '../../src/store/usage-scopes.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/**
 * A fresh database, migrated, holding the organisation and its buckets, of which those `counted`
 * are counted from now (empty), and two instances on it: `first` and `second`, a connection pool
 * each.
 */
export async function twoInstancesOn(
  organisation: { readonly id: string; readonly name: string },
  buckets: readonly string[],
  counted: readonly string[] = [],
): Promise<{ database: TestDatabase; first: Database; second: Database }> {
  const database = await createTestDatabase();
  const first = database.connect(10);
  const second = database.connect(10);
  await runMigrations(first.sql);
  await first.sql`INSERT INTO organisations (id, name) VALUES (${organisation.id}, ${organisation.name})`;
  for (const bucket of buckets)
    await first.sql`INSERT INTO buckets (name, organisation_id) VALUES (${bucket}, ${organisation.id})`;
  const usage = new StorageUsageStore(first.sql);
  for (const bucket of counted)
    await usage.recordBucketCount(organisation.id, bucket, { bytes: 0, objects: 0 });
  return { database, first, second };
}

/** The bytes the bucket's usage row holds stored and reserved. */
export async function bucketFigures(
  sql: Sql,
  organisationId: string,
  bucket: string,
): Promise<{ stored: number | undefined; reserved: number | undefined }> {
  const row = (await new StorageUsageStore(sql).figures(organisationId)).find(
    (figure) => figure.scope === bucketScope(bucket),
  );
  return { stored: row?.storedBytes, reserved: row?.reservedBytes };
}

/** The id of a reservation that holds room (it throws for any other outcome). */
export function heldId(reservation: Reservation): string {
  if (reservation.outcome !== 'held' || reservation.id === null)
    throw new Error(`not held: ${reservation.outcome}`);
  return reservation.id;
}
