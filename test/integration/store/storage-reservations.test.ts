import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/security/ids.js';
import type { Database } from '../../../src/store/database.js';
import { InstanceRegistry } from '../../../src/store/instances.js';
import { runMigrations } from '../../../src/store/migrate.js';
import { StorageReservations, type Reservation } from '../../../src/store/storage-reservations.js';
import { StorageUsageStore } from '../../../src/store/storage-usage.js';
import {
  bucketScope,
  NO_CHANGE,
  organisationScope,
  type ScopeQuota,
} from '../../../src/store/usage-scopes.js';
import { keptOf } from '../../../src/store/storage-objects.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { bucketFigures, heldId, twoInstancesOn } from '../../support/usage-rows.js';

/**
 * The room reserved in the storage usage rows, and the keys held, under concurrent writes from two
 * instances (two connection pools on one database, each with several connections on a real server,
 * so the reservations really race; the embedded database has one session and cannot race). The
 * figures are read through the usage rows' store (storage-usage.test.ts tests the rows).
 */
const postgres = realPostgresFor('the storage reservation race tests');

describe.runIf(postgres)('storage reservations shared by two instances', () => {
  let database: TestDatabase;
  let first: Database;
  let second: Database;
  const organisationId = newId();

  beforeAll(async () => {
    const buckets = ['race', 'orphans'];
    ({ database, first, second } = await twoInstancesOn(
      { id: organisationId, name: 'usage-org' },
      buckets,
      buckets,
    ));
    await new StorageUsageStore(first.sql).startOrganisation(organisationId);
  });
  afterAll(() => database.drop());

  const quotas = (bucket: string, maxBytes: number): ScopeQuota[] => [
    { scope: bucketScope(bucket), maxBytes, maxObjects: null },
    { scope: organisationScope(organisationId), maxBytes: null, maxObjects: 100 },
  ];

  it('lets exactly as many concurrent uploads through as the quota has room for', async () => {
    const stores = [new StorageReservations(first.counters), new StorageReservations(second.counters)];
    const attempts = Array.from({ length: 20 }, (_, index) =>
      (stores[index % 2] as StorageReservations).reserve(newId(), quotas('race', 1000), {
        bytes: 300,
        objects: 1,
      }),
    );
    const reservations = await Promise.all(attempts);
    const held = reservations.flatMap((reservation) =>
      reservation.outcome === 'held' && reservation.id !== null ? [reservation.id] : [],
    );
    expect(held).toHaveLength(3);
    for (const refused of reservations.filter((reservation) => reservation.outcome !== 'held')) {
      expect(refused).toEqual({ outcome: 'over', exceeded: [bucketScope('race')] });
    }
    // The uploads complete: what they reserved is now stored, in the bucket and its organisation.
    await Promise.all(held.map((id) => stores[0]?.settle(id, { bytes: 300, objects: 1 })));
    const figures = await new StorageUsageStore(second.counters).figures(organisationId);
    expect(
      figures.map(({ scope, storedBytes, storedObjects, reservedBytes, reservedObjects }) => ({
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
    const reservations = new StorageReservations(first.sql);
    const usage = new StorageUsageStore(first.sql);
    const leaving = new InstanceRegistry(first.sql);
    const staying = new InstanceRegistry(second.sql);
    await leaving.beat();
    await staying.beat();
    expect(staying.live).toBeGreaterThanOrEqual(1);
    const left = await reservations.reserve(leaving.id, quotas('orphans', 1000), { bytes: 400, objects: 1 });
    const kept = await reservations.reserve(staying.id, quotas('orphans', 1000), { bytes: 500, objects: 1 });
    expect([left.outcome, kept.outcome]).toEqual(['held', 'held']);
    // Full now: 900 of 1000 bytes reserved.
    expect(
      (await reservations.reserve(staying.id, quotas('orphans', 1000), { bytes: 200, objects: 1 })).outcome,
    ).toBe('over');

    await leaving.close();
    const reserved = async () =>
      (await usage.figures(organisationId)).find((row) => row.scope === bucketScope('orphans'))
        ?.reservedBytes;
    expect(await reserved()).toBe(500);
    // The live instance's upload ends as usual.
    if (kept.outcome === 'held' && kept.id !== null) await reservations.settle(kept.id, NO_CHANGE);
    expect(await reserved()).toBe(0);
    await staying.close();
  });
});

describe.runIf(postgres)('writes to one key, reservations left behind, instances gone silent', () => {
  let database: TestDatabase;
  let first: Database;
  let second: Database;
  const organisationId = newId();
  const bucket = 'held';

  beforeAll(async () => {
    ({ database, first, second } = await twoInstancesOn(
      { id: organisationId, name: 'held-org' },
      [bucket, 'sizes'],
      [bucket],
    ));
  });
  afterAll(() => database.drop());

  const quota: ScopeQuota[] = [{ scope: bucketScope(bucket), maxBytes: 10_000, maxObjects: null }];
  const figures = () => bucketFigures(first.sql, organisationId, bucket);

  it('lets one write hold a key at a time, on any instance, until it settles', async () => {
    const [one, two] = [new StorageReservations(first.counters), new StorageReservations(second.counters)];
    const [a, b] = [newId(), newId()];
    const attempts = await Promise.all([
      one.reserve(a, quota, { bytes: 100, objects: 1 }, 'object:held/k'),
      two.reserve(b, quota, { bytes: 100, objects: 1 }, 'object:held/k'),
    ]);
    expect(attempts.map((attempt) => attempt.outcome).sort()).toEqual(['busy', 'held']);
    // Another key is free meanwhile.
    const other = heldId(await two.reserve(b, quota, { bytes: 50, objects: 1 }, 'object:held/other'));
    const winner = heldId(attempts.find((attempt) => attempt.outcome === 'held') as Reservation);
    expect(await one.settle(winner, { bytes: 100, objects: 1 })).toBe(true);
    // Settling again changes nothing: a retried settle cannot count a write twice.
    expect(await one.settle(winner, { bytes: 100, objects: 1 })).toBe(false);
    const next = heldId(await two.reserve(b, quota, { bytes: 100, objects: 1 }, 'object:held/k'));
    await two.settle([next, other], NO_CHANGE);
    expect(await figures()).toEqual({ stored: 100, reserved: 0 });
  });

  it('holds keys for deletions all or none', async () => {
    const reservations = new StorageReservations(first.sql);
    const instance = newId();
    const put = heldId(
      await reservations.reserve(instance, quota, { bytes: 10, objects: 1 }, 'object:held/b'),
    );
    expect(
      await reservations.hold(instance, [bucketScope(bucket)], ['object:held/a', 'object:held/b']),
    ).toBeNull();
    // The refused hold left nothing behind: a is free.
    const hold = await reservations.hold(instance, [bucketScope(bucket)], ['object:held/a']);
    expect(hold?.ids).toHaveLength(1);
    await reservations.settle([put, ...(hold?.ids ?? [])], NO_CHANGE);
    expect(
      (await reservations.hold(instance, [bucketScope(bucket)], ['object:held/a', 'object:held/b']))?.ids,
    ).toHaveLength(2);
    await first.sql`DELETE FROM storage_reservations WHERE instance_id = ${instance}`;
  });

  it('frees the reservations of its own that no write holds any more, and keeps those in flight', async () => {
    const reservations = new StorageReservations(first.sql);
    const registry = new InstanceRegistry(first.sql);
    await registry.beat();
    const before = await figures();
    const lost = heldId(
      await reservations.reserve(registry.id, quota, { bytes: 300, objects: 1 }, 'object:held/lost'),
    );
    const flying = heldId(
      await reservations.reserve(registry.id, quota, { bytes: 200, objects: 1 }, 'object:held/fly'),
    );
    expect((await figures()).reserved).toBe(500);
    // A settle that never reached the database left `lost` behind; `flying` is still being written.
    expect(await reservations.releaseStale(registry.id, [flying], 0)).toBe(1);
    expect((await figures()).reserved).toBe(200);
    await reservations.settle(flying, NO_CHANGE);
    expect(await reservations.settle(lost, { bytes: 300, objects: 1 })).toBe(false);
    expect(await figures()).toEqual(before);
    await registry.close();
  });

  it('keeps the reservation of an instance that never beat: taking it registers the instance', async () => {
    const reservations = new StorageReservations(first.sql);
    const starting = newId();
    const id = heldId(
      await reservations.reserve(starting, quota, { bytes: 700, objects: 1 }, 'object:held/new'),
    );
    const other = new InstanceRegistry(second.sql);
    await other.beat();
    expect((await figures()).reserved).toBe(700);
    await reservations.settle(id, NO_CHANGE);
    await other.close();
    await first.sql`DELETE FROM gateway_instances WHERE id = ${starting}`;
  });

  it('releases the reservations of an instance silent longer than it may be', async () => {
    const reservations = new StorageReservations(first.sql);
    const silent = new InstanceRegistry(first.sql);
    await silent.beat();
    await reservations.reserve(silent.id, quota, { bytes: 400, objects: 1 }, 'object:held/silent');
    const watcher = new InstanceRegistry(second.sql, { forgottenAfterMs: 500 });
    await watcher.beat();
    // The silent one never beats again (a crash); the watcher keeps beating.
    expect((await figures()).reserved).toBe(400);
    await eventually('the silent instance is forgotten', async () => {
      await watcher.beat();
      return (await figures()).reserved === 0;
    });
    const [row] = await first.sql`SELECT count(*)::int AS n FROM gateway_instances WHERE id = ${silent.id}`;
    expect(row?.n).toBe(0);
    await watcher.close();
  });

  it('reads what a write replaces from the sizes kept, under its hold, and keeps a size no write changed', async () => {
    const usage = new StorageUsageStore(first.counters);
    const reservations = new StorageReservations(first.counters);
    const other = new StorageReservations(second.counters);
    const instance = newId();
    await usage.recordBucketCount(organisationId, 'sizes', {
      bytes: 700,
      objects: 1,
      sizes: new Map([['a.bin', 700]]),
    });
    const sizes = [{ scope: bucketScope('sizes'), maxBytes: 1000, maxObjects: 2 }];
    const a = { bucket: 'sizes', key: 'a.bin' };
    const b = { bucket: 'sizes', key: 'b.bin' };
    const write = (store: StorageReservations, object: typeof a, bytes: number) =>
      store.reserve(instance, sizes, { bytes, objects: 1 }, `object:sizes/${object.key}`, newId(), object);

    // 900 over the 700 there: room for the 200 it adds, held with the key on every instance.
    const overwrite = await write(reservations, a, 900);
    expect(overwrite).toMatchObject({ outcome: 'held', replaced: 700 });
    expect(await write(other, a, 10)).toEqual({ outcome: 'busy' });
    const reserved = async () =>
      (await usage.figures(organisationId)).find((row) => row.scope === bucketScope('sizes'));
    expect(await reserved()).toMatchObject({ storedBytes: 700, reservedBytes: 200, reservedObjects: 0 });
    if (overwrite.outcome !== 'held' || overwrite.id === null) throw new Error('not held');
    await reservations.settle(overwrite.id, { bytes: 200, objects: 0 }, keptOf(a, 900));

    // The other instance reads the size the first one left, once the key is free.
    const again = await write(other, a, 1000);
    expect(again).toMatchObject({ outcome: 'held', replaced: 900 });
    if (again.outcome !== 'held' || again.id === null) throw new Error('not held');
    // A new key needs room as a new object: 900 stored, 100 reserved and 100 asked do not fit.
    expect(await write(reservations, b, 100)).toEqual({ outcome: 'over', exceeded: [bucketScope('sizes')] });
    const [mark] =
      await first.sql`SELECT count(*)::int AS rows FROM storage_objects WHERE object_key = 'b.bin'`;
    expect(mark?.rows).toBe(0);

    // The store's answer never came: nothing changes, neither the count nor the size kept.
    await other.settle(again.id, NO_CHANGE);
    const unanswered = await write(reservations, a, 1);
    expect(unanswered).toMatchObject({ outcome: 'held', replaced: 900 });
    if (unanswered.outcome !== 'held' || unanswered.id === null) throw new Error('not held');
    await reservations.settle(unanswered.id, { bytes: 1 - 900, objects: 0 }, keptOf(a, 1));
    expect(await write(reservations, a, 1)).toMatchObject({ outcome: 'held', replaced: 1 });
    expect(await reserved()).toMatchObject({ storedBytes: 1, storedObjects: 1 });
  });

  it('tells nothing of what a write replaces in a bucket counted without a listing of its objects', async () => {
    const usage = new StorageUsageStore(first.counters);
    await usage.recordBucketCount(organisationId, 'sizes', { bytes: 0, objects: 0 });
    const reservation = await new StorageReservations(first.counters).reserve(
      newId(),
      [{ scope: bucketScope('sizes'), maxBytes: null, maxObjects: null }],
      { bytes: 5, objects: 1 },
      'object:sizes/listed-not.bin',
      newId(),
      { bucket: 'sizes', key: 'listed-not.bin' },
    );
    expect(reservation.outcome).toBe('held');
    expect(reservation).not.toHaveProperty('replaced');
  });

  it('holds the keys of a deletion after the usage rows, so a recount rewriting the sizes meanwhile does not deadlock with it', async () => {
    const usage = new StorageUsageStore(first.sql);
    const reservations = new StorageReservations(first.sql);
    const sizes = new Map([
      ['k2', 10],
      ['k0', 10],
      ['k1', 10],
    ]);
    await usage.recordBucketCount(organisationId, 'sizes', { bytes: 30, objects: 3, sizes });
    const recount = await first.sql.reserve();
    try {
      // As a recount does: the usage row first, then the rows of the sizes, in the table's order.
      await recount`BEGIN`;
      await recount`SELECT scope FROM storage_usage WHERE scope = ${bucketScope('sizes')} FOR UPDATE`;
      await recount`DELETE FROM storage_objects WHERE bucket = 'sizes' AND object_key = 'k2'`;
      const hold = reservations.hold(
        newId(),
        [bucketScope('sizes')],
        ['object:sizes/k1', 'object:sizes/k2'],
        { bucket: 'sizes', keys: ['k1', 'k2'] },
      );
      await eventually('the deletion waits for the recount', async () => {
        const [waiting] = await second.sql<{ count: number }[]>`
          SELECT count(*)::int AS count FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND datname = current_database()`;
        return waiting?.count === 1;
      });
      await recount`DELETE FROM storage_objects WHERE bucket = 'sizes' AND object_key = 'k1'`;
      await recount`COMMIT`;
      const held = await hold;
      expect(held?.sizes).toEqual(
        new Map([
          ['k1', null],
          ['k2', null],
        ]),
      );
      await reservations.settle(held?.ids ?? [], NO_CHANGE);
    } finally {
      recount.release();
    }
  });
});

describe.runIf(postgres)(
  'reservations and settlements of concurrent writes, together in one statement',
  () => {
    let database: TestDatabase;
    let db: Database;
    const organisationId = newId();
    /** The instance the writes of these tests hold their reservations for. */
    const writer = newId();
    const otherOrganisationId = newId();
    /** The statements a store sent that hold room (reserve) or drop it (settle), one per batch. */
    const sent = { reserve: 0, settle: 0 };

    /** The reservations over a pool that counts the statements they are sent, by what they do. */
    const countingReservations = (sql: Database['sql']) =>
      new StorageReservations(
        new Proxy(sql, {
          apply(target, self, args: unknown[]) {
            const text = Array.isArray(args[0]) ? (args[0] as string[]).join('') : '';
            if (/^\s*WITH /.test(text) && text.includes('INSERT INTO storage_reservations'))
              sent.reserve += 1;
            if (/^\s*WITH /.test(text) && text.includes('DELETE FROM storage_reservations')) sent.settle += 1;
            return Reflect.apply(target, self, args) as unknown;
          },
        }),
      );

    beforeAll(async () => {
      database = await createTestDatabase();
      db = database.connect(10);
      await runMigrations(db.sql);
      await db.sql`INSERT INTO organisations (id, name) VALUES (${organisationId}, 'batch-org')`;
      await db.sql`INSERT INTO organisations (id, name) VALUES (${otherOrganisationId}, 'batch-other-org')`;
      for (const name of ['batched', 'uncounted'])
        await db.sql`INSERT INTO buckets (name, organisation_id) VALUES (${name}, ${organisationId})`;
      await db.sql`INSERT INTO buckets (name, organisation_id) VALUES ('elsewhere', ${otherOrganisationId})`;
      const usage = new StorageUsageStore(db.sql);
      await usage.recordBucketCount(otherOrganisationId, 'elsewhere', {
        bytes: 0,
        objects: 0,
        sizes: new Map(),
      });
      await usage.recordBucketCount(organisationId, 'batched', {
        bytes: 3_000,
        objects: 3,
        sizes: new Map([
          ['k0', 1_000],
          ['k1', 1_000],
          ['k2', 1_000],
        ]),
      });
      await usage.startOrganisation(organisationId);
    });
    afterAll(() => database.drop());

    const quotas = (maxBytes: number, maxObjects: number | null = null): ScopeQuota[] => [
      { scope: bucketScope('batched'), maxBytes, maxObjects },
      { scope: organisationScope(organisationId), maxBytes: null, maxObjects: null },
    ];
    const object = (key: string) => ({ bucket: 'batched', key });
    /**
     * A write to `key` of the batched bucket, through `reservations`, under a quota of `maxBytes`:
     * asking room for a new object of `bytes`, or for nothing (0).
     */
    const write = (reservations: StorageReservations, key: string, bytes: number, maxBytes = 100_000) =>
      reservations.reserve(
        writer,
        quotas(maxBytes),
        bytes === 0 ? NO_CHANGE : { bytes, objects: 1 },
        `object:batched/${key}`,
        newId(),
        object(key),
      );
    const usageOf = async () => {
      const rows = await new StorageUsageStore(db.sql).figures(organisationId);
      return rows.map(({ scope, storedBytes, storedObjects, reservedBytes, reservedObjects }) => ({
        scope,
        storedBytes,
        storedObjects,
        reservedBytes,
        reservedObjects,
      }));
    };
    const keptSizes = async () => {
      const rows = await db.sql<{ object_key: string; bytes: bigint | null }[]>`
      SELECT object_key, bytes FROM storage_objects WHERE bucket = 'batched' ORDER BY object_key`;
      return Object.fromEntries(
        rows.map((row) => [row.object_key, row.bytes === null ? null : Number(row.bytes)]),
      );
    };

    it('reads what each write replaces, holds each key and reserves what they add, in far fewer statements than writes', async () => {
      const counting = countingReservations(db.counters);
      sent.reserve = 0;
      // Twelve writes at once: three overwrite the objects there (1,000 bytes each), nine are new.
      const keys = Array.from({ length: 12 }, (_, index) => `k${index}`);
      const reservations = await Promise.all(keys.map((key) => write(counting, key, 1_500)));
      expect(sent.reserve).toBeLessThan(keys.length / 2);
      expect(
        reservations.map((reservation) => reservation.outcome === 'held' && reservation.replaced),
      ).toEqual(keys.map((_, index) => (index < 3 ? 1_000 : null)));
      // Room for what each adds: 500 bytes for an overwrite, 1,500 and an object for a new key.
      const reserved = { reservedBytes: 3 * 500 + 9 * 1_500, reservedObjects: 9 };
      expect(await usageOf()).toEqual([
        { scope: bucketScope('batched'), storedBytes: 3_000, storedObjects: 3, ...reserved },
        { scope: organisationScope(organisationId), storedBytes: 3_000, storedObjects: 3, ...reserved },
      ]);
      // Each key is held: another write to one of them waits.
      expect(await write(new StorageReservations(db.counters), 'k5', 0)).toEqual({ outcome: 'busy' });

      // They all complete: the sizes kept and the count change once each, in far fewer statements.
      sent.settle = 0;
      const settled = await Promise.all(
        reservations.map((reservation, index) => {
          if (reservation.outcome !== 'held' || reservation.id === null) throw new Error('not held');
          const before = index < 3 ? 1_000 : null;
          const change = { bytes: 1_500 - (before ?? 0), objects: before === null ? 1 : 0 };
          return counting.settle(reservation.id, change, keptOf(object(keys[index] as string), 1_500));
        }),
      );
      expect(settled).toEqual(keys.map(() => true));
      expect(sent.settle).toBeLessThan(keys.length / 2);
      const stored = { storedBytes: 12 * 1_500, storedObjects: 12, reservedBytes: 0, reservedObjects: 0 };
      expect(await usageOf()).toEqual([
        { scope: bucketScope('batched'), ...stored },
        { scope: organisationScope(organisationId), ...stored },
      ]);
      expect(await keptSizes()).toEqual(Object.fromEntries(keys.map((key) => [key, 1_500])));

      // Settling them again changes nothing, together as alone.
      const again = await Promise.all(
        reservations.map((reservation) =>
          reservation.outcome === 'held' && reservation.id !== null
            ? counting.settle(reservation.id, { bytes: 1, objects: 1 }, keptOf(object('k0'), 1))
            : false,
        ),
      );
      expect(again).toEqual(keys.map(() => false));
      expect(await usageOf()).toEqual([
        { scope: bucketScope('batched'), ...stored },
        { scope: organisationScope(organisationId), ...stored },
      ]);
    });

    it('holds exactly the writes that fit when together they do not, and refuses the others as alone', async () => {
      const counting = countingReservations(db.counters);
      // 18,000 stored; under 21,000, room for three more new 1,000-byte objects.
      const writes = Array.from({ length: 8 }, (_, index) => `over${index}`);
      const reservations = await Promise.all(writes.map((key) => write(counting, key, 1_000, 21_000)));
      const held = reservations.filter((reservation) => reservation.outcome === 'held');
      expect(held).toHaveLength(3);
      for (const refused of reservations.filter((reservation) => reservation.outcome !== 'held'))
        expect(refused).toEqual({ outcome: 'over', exceeded: [bucketScope('batched')] });
      // A refused write leaves no mark of the key it read.
      const marks = await db.sql<{ rows: number }[]>`
      SELECT count(*)::int AS rows FROM storage_objects WHERE bucket = 'batched' AND object_key LIKE 'over%'`;
      expect(marks[0]?.rows).toBe(3);
      await Promise.all(
        held.map((reservation) =>
          reservation.outcome === 'held' && reservation.id !== null
            ? counting.settle(reservation.id, NO_CHANGE)
            : false,
        ),
      );
      expect((await usageOf())[0]).toMatchObject({
        storedBytes: 18_000,
        reservedBytes: 0,
        reservedObjects: 0,
      });
    });

    it('answers each write of a batch as alone: an uncounted bucket holds nothing, a held key is busy', async () => {
      const counting = countingReservations(db.counters);
      const holder = await write(new StorageReservations(db.counters), 'taken', 0);
      expect(holder.outcome).toBe('held');
      sent.reserve = 0;
      const [first, uncounted, busy, fresh] = await Promise.all([
        write(counting, 'a', 10),
        counting.reserve(
          writer,
          [{ scope: bucketScope('uncounted'), maxBytes: 1, maxObjects: null }],
          { bytes: 10, objects: 1 },
          'object:uncounted/x',
          newId(),
          { bucket: 'uncounted', key: 'x' },
        ),
        write(counting, 'taken', 10),
        write(counting, 'b', 10),
      ]);
      // The first went alone; the three that came while it was under way went together.
      expect(sent.reserve).toBe(2);
      expect(first).toMatchObject({ outcome: 'held', replaced: null });
      expect(uncounted).toEqual({ outcome: 'held', id: null, scopes: [] });
      expect(busy).toEqual({ outcome: 'busy' });
      expect(fresh).toMatchObject({
        outcome: 'held',
        scopes: [bucketScope('batched'), organisationScope(organisationId)],
        replaced: null,
      });
    });

    it('settles a reservation named twice in one batch once, as alone', async () => {
      const reservations = new StorageReservations(db.counters);
      const reserve = (key: string) => write(reservations, key, 100);
      const [filler, twice] = await Promise.all([reserve('filler'), reserve('twice')]);
      if (filler.outcome !== 'held' || filler.id === null || twice.outcome !== 'held' || twice.id === null)
        throw new Error('not held');
      const before = (await usageOf())[0];
      // Through a store that did not make them (a retry after a restart, say): one lane, and one
      // batch (they are made in the same turn), which names a reservation twice, so its
      // settlements go one by one, the second of that reservation changing nothing.
      const other = new StorageReservations(db.counters);
      const settled = await Promise.all([
        other.settle(filler.id, NO_CHANGE, keptOf(object('filler'), null)),
        other.settle(twice.id, { bytes: 100, objects: 1 }, keptOf(object('twice'), 100)),
        other.settle(twice.id, { bytes: 100, objects: 1 }),
      ]);
      expect(settled).toEqual([true, true, false]);
      expect((await usageOf())[0]).toEqual({
        scope: bucketScope('batched'),
        storedBytes: (before?.storedBytes ?? 0) + 100,
        storedObjects: (before?.storedObjects ?? 0) + 1,
        reservedBytes: (before?.reservedBytes ?? 0) - 200,
        reservedObjects: (before?.reservedObjects ?? 0) - 2,
      });
    });

    it('fails only the write whose statement fails, and answers the others of its batch as alone', async () => {
      const reservations = new StorageReservations(db.counters);
      const filler = write(reservations, 'lane-filler', 0, 2 ** 50);
      const [fine, broken] = await Promise.allSettled([
        write(reservations, 'fine', 10, 2 ** 50),
        // More bytes than a bigint holds: PostgreSQL refuses a statement that carries it.
        reservations.reserve(
          writer,
          quotas(2 ** 50),
          { bytes: 1e20, objects: 1 },
          'part:batched/u/1',
          newId(),
        ),
      ]);
      expect((await filler).outcome).toBe('held');
      expect(fine).toMatchObject({ status: 'fulfilled', value: { outcome: 'held', replaced: null } });
      expect(broken.status).toBe('rejected');
    });

    it("lets writes under another quota through while one waits for its rows' lock", async () => {
      const reservations = new StorageReservations(db.counters);
      const elsewhere = [{ scope: bucketScope('elsewhere'), maxBytes: 1_000_000, maxObjects: null }];
      const reserveElsewhere = (key: string) =>
        reservations.reserve(
          writer,
          elsewhere,
          { bytes: 1, objects: 1 },
          `object:elsewhere/${key}`,
          newId(),
          { bucket: 'elsewhere', key },
        );
      // Held before the lock: its settlement, in the lane of its own quota, must not wait either.
      const toSettle = await reserveElsewhere('settled-meanwhile');
      if (toSettle.outcome !== 'held' || toSettle.id === null) throw new Error('not held');
      const lockedOut = await write(reservations, 'before', 0, 2 ** 50);
      if (lockedOut.outcome !== 'held' || lockedOut.id === null) throw new Error('not held');
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let lockTaken: () => void = () => undefined;
      const taken = new Promise<void>((resolve) => (lockTaken = resolve));
      // A recount (or any other transaction) holding the bucket's and its organisation's rows.
      const holder = db.sql.begin(async (transaction) => {
        await transaction`
          SELECT 1 FROM storage_usage WHERE scope = ANY(${[bucketScope('batched'), organisationScope(organisationId)]}::text[])
          ORDER BY scope FOR UPDATE`;
        lockTaken();
        await released;
      });
      try {
        await taken;
        let waitingAnswered = false;
        const waiting = write(reservations, 'waits', 1, 2 ** 50).then((reservation) => {
          waitingAnswered = true;
          return reservation;
        });
        // A settlement under the locked quotas waits in their lane, and not in the other's.
        const settledLater = reservations.settle(lockedOut.id, NO_CHANGE);
        expect(await reserveElsewhere('free')).toMatchObject({ outcome: 'held', replaced: null });
        expect(
          await reservations.settle(
            toSettle.id,
            { bytes: 1, objects: 1 },
            keptOf({ bucket: 'elsewhere', key: 'settled-meanwhile' }, 1),
          ),
        ).toBe(true);
        expect(waitingAnswered).toBe(false);
        release();
        expect(await waiting).toMatchObject({ outcome: 'held', replaced: null });
        expect(await settledLater).toBe(true);
      } finally {
        release();
        await holder;
      }
    });
  },
);
