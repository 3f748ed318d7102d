import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import {
  addMember,
  addOrganisation,
  type ApiResponse,
  ControlClient,
  login,
} from '../../support/control-plane.js';
import { expectProblem } from '../../support/problems.js';

/**
 * Every control-plane write lands together with its audit entry or not at all: with the audit
 * insert of one action refused by the database, that action's write is rolled back, and the
 * storage endpoint's caches still hold what the database holds.
 */
let gw: TestGateway;
let owner: ControlClient;
let organisationId: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  organisationId = (await owner.get('/v1/organisation')).body.id;
  expect((await owner.post('/v1/buckets', { name: 'atomic-bucket' })).status).toBe(201);
});
afterAll(async () => {
  await gw?.stop();
});

/** Runs `attempt` while the database refuses audit entries of `action`; it must fail as a whole. */
async function withAuditRefused(action: string, attempt: () => Promise<ApiResponse>): Promise<void> {
  const { sql } = gw.gateway.context.store.db;
  expect(action).toMatch(/^[a-z_.]+$/);
  // NOT VALID: only new rows are checked, the entries already logged stay.
  await sql.unsafe(
    `ALTER TABLE audit_log ADD CONSTRAINT test_refused_action CHECK (action <> '${action}') NOT VALID`,
  );
  try {
    expectProblem(await attempt(), 500, 'internal_error');
  } finally {
    await sql.unsafe('ALTER TABLE audit_log DROP CONSTRAINT test_refused_action');
  }
}

async function loggedActions(client: ControlClient = owner): Promise<string[]> {
  const log = await client.get('/v1/organisation/audit-log?limit=1000');
  expect(log.status).toBe(200);
  return log.body.items.map((entry: { action: string }) => entry.action);
}

describe('a credential write whose audit entry cannot be stored is rolled back', () => {
  let id: string;
  let unchanged: Record<string, unknown>;

  beforeAll(async () => {
    const created = await owner.post('/v1/credentials', {
      name: 'atomic',
      scope: { buckets: ['atomic-bucket'], level: 'read-only' },
    });
    expect(created.status).toBe(201);
    id = created.body.accessKeyId as string;
    unchanged = {
      name: 'atomic',
      expiresAt: null,
      scope: { buckets: ['atomic-bucket'], level: 'read-only' },
      secret: created.body.secret,
      previousSecret: null,
    };
    // Warm the storage endpoint's cache: it must not be left holding a change that was rolled back.
    expect((await gw.gateway.context.store.cache.credential(id))?.name).toBe('atomic');
  });

  /** The credential, in the database and in the storage endpoint's cache, is as it was created. */
  async function expectUnchanged(): Promise<void> {
    const { store } = gw.gateway.context;
    expect(await store.credentials.find(id)).toMatchObject(unchanged);
    expect(await store.cache.credential(id)).toMatchObject(unchanged);
  }

  it('creation', async () => {
    const before = (await owner.get('/v1/credentials?limit=1000')).body.items.length;
    await withAuditRefused('credential.create', () =>
      owner.post('/v1/credentials', { name: 'unaudited', scope: { buckets: ['*'], level: 'read-only' } }),
    );
    const listed = await owner.get('/v1/credentials?limit=1000');
    expect(listed.body.items).toHaveLength(before);
    expect(listed.text).not.toContain('unaudited');
  });

  it('rename and expiry', async () => {
    await withAuditRefused('credential.update', () =>
      owner.patch(`/v1/credentials/${id}`, { name: 'renamed', expiresAt: '2099-01-01T00:00:00Z' }),
    );
    await expectUnchanged();
    expect(await loggedActions()).not.toContain('credential.update');
  });

  it('scope replacement', async () => {
    await withAuditRefused('credential.scope_replace', () =>
      owner.put(`/v1/credentials/${id}/scope`, { buckets: ['*'], level: 'read-write' }),
    );
    await expectUnchanged();
    expect(await loggedActions()).not.toContain('credential.scope_replace');
  });

  it('rotation', async () => {
    await withAuditRefused('credential.rotate', () =>
      owner.post(`/v1/credentials/${id}/rotate`, { gracePeriodSeconds: 60 }),
    );
    await expectUnchanged();
    expect(await loggedActions()).not.toContain('credential.rotate');
  });

  it('revocation', async () => {
    await withAuditRefused('credential.revoke', () => owner.delete(`/v1/credentials/${id}`));
    await expectUnchanged();
    expect(await loggedActions()).not.toContain('credential.revoke');
  });

  it('goes through, logged, once the audit log works again', async () => {
    const { store } = gw.gateway.context;
    expect((await owner.patch(`/v1/credentials/${id}`, { name: 'renamed' })).status).toBe(200);
    expect((await store.cache.credential(id))?.name).toBe('renamed');
    expect((await owner.delete(`/v1/credentials/${id}`)).status).toBe(204);
    expect(await loggedActions()).toEqual(expect.arrayContaining(['credential.update', 'credential.revoke']));
  });
});

describe('a bucket write whose audit entry cannot be stored is rolled back', () => {
  it('creation, and the object-store bucket goes again', async () => {
    const { store } = gw.gateway.context;
    await withAuditRefused('bucket.create', () => owner.post('/v1/buckets', { name: 'unaudited-bucket' }));
    expect(await store.buckets.find('unaudited-bucket')).toBeNull();
    // Nothing is left on the object store either: the name is free for the next attempt.
    expect((await owner.post('/v1/buckets', { name: 'unaudited-bucket' })).status).toBe(201);
  });

  it('settings', async () => {
    const { store } = gw.gateway.context;
    expect((await store.cache.bucket('atomic-bucket'))?.bucket.public).toBe(false);
    await withAuditRefused('bucket.update', () => owner.patch('/v1/buckets/atomic-bucket', { public: true }));
    expect((await store.buckets.find('atomic-bucket'))?.public).toBe(false);
    expect((await store.cache.bucket('atomic-bucket'))?.bucket.public).toBe(false);
  });

  it('CORS rules, set and deleted', async () => {
    const { store } = gw.gateway.context;
    const rules = [{ allowedOrigins: ['https://app.example'], allowedMethods: ['GET'] }];
    await withAuditRefused('bucket.cors_put', () => owner.put('/v1/buckets/atomic-bucket/cors', { rules }));
    expect(await store.buckets.findCors('atomic-bucket')).toBeNull();
    expect((await owner.put('/v1/buckets/atomic-bucket/cors', { rules })).status).toBe(200);
    await withAuditRefused('bucket.cors_delete', () => owner.delete('/v1/buckets/atomic-bucket/cors'));
    expect((await store.buckets.findCors('atomic-bucket'))?.rules).toEqual(rules);
    expect((await store.cache.bucket('atomic-bucket'))?.cors?.rules).toEqual(rules);
  });

  it('deletion: the record and its entry stay together, and deleting again finishes the job', async () => {
    const { store } = gw.gateway.context;
    expect((await owner.post('/v1/buckets', { name: 'doomed-bucket' })).status).toBe(201);
    // The object store's bucket is gone before the record is.
    await withAuditRefused('bucket.delete', () => owner.delete('/v1/buckets/doomed-bucket'));
    expect(await store.buckets.find('doomed-bucket')).not.toBeNull();
    expect(await loggedActions()).not.toContain('bucket.delete');
    expect((await owner.delete('/v1/buckets/doomed-bucket')).status).toBe(204);
    expect(await store.buckets.find('doomed-bucket')).toBeNull();
    expect((await loggedActions()).filter((action) => action === 'bucket.delete')).toHaveLength(1);
  });
});

describe('an organisation write whose audit entry cannot be stored is rolled back', () => {
  let tenant: Awaited<ReturnType<typeof addOrganisation>>;

  beforeAll(async () => {
    tenant = await addOrganisation(owner, 'atomic-tenant');
    expect((await gw.gateway.context.store.cache.organisation(tenant.organisationId))?.status).toBe('active');
  });

  it('suspension', async () => {
    const { store } = gw.gateway.context;
    await withAuditRefused('organisation.suspend', () =>
      owner.post(`/v1/organisations/${tenant.organisationId}/suspend`, { reason: 'unaudited' }),
    );
    expect((await store.organisations.find(tenant.organisationId))?.status).toBe('active');
    expect((await store.cache.organisation(tenant.organisationId))?.status).toBe('active');
  });

  it('reinstatement', async () => {
    const { store } = gw.gateway.context;
    expect(
      (await owner.post(`/v1/organisations/${tenant.organisationId}/suspend`, { reason: 'audited' })).status,
    ).toBe(200);
    await withAuditRefused('organisation.reinstate', () =>
      owner.post(`/v1/organisations/${tenant.organisationId}/reinstate`),
    );
    expect((await store.organisations.find(tenant.organisationId))?.status).toBe('suspended');
    expect((await store.cache.organisation(tenant.organisationId))?.status).toBe('suspended');
    expect(await loggedActions(tenant.owner)).not.toContain('organisation.reinstate');
  });

  it('name and settings', async () => {
    const { store } = gw.gateway.context;
    await withAuditRefused('organisation.update', () =>
      owner.patch('/v1/organisation', { name: 'unaudited-name', settings: { tier: 'gold' } }),
    );
    expect(await store.organisations.find(organisationId)).toMatchObject({ name: 'default', settings: {} });
  });
});

describe("a person's write whose audit entry cannot be stored is rolled back", () => {
  it('renaming oneself', async () => {
    const person = await addMember(owner, 'member');
    const before = (await person.client.get('/v1/me')).body.name;
    await withAuditRefused('user.rename', () => person.client.patch('/v1/me', { name: 'Unaudited' }));
    expect((await person.client.get('/v1/me')).body.name).toBe(before);
  });

  it('an invitation', async () => {
    const { sql } = gw.gateway.context.store.db;
    await withAuditRefused('member.invite', () =>
      owner.post('/v1/organisation/members', { email: 'unaudited@example.test', role: 'member' }),
    );
    const [invitations] =
      await sql`SELECT count(*)::int AS count FROM invitations WHERE email = 'unaudited@example.test'`;
    expect(invitations?.count).toBe(0);
  });

  it('ending one session, and ending them all', async () => {
    const person = await addMember(owner, 'member');
    const sessions = (await person.client.get('/v1/me/sessions')).body.items as { id: string }[];
    await withAuditRefused('session.end', () => person.client.delete(`/v1/me/sessions/${sessions[0]?.id}`));
    expect((await person.client.get('/v1/me')).status).toBe(200);
    await withAuditRefused('session.end_all', () => person.client.delete('/v1/me/sessions'));
    // Neither ended anything: the token still works.
    expect((await person.client.get('/v1/me')).status).toBe(200);
  });
});
