import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseScope } from '../../../src/access/scope.js';
import { generateAccessKeyId } from '../../../src/security/ids.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '../../support/database.js';

const masterKey = randomBytes(32);
const cacheOptions = { masterKey, cache: { ttlMs: 600_000, maxEntries: 1000 } };

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not reached in time');
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
describe.runIf(realPostgresUrl() !== null)('access cache, two instances on one database', () => {
  let database: TestDatabase;
  let first: Store;
  let second: Store;
  let organisationId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await createStore(database.connect(), cacheOptions);
    second = await createStore(database.connect(), cacheOptions);
    organisationId = (await first.organisations.create('shared')).id;
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  it('a revocation on one instance reaches the other instance’s cache', async () => {
    const id = await newCredential(first, organisationId);
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
    await first.credentials.delete(id);
    await waitFor(async () => (await second.cache.credential(id)) === null);
  });

  it('a suspension on one instance reaches the other', async () => {
    expect((await second.cache.organisation(organisationId))?.status).toBe('active');
    await first.organisations.suspend(organisationId, 'abuse');
    await waitFor(async () => (await second.cache.organisation(organisationId))?.status === 'suspended');
  });

  it('without the notification the other instance would still serve the cached record', async () => {
    const id = await newCredential(first, organisationId);
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
    // A change made behind the stores' back sends no notification: the cache keeps its entry,
    // which shows the previous tests passed because of NOTIFY and not because nothing was cached.
    await first.db.sql`DELETE FROM credentials WHERE access_key_id = ${id}`;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await second.cache.credential(id))?.accessKeyId).toBe(id);
  });
});
