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
let platformAdmin: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  platformAdmin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gw?.stop();
});

describe('platform administration of organisations', () => {
  it('creates an organisation and invites its first owner, whose invitation makes them owner', async () => {
    const created = await platformAdmin.post('/v1/organisations', {
      name: 'Acme',
      ownerEmail: 'boss@acme.test',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      organisation: { id: expect.any(String), name: 'Acme', status: 'active' },
      invitation: { token: expect.any(String), expiresAt: expect.any(String) },
    });
    const accepted = await new ControlClient(gw.controlUrl).post('/v1/auth/invitations/accept', {
      token: created.body.invitation.token,
      password: 'acme boss password',
      name: 'Boss',
    });
    expect(accepted.body.user).toMatchObject({
      email: 'boss@acme.test',
      role: 'owner',
      platformAdmin: false,
    });
    const boss = new ControlClient(gw.controlUrl, accepted.body.access_token);
    expect((await boss.get('/v1/organisation')).body).toMatchObject({
      id: created.body.organisation.id,
      name: 'Acme',
    });
  });

  it('lists every organisation with its status, paginated', async () => {
    await addOrganisation(platformAdmin, 'listed');
    const all = await platformAdmin.get('/v1/organisations?limit=1000');
    expect(all.status).toBe(200);
    const names = all.body.items.map((organisation: { name: string }) => organisation.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'listed']));
    expect(all.body.items[0]).toMatchObject({
      id: expect.any(String),
      status: expect.stringMatching(/active|suspended/),
    });
    await expectFullPagination(platformAdmin, '/v1/organisations', { limit: 2, key: 'id' });
  });

  it('names a bad limit or cursor on the list', async () => {
    for (const limit of ['0', '1001', '-1', '3.5', 'lots']) {
      expectInvalidFields(await platformAdmin.get(`/v1/organisations?limit=${limit}`), 'limit');
    }
    // Not base64url, and base64url of something that is no organisation id.
    for (const cursor of ['a+b', Buffer.from('default').toString('base64url')]) {
      expectInvalidFields(await platformAdmin.get(`/v1/organisations?cursor=${cursor}`), 'cursor');
    }
  });

  it('never shows the first owner\u2019s invitation token again', async () => {
    const created = await platformAdmin.post('/v1/organisations', {
      name: 'once-only',
      ownerEmail: 'first.owner@once-only.test',
    });
    expect(created.status).toBe(201);
    const { token } = created.body.invitation as { token: string };
    const organisationId = created.body.organisation.id as string;
    const adminViews = async () => [
      await platformAdmin.get('/v1/organisations?limit=1000'),
      await platformAdmin.get('/v1/organisation/audit-log?limit=1000'),
      await platformAdmin.get('/v1/organisation/members?limit=1000'),
      await platformAdmin.post(`/v1/organisations/${organisationId}/suspend`, { reason: 'checking' }),
      await platformAdmin.post(`/v1/organisations/${organisationId}/reinstate`),
    ];
    for (const response of await adminViews()) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).not.toContain(token);
    }
    // Trying to create it again echoes nothing either.
    const again = await platformAdmin.post('/v1/organisations', {
      name: 'once-only',
      ownerEmail: 'first.owner@once-only.test',
    });
    expect(again.status).toBe(409);
    expect(again.text).not.toContain(token);

    const accepted = await new ControlClient(gw.controlUrl).post('/v1/auth/invitations/accept', {
      token,
      password: 'first owner password',
      name: 'First owner',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.text).not.toContain(token);
    const firstOwner = new ControlClient(gw.controlUrl, accepted.body.access_token);
    const ownerViews = [
      await firstOwner.get('/v1/organisation/audit-log?limit=1000'),
      await firstOwner.get('/v1/organisation/members?limit=1000'),
      await firstOwner.get('/v1/organisation'),
      await firstOwner.get('/v1/me'),
    ];
    // The owner's log holds the creation (with the owner's e-mail) and the acceptance, not the token.
    expect(ownerViews[0]?.body.items.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(['organisation.create', 'invitation.accept']),
    );
    for (const response of [...ownerViews, ...(await adminViews())]) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).not.toContain(token);
    }
  });

  it('refuses a name another organisation has, whatever its case', async () => {
    await addOrganisation(platformAdmin, 'unique-name');
    expectProblem(
      await platformAdmin.post('/v1/organisations', { name: 'UNIQUE-NAME', ownerEmail: 'x@example.test' }),
      409,
      'organisation_name_taken',
    );
  });

  it('refuses an owner who already has an organisation, and leaves nothing behind', async () => {
    expectProblem(
      await platformAdmin.post('/v1/organisations', { name: 'fresh', ownerEmail: TEST_ADMIN_EMAIL }),
      409,
      'already_member',
    );
    const names = (await platformAdmin.get('/v1/organisations?limit=1000')).body.items.map(
      (organisation: { name: string }) => organisation.name,
    );
    expect(names).not.toContain('fresh');
  });

  it('names each bad field of a new organisation', async () => {
    expectInvalidFields(await platformAdmin.post('/v1/organisations', { name: '' }), 'name', 'ownerEmail');
  });

  it('is for platform admins only', async () => {
    const other = await addOrganisation(platformAdmin, 'not-admins');
    const organisationId = other.organisationId;
    expectProblem(await other.owner.get('/v1/organisations'), 403, 'platform_admin_required');
    expectProblem(
      await other.owner.post('/v1/organisations', { name: 'mine', ownerEmail: 'm@example.test' }),
      403,
      'platform_admin_required',
    );
    expectProblem(
      await other.owner.post(`/v1/organisations/${organisationId}/suspend`, { reason: 'x' }),
      403,
      'platform_admin_required',
    );
    expectProblem(
      await other.owner.post(`/v1/organisations/${organisationId}/reinstate`),
      403,
      'platform_admin_required',
    );
    expectProblem(await new ControlClient(gw.controlUrl).get('/v1/organisations'), 401, 'unauthenticated');
  });
});

/** A new organisation with an admin besides its owner, suspended by the platform admin. */
async function suspendedTenant(name: string, reason: string) {
  const tenant = await addOrganisation(platformAdmin, name);
  const admin = await addMember(tenant.owner, 'admin');
  const suspended = await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/suspend`, {
    reason,
  });
  expect(suspended.status, suspended.text).toBe(200);
  return { ...tenant, admin, suspended };
}

describe('suspension', () => {
  it('suspends with a reason and the time', async () => {
    const tenant = await suspendedTenant('suspendable', 'unpaid invoice');
    expect(tenant.suspended.body).toMatchObject({
      id: tenant.organisationId,
      status: 'suspended',
      suspensionReason: 'unpaid invoice',
      suspendedAt: expect.any(String),
    });
  });

  it('lets its people log in and read their organisation, shown suspended with the reason', async () => {
    const tenant = await suspendedTenant('suspended-login', 'unpaid invoice');
    const again = await login(gw.controlUrl, tenant.admin.email, tenant.admin.password);
    expect((await again.get('/v1/me/organisation')).body).toMatchObject({
      status: 'suspended',
      suspensionReason: 'unpaid invoice',
    });
    expect((await again.get('/v1/organisation')).body.status).toBe('suspended');
  });

  it('still issues and revokes credentials', async () => {
    const tenant = await suspendedTenant('suspended-credentials', 'unpaid invoice');
    const credential = await tenant.admin.client.post('/v1/credentials', {
      name: 'still allowed',
      scope: { buckets: ['*'], level: 'read-only' },
    });
    expect(credential.status).toBe(201);
    expect((await tenant.admin.client.delete(`/v1/credentials/${credential.body.accessKeyId}`)).status).toBe(
      204,
    );
  });

  it('refuses bucket creation, naming the reason', async () => {
    const tenant = await suspendedTenant('suspended-buckets', 'unpaid invoice');
    const refused = expectProblem(
      await tenant.admin.client.post('/v1/buckets', { name: 'during-suspension' }),
      403,
      'account_suspended',
    );
    expect(refused.detail).toMatch(/suspended/);
    expect(refused.detail).toContain('unpaid invoice');
  });

  it('reinstates: active again, the reason cleared, buckets created again', async () => {
    const tenant = await suspendedTenant('reinstated', 'unpaid invoice');
    const reinstated = await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/reinstate`);
    expect(reinstated.body).toMatchObject({ status: 'active', suspensionReason: null, suspendedAt: null });
    expect((await tenant.admin.client.post('/v1/buckets', { name: 'after-reinstatement' })).status).toBe(201);
  });
});

describe('the data of a suspended organisation', () => {
  /**
   * An organisation with an object in one bucket, an empty second bucket, a member, and a URL that
   * reads the object presigned while suspended; the suspension's reason is "overdue".
   */
  async function suspendedWithData(name: string) {
    const tenant = await addOrganisation(platformAdmin, name);
    const member = await addMember(tenant.owner, 'member');
    const objects = `${name}-objects`;
    const empty = `${name}-empty`;
    await tenant.owner.createBucket(objects);
    await tenant.owner.createBucket(empty);
    const key = await tenant.owner.createCredential('writer', { buckets: ['*'], level: 'read-write' });
    const presign = (method: string) =>
      tenant.owner.post(`/v1/buckets/${objects}/presign`, {
        key: 'kept.txt',
        method,
        expiresIn: 600,
        accessKeyId: key.accessKeyId,
      });
    const put = await presign('PUT');
    expect((await fetch(put.body.url, { method: 'PUT', body: 'still here' })).status).toBe(200);
    await platformAdmin.call(
      'POST',
      `/v1/organisations/${tenant.organisationId}/suspend`,
      { reason: 'overdue' },
      200,
    );
    return { ...tenant, member, objects, empty, presign };
  }

  it('refuses listing objects to everyone in it, naming the reason', async () => {
    const tenant = await suspendedWithData('suspended-listing');
    for (const client of [tenant.owner, tenant.member.client]) {
      const listing = expectProblem(
        await client.get(`/v1/buckets/${tenant.objects}/objects`),
        403,
        'account_suspended',
      );
      expect(listing.detail).toContain('overdue');
    }
  });

  it('refuses deleting objects and buckets', async () => {
    const tenant = await suspendedWithData('suspended-deletes');
    expectProblem(
      await tenant.owner.post(`/v1/buckets/${tenant.objects}/objects/delete`, { keys: ['kept.txt'] }),
      403,
      'account_suspended',
    );
    expectProblem(await tenant.owner.delete(`/v1/buckets/${tenant.empty}`), 403, 'account_suspended');
  });

  it('checks roles and ownership before the suspension: a member is forbidden, a stranger\u2019s bucket absent', async () => {
    const tenant = await suspendedWithData('suspended-roles');
    expectProblem(await tenant.member.client.delete(`/v1/buckets/${tenant.empty}`), 403, 'forbidden');
    expectProblem(await tenant.owner.delete('/v1/buckets/no-such-bucket'), 404, 'bucket_not_found');
  });

  it('keeps the bucket records readable and the buckets untouched', async () => {
    const tenant = await suspendedWithData('suspended-records');
    expect((await tenant.owner.get(`/v1/buckets/${tenant.empty}`)).status).toBe(200);
    expect((await tenant.owner.get(`/v1/buckets/${tenant.objects}/cors`)).status).toBe(200);
    expect(await gw.gateway.context.store.buckets.find(tenant.empty)).not.toBeNull();
  });

  it('presigns, as it issues keys, but the storage endpoint refuses the URL while suspended', async () => {
    const tenant = await suspendedWithData('suspended-presign');
    const get = await tenant.presign('GET');
    expect(get.status, get.text).toBe(200);
    const refused = await fetch(get.body.url);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>AccountProblem</Code>');
  });

  it('is all there once reinstated: listed, readable through a URL presigned meanwhile, deletable', async () => {
    const tenant = await suspendedWithData('reinstated-data');
    const get = await tenant.presign('GET');
    await platformAdmin.call('POST', `/v1/organisations/${tenant.organisationId}/reinstate`, undefined, 200);
    const listed = await tenant.owner.get(`/v1/buckets/${tenant.objects}/objects`);
    expect(listed.body.objects.map((object: { key: string }) => object.key)).toEqual(['kept.txt']);
    expect(await (await fetch(get.body.url)).text()).toBe('still here');
    expect((await tenant.member.client.get(`/v1/buckets/${tenant.objects}/objects`)).status).toBe(200);
    expect(
      (await tenant.owner.post(`/v1/buckets/${tenant.objects}/objects/delete`, { keys: ['kept.txt'] }))
        .status,
    ).toBe(200);
    expect((await tenant.owner.delete(`/v1/buckets/${tenant.empty}`)).status).toBe(204);
  });
});

describe('suspension, recorded and announced', () => {
  it('tells the storage endpoint at once (its cached organisation is dropped)', async () => {
    const tenant = await addOrganisation(platformAdmin, 'cached');
    const cache = gw.gateway.context.store.cache;
    expect((await cache.organisation(tenant.organisationId))?.status).toBe('active');
    await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/suspend`, { reason: 'abuse' });
    expect((await cache.organisation(tenant.organisationId))?.status).toBe('suspended');
  });

  it('needs a reason', async () => {
    const tenant = await addOrganisation(platformAdmin, 'reasonless');
    expectInvalidFields(
      await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/suspend`, {}),
      'reason',
    );
    expectInvalidFields(
      await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/suspend`, { reason: '' }),
      'reason',
    );
  });

  it('answers organisation_not_found for an organisation that does not exist', async () => {
    expectProblem(
      await platformAdmin.post('/v1/organisations/00000000-0000-4000-8000-000000000000/suspend', {
        reason: 'x',
      }),
      404,
      'organisation_not_found',
    );
    expectProblem(
      await platformAdmin.post('/v1/organisations/not-an-id/reinstate'),
      404,
      'organisation_not_found',
    );
  });

  it('is recorded in the organisation audit log', async () => {
    const tenant = await addOrganisation(platformAdmin, 'audited');
    await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/suspend`, { reason: 'audit me' });
    await platformAdmin.post(`/v1/organisations/${tenant.organisationId}/reinstate`);
    const log = await tenant.owner.get('/v1/organisation/audit-log');
    expect(log.body.items.slice(0, 2)).toMatchObject([
      { action: 'organisation.reinstate', actor: { email: TEST_ADMIN_EMAIL }, target: tenant.organisationId },
      { action: 'organisation.suspend', details: { reason: 'audit me' } },
    ]);
    expect(log.body.items.map((entry: { action: string }) => entry.action)).toContain('organisation.create');
  });
});
