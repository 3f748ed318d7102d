import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { addMember, addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectFullPagination } from '../../support/pagination.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let owner: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  expect((await owner.post('/v1/buckets', { name: 'cred-photos' })).status).toBe(201);
  expect((await owner.post('/v1/buckets', { name: 'cred-logs' })).status).toBe(201);
});
afterAll(async () => {
  await gw?.stop();
});

const readOnlyPhotos = { buckets: ['cred-photos'], level: 'read-only' };

describe('creating a credential', () => {
  it('returns the secret exactly once', async () => {
    const created = await owner.post('/v1/credentials', { name: 'uploader', scope: readOnlyPhotos });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['accessKeyId', 'createdAt', 'expiresAt', 'name', 'scope', 'secret'].sort(),
    );
    expect(created.body).toMatchObject({ name: 'uploader', scope: readOnlyPhotos, expiresAt: null });
    expect(created.body.accessKeyId).toMatchObject(expect.stringMatching(/^GWK1[A-Z2-7]{16}$/));
    expect(created.body.secret).toHaveLength(40);
    const { accessKeyId, secret } = created.body;

    // The stored secret is the one returned (the storage endpoint verifies with it).
    expect((await gw.gateway.context.store.credentials.find(accessKeyId))?.secret).toBe(secret);

    const responses = [
      await owner.get('/v1/credentials?limit=1000'),
      await owner.get(`/v1/credentials/${accessKeyId}`),
      await owner.patch(`/v1/credentials/${accessKeyId}`, { name: 'renamed' }),
      await owner.put(`/v1/credentials/${accessKeyId}/scope`, { buckets: ['*'], level: 'read-write' }),
      await owner.get('/v1/organisation/audit-log?limit=1000'),
    ];
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.text).toContain(accessKeyId);
      expect(response.text).not.toContain(secret);
      expect(response.text).not.toContain('"secret"');
    }
    expect(gw.logs.join('\n')).not.toContain(secret);
  });

  it('accepts explicit methods and an expiry', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await owner.post('/v1/credentials', {
      name: 'writer',
      scope: { buckets: ['cred-photos', 'cred-logs'], methods: ['put', 'GET'] },
      expiresAt,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.scope).toEqual({ buckets: ['cred-photos', 'cred-logs'], methods: ['PUT', 'GET'] });
    expect(created.body.expiresAt).toBe(expiresAt);
  });

  it('names each bad field of the scope, expiry and name', async () => {
    const create = (body: unknown) => owner.post('/v1/credentials', body);
    expectInvalidFields(await create({ scope: readOnlyPhotos }), 'name');
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: [], level: 'read-only' } }),
      'scope.buckets',
    );
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: ['cred-photos'], level: 'admin' } }),
      'scope.level',
    );
    expectInvalidFields(await create({ name: 'x', scope: { buckets: ['cred-photos'] } }), 'scope');
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: ['cred-photos'], level: 'read-only', methods: ['GET'] } }),
      'scope',
    );
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: ['cred-photos'], methods: ['PATCH'] } }),
      'scope.methods',
    );
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: ['*', 'cred-photos'], level: 'read-only' } }),
      'scope.buckets',
    );
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: ['nobodys-bucket'], level: 'read-only' } }),
      'scope.buckets',
    );
    expectInvalidFields(
      await create({ name: 'x', scope: readOnlyPhotos, expiresAt: '2001-01-01T00:00:00Z' }),
      'expiresAt',
    );
    expectInvalidFields(await create({ name: 'x', scope: readOnlyPhotos, expiresAt: 'soon' }), 'expiresAt');
    expectInvalidFields(
      await create({ name: 'x', scope: { buckets: [7], level: 'read-only' } }),
      'scope.buckets[0]',
    );
  });
});

describe('reading and changing a credential', () => {
  it('shows scope, expiry, state and last use', async () => {
    const created = await owner.post('/v1/credentials', { name: 'state', scope: readOnlyPhotos });
    const id = created.body.accessKeyId;
    const view = await owner.get(`/v1/credentials/${id}`);
    expect(view.body).toEqual({
      accessKeyId: id,
      name: 'state',
      scope: readOnlyPhotos,
      expiresAt: null,
      state: 'valid',
      createdAt: created.body.createdAt,
      createdBy: (await owner.get('/v1/me')).body.id,
      lastUsedAt: null,
      previousSecretValidUntil: null,
    });
    // An expiry that has passed (set directly: the API only accepts future ones) reads as expired.
    await gw.gateway.context.store.credentials.update(id, { expiresAt: new Date(Date.now() - 1000) });
    expect((await owner.get(`/v1/credentials/${id}`)).body.state).toBe('expired');
    expectProblem(await owner.get('/v1/credentials/GWK1NOSUCHCREDENTIAL'), 404, 'credential_not_found');
  });

  it('changes the name and the expiry (null: never expires)', async () => {
    const id = (await owner.post('/v1/credentials', { name: 'patchable', scope: readOnlyPhotos })).body
      .accessKeyId;
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const patched = await owner.patch(`/v1/credentials/${id}`, { name: 'patched', expiresAt });
    expect(patched.body).toMatchObject({ name: 'patched', expiresAt, state: 'valid' });
    expect((await owner.patch(`/v1/credentials/${id}`, { expiresAt: null })).body.expiresAt).toBeNull();
    expect((await owner.patch(`/v1/credentials/${id}`, {})).body.name).toBe('patched');
    expectInvalidFields(await owner.patch(`/v1/credentials/${id}`, { name: '' }), 'name');
    expectInvalidFields(await owner.patch(`/v1/credentials/${id}`, { secret: 'mine' }), 'secret');
  });

  it('replaces the scope, validating it', async () => {
    const id = (await owner.post('/v1/credentials', { name: 'scoped', scope: readOnlyPhotos })).body
      .accessKeyId;
    const replaced = await owner.put(`/v1/credentials/${id}/scope`, {
      buckets: ['cred-logs'],
      methods: ['GET', 'PUT'],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.scope).toEqual({ buckets: ['cred-logs'], methods: ['GET', 'PUT'] });
    expect((await gw.gateway.context.store.credentials.find(id))?.scope).toEqual({
      buckets: ['cred-logs'],
      methods: ['GET', 'PUT'],
    });
    expectInvalidFields(
      await owner.put(`/v1/credentials/${id}/scope`, { buckets: ['cred-logs'], level: 'all' }),
      'level',
    );
    expectInvalidFields(
      await owner.put(`/v1/credentials/${id}/scope`, { buckets: ['missing-bucket'], level: 'read-only' }),
      'buckets',
    );
  });

  it('pages the list', async () => {
    const created = [
      (await owner.post('/v1/credentials', { name: 'page-a', scope: readOnlyPhotos })).body.accessKeyId,
      (await owner.post('/v1/credentials', { name: 'page-b', scope: readOnlyPhotos })).body.accessKeyId,
    ];
    const ids = await expectFullPagination(owner, '/v1/credentials', { limit: 2, key: 'accessKeyId' });
    expect(ids).toEqual(expect.arrayContaining(created));
  });

  it('names a bad limit or cursor', async () => {
    for (const limit of ['0', '1001', '-1', '1.5', 'ten']) {
      expectInvalidFields(await owner.get(`/v1/credentials?limit=${limit}`), 'limit');
    }
    // Not base64url, and base64url of something that is no access key id.
    for (const cursor of ['not*a*cursor', Buffer.from('lower-case id').toString('base64url')]) {
      expectInvalidFields(await owner.get(`/v1/credentials?cursor=${cursor}`), 'cursor');
    }
  });
});

describe('rotating and revoking', () => {
  it('rotates: a new secret once, the old one dead at once without a grace period', async () => {
    const created = await owner.post('/v1/credentials', { name: 'rotating', scope: readOnlyPhotos });
    const id = created.body.accessKeyId;
    const rotated = await owner.post(`/v1/credentials/${id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      accessKeyId: id,
      secret: expect.any(String),
      previousSecretValidUntil: null,
    });
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const stored = await gw.gateway.context.store.credentials.find(id);
    expect(stored?.secret).toBe(rotated.body.secret);
    expect(stored?.previousSecret).toBeNull();
    expect((await owner.get(`/v1/credentials/${id}`)).text).not.toContain(rotated.body.secret);
  });

  it('rotates with a grace period during which the old secret still verifies', async () => {
    const created = await owner.post('/v1/credentials', { name: 'graceful', scope: readOnlyPhotos });
    const id = created.body.accessKeyId;
    // The gateway runs in this process, on this clock: the end of the grace period is ten minutes
    // after some instant between the request and its answer, however long they took.
    const sent = Date.now();
    const rotated = await owner.post(`/v1/credentials/${id}/rotate`, { gracePeriodSeconds: 600 });
    const answered = Date.now();
    const until = Date.parse(rotated.body.previousSecretValidUntil);
    expect(until).toBeGreaterThanOrEqual(sent + 600_000);
    expect(until).toBeLessThanOrEqual(answered + 600_000);
    const stored = await gw.gateway.context.store.credentials.find(id);
    expect(stored?.previousSecret).toBe(created.body.secret);
    expect((await owner.get(`/v1/credentials/${id}`)).body.previousSecretValidUntil).toBe(
      rotated.body.previousSecretValidUntil,
    );
    expectInvalidFields(
      await owner.post(`/v1/credentials/${id}/rotate`, { gracePeriodSeconds: 604_801 }),
      'gracePeriodSeconds',
    );
    expectInvalidFields(
      await owner.post(`/v1/credentials/${id}/rotate`, { gracePeriodSeconds: -1 }),
      'gracePeriodSeconds',
    );
  });

  it('revokes: the id no longer exists anywhere', async () => {
    const id = (await owner.post('/v1/credentials', { name: 'doomed', scope: readOnlyPhotos })).body
      .accessKeyId;
    expect((await owner.delete(`/v1/credentials/${id}`)).status).toBe(204);
    expectProblem(await owner.get(`/v1/credentials/${id}`), 404, 'credential_not_found');
    expect(await gw.gateway.context.store.credentials.find(id)).toBeNull();
    expect(await gw.gateway.context.store.cache.credential(id)).toBeNull();
    expectProblem(await owner.delete(`/v1/credentials/${id}`), 404, 'credential_not_found');
  });

  it('records every write in the audit log, without secrets', async () => {
    const created = await owner.post('/v1/credentials', { name: 'audited', scope: readOnlyPhotos });
    const id = created.body.accessKeyId;
    const rotated = await owner.post(`/v1/credentials/${id}/rotate`, { gracePeriodSeconds: 60 });
    await owner.put(`/v1/credentials/${id}/scope`, { buckets: ['*'], level: 'read-only' });
    await owner.patch(`/v1/credentials/${id}`, { name: 'audited-2' });
    await owner.delete(`/v1/credentials/${id}`);
    const log = await owner.get('/v1/organisation/audit-log?limit=5');
    expect(
      log.body.items.map((entry: { action: string; target: string }) => [entry.action, entry.target]),
    ).toEqual([
      ['credential.revoke', id],
      ['credential.update', id],
      ['credential.scope_replace', id],
      ['credential.rotate', id],
      ['credential.create', id],
    ]);
    expect(log.text).not.toContain(created.body.secret);
    expect(log.text).not.toContain(rotated.body.secret);
  });
});

describe('who may manage which credentials', () => {
  it('lets a member list, rename and rotate the credentials they created, and only those', async () => {
    const member = await addMember(owner, 'member');
    await owner.post('/v1/credentials', { name: 'owners', scope: readOnlyPhotos });
    const mine = await member.client.post('/v1/credentials', { name: 'mine', scope: readOnlyPhotos });
    expect(mine.status).toBe(201);

    const listed = await member.client.get('/v1/credentials');
    expect(listed.body.items.map((item: { accessKeyId: string }) => item.accessKeyId)).toEqual([
      mine.body.accessKeyId,
    ]);
    expect(
      (await member.client.patch(`/v1/credentials/${mine.body.accessKeyId}`, { name: 'still mine' })).status,
    ).toBe(200);
    expect((await member.client.post(`/v1/credentials/${mine.body.accessKeyId}/rotate`)).status).toBe(200);
  });

  it('refuses a member every use of the owner\u2019s credentials', async () => {
    const member = await addMember(owner, 'member');
    const ownersCredential = (await owner.post('/v1/credentials', { name: 'owners', scope: readOnlyPhotos }))
      .body.accessKeyId;
    expectProblem(await member.client.get(`/v1/credentials/${ownersCredential}`), 403, 'forbidden');
    expectProblem(
      await member.client.patch(`/v1/credentials/${ownersCredential}`, { name: 'hijacked', expiresAt: null }),
      403,
      'forbidden',
    );
    expectProblem(await member.client.delete(`/v1/credentials/${ownersCredential}`), 403, 'forbidden');
    expectProblem(await member.client.post(`/v1/credentials/${ownersCredential}/rotate`), 403, 'forbidden');
    expectProblem(
      await member.client.put(`/v1/credentials/${ownersCredential}/scope`, readOnlyPhotos),
      403,
      'forbidden',
    );
    expect((await gw.gateway.context.store.credentials.find(ownersCredential))?.name).toBe('owners');
  });

  it('keeps another member\u2019s credential as much out of reach as the owner\u2019s', async () => {
    const member = await addMember(owner, 'member');
    const colleague = await addMember(owner, 'member');
    const colleagues = (
      await colleague.client.post('/v1/credentials', { name: 'colleagues', scope: readOnlyPhotos })
    ).body.accessKeyId;
    expectProblem(
      await member.client.patch(`/v1/credentials/${colleagues}`, { name: 'hijacked' }),
      403,
      'forbidden',
    );
    expect((await gw.gateway.context.store.credentials.find(colleagues))?.name).toBe('colleagues');
  });

  it('lets owners and admins manage a member\u2019s credential', async () => {
    const member = await addMember(owner, 'member');
    const mine = await member.client.post('/v1/credentials', { name: 'mine', scope: readOnlyPhotos });
    const admin = await addMember(owner, 'admin');
    expect((await admin.client.get(`/v1/credentials/${mine.body.accessKeyId}`)).status).toBe(200);
    expect((await admin.client.delete(`/v1/credentials/${mine.body.accessKeyId}`)).status).toBe(204);
  });

  it('keeps organisations apart', async () => {
    const other = await addOrganisation(owner, 'cred-other');
    const theirs = (
      await other.owner.post('/v1/credentials', {
        name: 'theirs',
        scope: { buckets: ['*'], level: 'read-only' },
      })
    ).body.accessKeyId;
    expectProblem(await owner.get(`/v1/credentials/${theirs}`), 404, 'credential_not_found');
    expectProblem(await owner.delete(`/v1/credentials/${theirs}`), 404, 'credential_not_found');
    expectProblem(await owner.post(`/v1/credentials/${theirs}/rotate`), 404, 'credential_not_found');
    expectProblem(
      await owner.patch(`/v1/credentials/${theirs}`, { name: 'taken over', expiresAt: null }),
      404,
      'credential_not_found',
    );
    expectProblem(
      await owner.put(`/v1/credentials/${theirs}/scope`, { buckets: ['*'], level: 'read-write' }),
      404,
      'credential_not_found',
    );
    // Nothing of theirs changed.
    expect(await gw.gateway.context.store.credentials.find(theirs)).toMatchObject({
      name: 'theirs',
      scope: { buckets: ['*'], level: 'read-only' },
    });
    // Naming another organisation's bucket in a scope is as wrong as naming a missing one.
    expectInvalidFields(
      await other.owner.post('/v1/credentials', { name: 'x', scope: readOnlyPhotos }),
      'scope.buckets',
    );
    const ours = await owner.get('/v1/credentials?limit=1000');
    expect(ours.text).not.toContain(theirs);
  });

  it('refuses callers without a bearer token', async () => {
    const anonymous = new ControlClient(gw.controlUrl);
    expectProblem(await anonymous.get('/v1/credentials'), 401, 'unauthenticated');
    expectProblem(
      await anonymous.post(
        '/v1/credentials',
        { name: 'x', scope: readOnlyPhotos },
        {
          headers: {
            authorization: `AWS4-HMAC-SHA256 Credential=${gw.credential.accessKeyId}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'a'.repeat(64)}`,
          },
        },
      ),
      401,
      'storage_credentials_not_accepted',
    );
  });
});
