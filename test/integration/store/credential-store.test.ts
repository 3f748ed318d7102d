import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseScope } from '../../../src/access/scope.js';
import { generateAccessKeyId, generateSecretAccessKey } from '../../../src/security/ids.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

describe('credential store', () => {
  let database: TestDatabase;
  let store: Store;
  let organisationId: string;
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await createStore(database.connect(), { masterKey, cache: { ttlMs: 60_000, maxEntries: 100 } });
    organisationId = (await store.organisations.create('acme')).id;
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('keeps the secret encrypted at rest and decrypts it on read', async () => {
    const accessKeyId = generateAccessKeyId();
    const secret = generateSecretAccessKey();
    await store.credentials.create({
      accessKeyId,
      organisationId,
      name: 'ci',
      secret,
      scope: normaliseScope({ buckets: ['*'], level: 'read-only' }),
      expiresAt: null,
      createdBy: null,
    });
    const [row] = await store.db.sql<{ secret_ciphertext: string }[]>`
      SELECT secret_ciphertext FROM credentials WHERE access_key_id = ${accessKeyId}`;
    expect(row?.secret_ciphertext).not.toContain(secret);
    expect(row?.secret_ciphertext.startsWith('v1:')).toBe(true);
    expect((await store.credentials.find(accessKeyId))?.secret).toBe(secret);
  });

  it('keeps the previous secret during a rotation grace period only', async () => {
    const accessKeyId = generateAccessKeyId();
    await store.credentials.create({
      accessKeyId,
      organisationId,
      name: 'rotating',
      secret: 'first-secret-first-secret-first-secret-1',
      scope: normaliseScope({ buckets: ['*'], level: 'read-write' }),
      expiresAt: null,
      createdBy: null,
    });
    const withGrace = await store.credentials.rotate(
      accessKeyId,
      'second-secret-second-secret-second-secr',
      new Date(Date.now() + 60_000),
    );
    expect(withGrace?.secret).toBe('second-secret-second-secret-second-secr');
    expect(withGrace?.previousSecret).toBe('first-secret-first-secret-first-secret-1');

    const withoutGrace = await store.credentials.rotate(
      accessKeyId,
      'third-secret-third-secret-third-secret-3',
      null,
    );
    expect(withoutGrace?.secret).toBe('third-secret-third-secret-third-secret-3');
    expect(withoutGrace?.previousSecret).toBeNull();
  });
});
