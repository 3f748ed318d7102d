import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/security/ids.js';
import type { Database } from '../../../src/store/database.js';
import { stampClock, TombstoneSweep } from '../../../src/store/storage-objects.js';
import type { TestDatabase } from '../../support/database.js';
import { twoInstancesOn } from '../../support/usage-rows.js';

/**
 * The sweep of old tombstones, alone on a database of its own (no gateway sweeping beside it): it
 * walks storage_objects a slice at a time and drops, within each slice only, the rows without a
 * size whose write ended over an hour ago.
 */
describe('TombstoneSweep', () => {
  let database: TestDatabase;
  let db: Database;
  const hour = 3_600_000_000;

  beforeAll(async () => {
    ({ database, first: db } = await twoInstancesOn({ id: newId(), name: 'sweep-org' }, ['swept']));
    const now = stampClock();
    const writer = newId();
    // Keys in primary-key order: k0 .. k5. Old tombstones at k1 and k4; k2 a recent one; k3 an
    // object; k0 and k5 marks of refused writes (no stamp).
    const rows: [string, number | null, number | null][] = [
      ['k0', null, null],
      ['k1', null, now - hour - 1_000_000],
      ['k2', null, now - hour + 60_000_000],
      ['k3', 100, now - 2 * hour],
      ['k4', null, now - 2 * hour],
      ['k5', null, null],
    ];
    for (const [key, bytes, until] of rows)
      await db.sql`
        INSERT INTO storage_objects (bucket, object_key, bytes, writer, written_from, written_until)
        VALUES ('swept', ${key}, ${bytes}, ${until === null ? null : writer}::uuid,
                ${until === null ? null : until - 1000}, ${until})`;
  });
  afterAll(() => database.drop());

  const keys = async (): Promise<string[]> =>
    (
      await db.sql<{ object_key: string }[]>`
        SELECT object_key FROM storage_objects WHERE bucket = 'swept' ORDER BY object_key`
    ).map((row) => row.object_key);

  it('drops the old tombstones of one slice per step, and starts over after the last row', async () => {
    const sweep = new TombstoneSweep(db.sql, 3);
    expect(await sweep.step()).toEqual({ forgotten: 1, wrapped: false });
    expect(await keys()).toEqual(['k0', 'k2', 'k3', 'k4', 'k5']);
    // The second slice is k3 .. k5 (k1 is gone): three rows, a full slice, so not the end yet.
    expect(await sweep.step()).toEqual({ forgotten: 1, wrapped: false });
    expect(await keys()).toEqual(['k0', 'k2', 'k3', 'k5']);
    expect(await sweep.step()).toEqual({ forgotten: 0, wrapped: true });
    // From the first row again: nothing left to drop.
    expect(await sweep.step()).toEqual({ forgotten: 0, wrapped: false });
    expect(await keys()).toEqual(['k0', 'k2', 'k3', 'k5']);
  });
});
