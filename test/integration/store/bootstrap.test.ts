import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, FIRST_ORGANISATION_NAME } from '../../../src/bootstrap.js';
import { loadConfig } from '../../../src/config/load.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

describe('first-start bootstrap', () => {
  let database: TestDatabase;
  let store: Store;
  const config = (email: string) =>
    loadConfig({ GATEWAY_ADMIN_EMAIL: email, GATEWAY_DATA_DIR: '/nonexistent-never-written' });

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await createStore(database.connect(), {
      masterKey: randomBytes(32),
      cache: { ttlMs: 60_000, maxEntries: 100 },
    });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('creates the admin, the first organisation and a read-write key once; a later start changes nothing', async () => {
    const first = await bootstrap(store, config('first@example.test'));
    expect(first.created?.organisationName).toBe(FIRST_ORGANISATION_NAME);
    expect(first.created?.generatedPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const credential = await store.credentials.find(first.created?.credential.accessKeyId ?? '');
    expect(credential?.secret).toBe(first.created?.credential.secret);
    expect(credential?.scope).toMatchObject({ buckets: ['*'] });
    expect((await bootstrap(store, config('first@example.test'))).created).toBeNull();
  });

  it('leaves nothing behind when a step fails, so the next start does it all', async () => {
    await store.db.sql.unsafe(
      "ALTER TABLE credentials ADD CONSTRAINT refuse_bootstrap CHECK (name <> 'bootstrap') NOT VALID",
    );
    await expect(bootstrap(store, config('atomic@example.test'))).rejects.toThrow();
    expect(await store.users.findByEmail('atomic@example.test')).toBeNull();
    await store.db.sql.unsafe('ALTER TABLE credentials DROP CONSTRAINT refuse_bootstrap');
    expect((await bootstrap(store, config('atomic@example.test'))).created?.adminEmail).toBe(
      'atomic@example.test',
    );
  });

  it('two instances starting together: one bootstraps, the other finds it done', async () => {
    const results = await Promise.all([
      bootstrap(store, config('racing@example.test')),
      bootstrap(store, config('racing@example.test')),
    ]);
    expect(results.filter((result) => result.created !== null)).toHaveLength(1);
  });
});
