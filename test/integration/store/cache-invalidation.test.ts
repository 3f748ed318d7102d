import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { normaliseScope } from '../../../src/access/scope.js';
import { generateAccessKeyId } from '../../../src/security/ids.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { INVALIDATION_CHANNEL, type Invalidation } from '../../../src/store/invalidation.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';

const masterKey = randomBytes(32);
const cacheOptions = { masterKey, cache: { ttlMs: 600_000, maxEntries: 1000 } };

/**
 * Resolves once every store's bus has received a notification sent after everything before it.
 * PostgreSQL delivers notifications in commit order, so any notification committed before the
 * barrier (a change's, or a publisher's own echo) has reached each listener by then: waiting for
 * the barrier shows that nothing more is on its way, where a fixed pause would only hope so. The
 * barrier carries no origin (like an older gateway's), so every bus applies it; its key is unused.
 */
async function barrier(sender: Store, ...stores: Store[]): Promise<Invalidation> {
  const marker: Invalidation = { kind: 'credential', key: `barrier-${randomUUID()}` };
  const unsubscribe: (() => void)[] = [];
  const arrivals = stores.map(
    (store) =>
      new Promise<void>((resolve) =>
        unsubscribe.push(
          store.bus.subscribe((invalidation) => {
            if (invalidation.key === marker.key) resolve();
          }),
        ),
      ),
  );
  try {
    await sender.db.sql`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(marker)})`;
    await Promise.all(arrivals);
  } finally {
    for (const stop of unsubscribe) stop();
  }
  return marker;
}

async function newCredential(store: Store, organisationId: string) {
  const accessKeyId = generateAccessKeyId();
  await store.credentials.create({
    accessKeyId,
    organisationId,
    name: 'cached',
    secret: 's'.repeat(40),
    scope: normaliseScope({ buckets: ['*'], level: 'read-write' }),
    expiresAt: null,
    createdBy: null,
  });
  return accessKeyId;
}

describe('access cache, one instance', () => {
  let database: TestDatabase;
  let store: Store;
  let organisationId: string;
  let misses = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await createStore(database.connect(), {
      ...cacheOptions,
      cache: { ...cacheOptions.cache, events: { onMiss: () => (misses += 1) } },
    });
    organisationId = (await store.organisations.create('one')).id;
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('serves repeated lookups from memory', async () => {
    const id = await newCredential(store, organisationId);
    const before = misses;
    await store.cache.credential(id);
    await store.cache.credential(id);
    await store.cache.credential(id);
    expect(misses - before).toBe(1);
  });

  it('forgets a revoked credential at once, even though the TTL is ten minutes', async () => {
    const id = await newCredential(store, organisationId);
    expect((await store.cache.credential(id))?.accessKeyId).toBe(id);
    await store.credentials.delete(id);
    expect(await store.cache.credential(id)).toBeNull();
  });

  it('sees a credential created after its id was looked up and found missing', async () => {
    const id = generateAccessKeyId();
    expect(await store.cache.credential(id)).toBeNull();
    await store.credentials.create({
      accessKeyId: id,
      organisationId,
      name: 'late',
      secret: 'l'.repeat(40),
      scope: normaliseScope({ buckets: ['*'], level: 'read-only' }),
      expiresAt: null,
      createdBy: null,
    });
    expect((await store.cache.credential(id))?.name).toBe('late');
  });

  it('sees suspension, scope changes and bucket changes at once', async () => {
    expect((await store.cache.organisation(organisationId))?.status).toBe('active');
    await store.organisations.suspend(organisationId, 'unpaid');
    expect((await store.cache.organisation(organisationId))?.status).toBe('suspended');
    await store.organisations.reinstate(organisationId);
    expect((await store.cache.organisation(organisationId))?.status).toBe('active');

    const id = await newCredential(store, organisationId);
    await store.cache.credential(id);
    await store.credentials.update(id, {
      scope: normaliseScope({ buckets: ['only-this'], level: 'read-only' }),
    });
    expect((await store.cache.credential(id))?.scope.buckets).toEqual(['only-this']);

    await store.buckets.create({ name: 'cached-bucket', organisationId, public: false, createdBy: null });
    expect((await store.cache.bucket('cached-bucket'))?.bucket.public).toBe(false);
    await store.buckets.setPublic('cached-bucket', true);
    expect((await store.cache.bucket('cached-bucket'))?.bucket.public).toBe(true);
    await store.buckets.putCors(
      'cached-bucket',
      [{ allowedOrigins: ['https://app.test'], allowedMethods: ['PUT'] }],
      null,
    );
    expect((await store.cache.bucket('cached-bucket'))?.cors?.rules[0]?.allowedOrigins).toEqual([
      'https://app.test',
    ]);
  });
});

// LISTEN/NOTIFY between connections needs a real PostgreSQL server (PGlite does not deliver it).
const postgres = realPostgresFor('the cross-instance cache invalidation tests');

describe.runIf(postgres)('access cache, two instances on one database', () => {
  let database: TestDatabase;
  let first: Store;
  let second: Store;
  let organisationId: string;
  /** Cache invalidations applied by each instance (the gateway's invalidation metric counts these). */
  const applied = { first: 0, second: 0 };

  beforeAll(async () => {
    database = await createTestDatabase();
    const counting = (instance: keyof typeof applied) => ({
      ...cacheOptions,
      cache: { ...cacheOptions.cache, events: { onInvalidate: () => (applied[instance] += 1) } },
    });
    first = await createStore(database.connect(), counting('first'));
    second = await createStore(database.connect(), counting('second'));
    organisationId = (await first.organisations.create('shared')).id;
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  it('a revocation on one instance reaches the other instance’s cache', async () => {
    const id = await newCredential(first, organisationId);
    // The creation's own notification, arriving late, would empty the cache in place of the revocation's.
    await barrier(first, second);
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
    await first.credentials.delete(id);
    await eventually(
      'the other instance forgot the credential',
      async () => (await second.cache.credential(id)) === null,
    );
  });

  it('a suspension on one instance reaches the other', async () => {
    expect((await second.cache.organisation(organisationId))?.status).toBe('active');
    await first.organisations.suspend(organisationId, 'abuse');
    await eventually(
      'the other instance sees the suspension',
      async () => (await second.cache.organisation(organisationId))?.status === 'suspended',
    );
  });

  it('without the notification the other instance would still serve the cached record', async () => {
    const id = await newCredential(first, organisationId);
    // The creation's own notification must not reach the cache after the record is in it.
    await barrier(first, second);
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
    // A change made behind the stores' back sends no notification: the cache keeps its entry,
    // which shows the previous tests passed because of NOTIFY and not because nothing was cached.
    await first.db.sql`DELETE FROM credentials WHERE access_key_id = ${id}`;
    await barrier(first, second);
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
  });

  it('applies and counts each change once per instance, the one that made it included (no own echo)', async () => {
    const id = await newCredential(first, organisationId);
    expect(await second.cache.credential(id)).not.toBeNull();
    // The creation's notifications (and their echo) arrive before the counting starts.
    await barrier(first, first, second);
    const published = vi.spyOn(first.bus, 'publish');
    const received = { first: [] as Invalidation[], second: [] as Invalidation[] };
    const unsubscribe = [
      first.bus.subscribe((invalidation) => received.first.push(invalidation)),
      second.bus.subscribe((invalidation) => received.second.push(invalidation)),
    ];
    const before = { ...applied };
    try {
      await first.credentials.delete(id);
      await first.organisations.suspend(organisationId, 'echo test');
      await first.organisations.reinstate(organisationId);
      const count = published.mock.calls.length;
      expect(count).toBeGreaterThanOrEqual(3);
      // The publisher's own NOTIFY comes back on its LISTEN connection too; it would have arrived,
      // and been counted, before the barrier.
      const { key } = await barrier(first, first, second);
      const changes = { first: received.first.slice(0, -1), second: received.second.slice(0, -1) };
      expect([received.first.at(-1)?.key, received.second.at(-1)?.key]).toEqual([key, key]);
      expect(changes.first).toHaveLength(count);
      expect(changes.second).toHaveLength(count);
      expect(changes.second).toEqual(changes.first);
      // Each change once per instance, plus the barrier once.
      expect(applied.first - before.first).toBe(count + 1);
      expect(applied.second - before.second).toBe(count + 1);
    } finally {
      published.mockRestore();
      for (const stop of unsubscribe) stop();
    }
  });

  it('skips a notification carrying its own origin, and applies one from another instance or an older gateway', async () => {
    const seen = { first: [] as string[], second: [] as string[] };
    const unsubscribe = [
      first.bus.subscribe((invalidation) => seen.first.push(invalidation.key)),
      second.bus.subscribe((invalidation) => seen.second.push(invalidation.key)),
    ];
    try {
      const notify = (payload: object) =>
        first.db.sql`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(payload)})`;
      expect(first.bus.origin).not.toBe(second.bus.origin);
      await notify({ kind: 'credential', key: 'from-first', origin: first.bus.origin });
      await notify({ kind: 'credential', key: 'from-second', origin: second.bus.origin });
      await notify({ kind: 'credential', key: 'from-old-gateway' });
      // Whatever either bus would apply of the three has arrived before the barrier.
      const { key } = await barrier(first, first, second);
      expect(seen.first).toEqual(['from-second', 'from-old-gateway', key]);
      expect(seen.second).toEqual(['from-first', 'from-old-gateway', key]);
    } finally {
      for (const stop of unsubscribe) stop();
    }
  });
});
