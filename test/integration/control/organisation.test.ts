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
  ControlClient,
  login,
  refreshCookieOf,
} from '../../support/control-plane.js';
import { expectFullPagination } from '../../support/pagination.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let owner: ControlClient;
let anonymous: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  anonymous = new ControlClient(gw.controlUrl);
});
afterAll(async () => {
  await gw?.stop();
});

describe('GET and PATCH /v1/organisation', () => {
  it('shows its name, status and settings', async () => {
    const current = await owner.get('/v1/organisation');
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      name: 'default',
      status: 'active',
      suspensionReason: null,
      suspendedAt: null,
      settings: {},
    });
  });

  it('lets admins and owners change the settings, merged key by key (null removes one)', async () => {
    const admin = await addMember(owner, 'admin');
    const changed = await admin.client.patch('/v1/organisation', {
      settings: { defaultRegion: 'us-east-1', retentionDays: 30 },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.settings).toEqual({ defaultRegion: 'us-east-1', retentionDays: 30 });
    const merged = await owner.patch('/v1/organisation', {
      settings: { retentionDays: null, billing: true },
    });
    expect(merged.body.settings).toEqual({ defaultRegion: 'us-east-1', billing: true });
  });

  it('shows members the settings, and lets them change nothing', async () => {
    const member = await addMember(owner, 'member');
    const settings = (await owner.get('/v1/organisation')).body.settings;
    expect((await member.client.get('/v1/organisation')).body.settings).toEqual(settings);
    expectProblem(await member.client.patch('/v1/organisation', { settings: { x: 1 } }), 403, 'forbidden');
  });

  it('names a nested setting and an empty name', async () => {
    expectInvalidFields(
      await owner.patch('/v1/organisation', { settings: { nested: { a: 1 } } }),
      'settings.nested',
    );
    expectInvalidFields(await owner.patch('/v1/organisation', { name: '' }), 'name');
  });

  it('refuses a name another organisation has', async () => {
    await addOrganisation(owner, 'rename-target');
    expectProblem(
      await owner.patch('/v1/organisation', { name: 'Rename-Target' }),
      409,
      'organisation_name_taken',
    );
  });
});

describe('members and invitations', () => {
  it('lists members with roles, paginated', async () => {
    await addMember(owner, 'member');
    const all = await owner.get('/v1/organisation/members?limit=1000');
    expect(all.status).toBe(200);
    expect(all.body.items.find((m: { email: string }) => m.email === TEST_ADMIN_EMAIL)).toMatchObject({
      role: 'owner',
      name: 'Platform admin',
      joinedAt: expect.any(String),
    });
    await expectFullPagination(owner, '/v1/organisation/members', { limit: 2, key: 'userId' });
  });

  it('names a bad limit or cursor on the members list', async () => {
    for (const limit of ['0', '1001', '-1', '0.5', 'many']) {
      expectInvalidFields(await owner.get(`/v1/organisation/members?limit=${limit}`), 'limit');
    }
    // Not base64url, and base64url of something that is no user id.
    for (const cursor of ['%%%', Buffer.from('not-a-uuid').toString('base64url')]) {
      expectInvalidFields(await owner.get(`/v1/organisation/members?cursor=${cursor}`), 'cursor');
    }
  });

  let invitations = 0;
  /** An invitation to a new e-mail address as an admin, and what accepting it sends. */
  async function invitation() {
    invitations += 1;
    const email = `new.person${invitations}@example.test`;
    const invited = await owner.post('/v1/organisation/members', { email, role: 'admin' });
    expect(invited.status, invited.text).toBe(201);
    const token = invited.body.invitation.token as string;
    return { email, invited, accept: { token, password: 'my chosen password', name: 'New Person' } };
  }

  it('answers an invitation with its token, once, valid for seven days', async () => {
    const sent = Date.now();
    const { invited } = await invitation();
    const answered = Date.now();
    expect(invited.body).toEqual({
      invitation: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) },
    });
    // Seven days after some instant between the request and its answer (the gateway runs in this
    // process, on this clock), however long they took.
    const week = 7 * 86_400_000;
    const expiresAt = Date.parse(invited.body.invitation.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(sent + week);
    expect(expiresAt).toBeLessThanOrEqual(answered + week);
  });

  it('accepting creates the user with the invited role and logs them in', async () => {
    const { email, accept } = await invitation();
    const accepted = await anonymous.post('/v1/auth/invitations/accept', accept);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      token_type: 'Bearer',
      user: { email, name: 'New Person', role: 'admin', platformAdmin: false },
    });
    expect(refreshCookieOf(accepted)).not.toBeNull();
  });

  it('an invitation works once', async () => {
    const { accept } = await invitation();
    expect((await anonymous.post('/v1/auth/invitations/accept', accept)).status).toBe(200);
    expectProblem(await anonymous.post('/v1/auth/invitations/accept', accept), 400, 'invitation_invalid');
  });

  it('the new person logs in with the password they chose', async () => {
    const { email, accept } = await invitation();
    expect((await anonymous.post('/v1/auth/invitations/accept', accept)).status).toBe(200);
    await login(gw.controlUrl, email, 'my chosen password');
  });

  it('never writes the invitation token to the audit log', async () => {
    const { accept } = await invitation();
    expect((await anonymous.post('/v1/auth/invitations/accept', accept)).status).toBe(200);
    expect(JSON.stringify((await owner.get('/v1/organisation/audit-log?limit=1000')).body)).not.toContain(
      accept.token,
    );
  });

  it('lets an existing person without an organisation accept with their current password', async () => {
    const person = await addMember(owner, 'member');
    await owner.delete(`/v1/organisation/members/${person.userId}`);
    const invited = await owner.post('/v1/organisation/members', { email: person.email, role: 'member' });
    const token = invited.body.invitation.token;
    expectProblem(
      await anonymous.post('/v1/auth/invitations/accept', {
        token,
        password: 'a wrong password!',
        name: 'x',
      }),
      401,
      'invalid_credentials',
    );
    const accepted = await anonymous.post('/v1/auth/invitations/accept', {
      token,
      password: person.password,
      name: 'ignored for existing users',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({ id: person.userId, role: 'member' });
  });

  it('names each bad field of an invitation', async () => {
    expectInvalidFields(
      await owner.post('/v1/organisation/members', { email: 'x', role: 'boss' }),
      'email',
      'role',
    );
  });

  it('refuses to invite a person who already belongs to an organisation', async () => {
    expectProblem(
      await owner.post('/v1/organisation/members', { email: TEST_ADMIN_EMAIL, role: 'member' }),
      409,
      'already_member',
    );
  });

  it('refuses an invitation token it never issued', async () => {
    expectProblem(
      await anonymous.post('/v1/auth/invitations/accept', {
        token: 'nope',
        password: 'long enough pw',
        name: 'x',
      }),
      400,
      'invitation_invalid',
    );
  });

  it('names each bad field of an invitation acceptance, and a bad body uses up nothing', async () => {
    const invited = await owner.post('/v1/organisation/members', {
      email: 'validated.acceptance@example.test',
      role: 'member',
    });
    const token = invited.body.invitation.token;
    const accept = (body: unknown) => anonymous.post('/v1/auth/invitations/accept', body);
    expectInvalidFields(await accept({}), 'token', 'password', 'name');
    expectInvalidFields(
      await accept({ token: 42, password: 'short', name: '' }),
      'token',
      'password',
      'name',
    );
    expectInvalidFields(await accept({ token, password: 'long enough pw', name: 'x'.repeat(201) }), 'name');
    expectInvalidFields(await accept({ token, password: ['long enough pw'], name: 'Valid' }), 'password');
    expectInvalidFields(
      await accept({ token, password: 'long enough pw', name: 'Valid', role: 'owner' }),
      'role',
    );
    // The refusals did not consume the invitation, nor grant any extra role.
    const accepted = await accept({ token, password: 'long enough pw', name: 'Valid' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.user.role).toBe('member');
  });

  it('names a bad role when changing one', async () => {
    const member = await addMember(owner, 'member');
    for (const body of [{}, { role: 'boss' }, { role: 'OWNER' }, { role: null }, { role: ['admin'] }]) {
      expectInvalidFields(await owner.patch(`/v1/organisation/members/${member.userId}`, body), 'role');
    }
    const listed = await owner.get('/v1/organisation/members?limit=1000');
    expect(listed.body.items.find((m: { userId: string }) => m.userId === member.userId).role).toBe('member');
  });

  it('lets members read the member list, but not invite or change roles', async () => {
    const member = await addMember(owner, 'member');
    const admin = await addMember(owner, 'admin');
    expect((await member.client.get('/v1/organisation/members')).status).toBe(200);
    expectProblem(
      await member.client.post('/v1/organisation/members', { email: 'a@example.test', role: 'member' }),
      403,
      'forbidden',
    );
    expectProblem(
      await member.client.patch(`/v1/organisation/members/${admin.userId}`, { role: 'member' }),
      403,
      'forbidden',
    );
  });

  it('does not let admins invite an owner or remove one', async () => {
    const admin = await addMember(owner, 'admin');
    expectProblem(
      await admin.client.post('/v1/organisation/members', { email: 'b@example.test', role: 'owner' }),
      403,
      'forbidden',
    );
    const me = await owner.get('/v1/me');
    expectProblem(await admin.client.delete(`/v1/organisation/members/${me.body.id}`), 403, 'forbidden');
  });

  it('lets admins change a member\u2019s role, which applies to their existing token at once', async () => {
    const member = await addMember(owner, 'member');
    const admin = await addMember(owner, 'admin');
    const promoted = await admin.client.patch(`/v1/organisation/members/${member.userId}`, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ userId: member.userId, role: 'admin', email: member.email });
    expect((await member.client.get('/v1/me')).body.role).toBe('admin');
  });

  it('keeps the last owner', async () => {
    const me = await owner.get('/v1/me');
    expectProblem(
      await owner.patch(`/v1/organisation/members/${me.body.id}`, { role: 'admin' }),
      409,
      'last_owner',
    );
    expectProblem(await owner.delete(`/v1/organisation/members/${me.body.id}`), 409, 'last_owner');

    const second = await addMember(owner, 'owner');
    expect((await owner.patch(`/v1/organisation/members/${second.userId}`, { role: 'admin' })).status).toBe(
      200,
    );
    expectProblem(
      await owner.patch(`/v1/organisation/members/${me.body.id}`, { role: 'member' }),
      409,
      'last_owner',
    );
  });

  it('removes a member and ends their sessions at once', async () => {
    const member = await addMember(owner, 'member');
    expect((await owner.delete(`/v1/organisation/members/${member.userId}`)).status).toBe(204);
    expectProblem(await member.client.get('/v1/me'), 401, 'session_ended');
    expectProblem(await member.client.withCookie('/v1/auth/refresh'), 401, 'session_ended');
  });

  it('answers member_not_found for a member removed already, or an id that is none', async () => {
    const member = await addMember(owner, 'member');
    expect((await owner.delete(`/v1/organisation/members/${member.userId}`)).status).toBe(204);
    expectProblem(await owner.delete(`/v1/organisation/members/${member.userId}`), 404, 'member_not_found');
    expectProblem(await owner.delete('/v1/organisation/members/not-a-uuid'), 404, 'member_not_found');
  });

  it('does not reach members of another organisation', async () => {
    const other = await addOrganisation(owner, 'elsewhere');
    const stranger = await addMember(other.owner, 'member');
    expectProblem(
      await owner.patch(`/v1/organisation/members/${stranger.userId}`, { role: 'admin' }),
      404,
      'member_not_found',
    );
    expectProblem(await owner.delete(`/v1/organisation/members/${stranger.userId}`), 404, 'member_not_found');
    expectProblem(
      await owner.post(`/v1/organisation/members/${stranger.userId}/password-reset`),
      404,
      'member_not_found',
    );
    const theirs = await other.owner.get('/v1/organisation/members');
    expect(theirs.body.items.map((m: { email: string }) => m.email)).not.toContain(TEST_ADMIN_EMAIL);
  });
});

describe('password reset', () => {
  it('issues a one-time token that sets a new password and ends every session', async () => {
    const member = await addMember(owner, 'member');
    const otherSession = await login(gw.controlUrl, member.email, member.password);
    const issued = await owner.post(`/v1/organisation/members/${member.userId}/password-reset`);
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
    });

    expectInvalidFields(
      await anonymous.post('/v1/auth/password-reset', { token: issued.body.token, newPassword: 'short' }),
      'newPassword',
    );
    const reset = await anonymous.post('/v1/auth/password-reset', {
      token: issued.body.token,
      newPassword: 'reset password 456',
    });
    expect(reset.status).toBe(204);
    expectProblem(await member.client.get('/v1/me'), 401, 'session_ended');
    expectProblem(await otherSession.get('/v1/me'), 401, 'session_ended');
    await login(gw.controlUrl, member.email, 'reset password 456');
    expectProblem(
      await anonymous.post('/v1/auth/password-reset', {
        token: issued.body.token,
        newPassword: 'another one 789',
      }),
      400,
      'reset_token_invalid',
    );
  });

  it('never shows the reset token again, before or after it is used', async () => {
    const member = await addMember(owner, 'member');
    const issued = await owner.post(`/v1/organisation/members/${member.userId}/password-reset`);
    expect(issued.status).toBe(201);
    const { token } = issued.body as { token: string };
    const later = async () => [
      await owner.get('/v1/organisation/members?limit=1000'),
      await owner.get('/v1/organisation/audit-log?limit=1000'),
      await owner.get('/v1/organisation'),
      await owner.get('/v1/organisations?limit=1000'),
      await owner.get('/v1/me'),
      await member.client.get('/v1/me'),
    ];
    for (const response of await later()) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).not.toContain(token);
    }
    // Issuing again replaces it with another token, and does not echo the old one.
    const reissued = await owner.post(`/v1/organisation/members/${member.userId}/password-reset`);
    expect(reissued.body.token).not.toBe(token);
    expect(reissued.text).not.toContain(token);
    expect(
      (
        await anonymous.post('/v1/auth/password-reset', {
          token: reissued.body.token,
          newPassword: 'reset password 789',
        })
      ).status,
    ).toBe(204);
    const relogged = await login(gw.controlUrl, member.email, 'reset password 789');
    for (const response of [...(await later()).slice(0, 5), await relogged.get('/v1/me')]) {
      expect(response.text).not.toContain(token);
      expect(response.text).not.toContain(reissued.body.token);
    }
  });

  it('is for owners and admins, and only owners reset owners', async () => {
    const member = await addMember(owner, 'member');
    const admin = await addMember(owner, 'admin');
    const me = await owner.get('/v1/me');
    expectProblem(
      await member.client.post(`/v1/organisation/members/${admin.userId}/password-reset`),
      403,
      'forbidden',
    );
    expectProblem(
      await admin.client.post(`/v1/organisation/members/${me.body.id}/password-reset`),
      403,
      'forbidden',
    );
    expect((await admin.client.post(`/v1/organisation/members/${member.userId}/password-reset`)).status).toBe(
      201,
    );
  });
});

describe('GET /v1/organisation/usage', () => {
  it('sums requests and bytes per bucket and per credential over the window', async () => {
    const organisationId = (await owner.get('/v1/organisation')).body.id;
    const usage = gw.gateway.context.store.usage;
    const key = gw.credential.accessKeyId;
    usage.record({ organisationId, bucket: 'photos', accessKeyId: key, bytesIn: 100, bytesOut: 0 });
    usage.record({ organisationId, bucket: 'photos', accessKeyId: key, bytesIn: 0, bytesOut: 2048 });
    usage.record({ organisationId, bucket: 'public-site', accessKeyId: '', bytesIn: 0, bytesOut: 10 });
    usage.record(
      { organisationId, bucket: 'old', accessKeyId: key, bytesIn: 5, bytesOut: 5 },
      new Date('2020-01-01'),
    );

    const report = await owner.get('/v1/organisation/usage');
    expect(report.status, report.text).toBe(200);
    expect(report.body.totals).toEqual({ requests: 3, bytesIn: 100, bytesOut: 2058 });
    expect(report.body.byBucket).toEqual([
      { bucket: 'photos', requests: 2, bytesIn: 100, bytesOut: 2048 },
      { bucket: 'public-site', requests: 1, bytesIn: 0, bytesOut: 10 },
    ]);
    expect(report.body.byCredential).toEqual([
      { accessKeyId: '', requests: 1, bytesIn: 0, bytesOut: 10 },
      { accessKeyId: key, requests: 2, bytesIn: 100, bytesOut: 2048 },
    ]);

    const old = await owner.get('/v1/organisation/usage?from=2019-12-31T00:00:00Z&to=2020-01-02T00:00:00Z');
    expect(old.body).toMatchObject({
      from: '2019-12-31T00:00:00.000Z',
      to: '2020-01-02T00:00:00.000Z',
      totals: { requests: 1, bytesIn: 5, bytesOut: 5 },
    });
  });

  it('names a window that ends before it starts, is not a time, or is too long', async () => {
    expectInvalidFields(
      await owner.get('/v1/organisation/usage?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z'),
      'from',
    );
    expectInvalidFields(await owner.get('/v1/organisation/usage?from=yesterday'), 'from');
    expectInvalidFields(
      await owner.get('/v1/organisation/usage?from=2020-01-01T00:00:00Z&to=2024-01-01T00:00:00Z'),
      'from',
    );
  });

  it('is for owners and admins', async () => {
    const member = await addMember(owner, 'member');
    expectProblem(await member.client.get('/v1/organisation/usage'), 403, 'forbidden');
  });
});

describe('GET /v1/organisation/audit-log', () => {
  it('records who did what, to what, when and from where, newest first, paginated', async () => {
    const member = await addMember(owner, 'member');
    await owner.patch(`/v1/organisation/members/${member.userId}`, { role: 'admin' });
    await owner.delete(`/v1/organisation/members/${member.userId}`);

    const log = await owner.get('/v1/organisation/audit-log?limit=3');
    expect(log.status).toBe(200);
    const me = await owner.get('/v1/me');
    expect(log.body.items[0]).toEqual({
      id: expect.any(String),
      actor: { userId: me.body.id, email: TEST_ADMIN_EMAIL },
      action: 'member.remove',
      target: member.userId,
      time: expect.any(String),
      sourceAddress: '127.0.0.1',
      details: expect.objectContaining({ email: member.email, role: 'admin', sessionsEnded: 1 }),
    });
    expect(log.body.items[1]).toMatchObject({
      action: 'member.change_role',
      details: { from: 'member', to: 'admin' },
    });
    expect(log.body.items[2]).toMatchObject({ action: 'invitation.accept', actor: { email: member.email } });

    const next = await owner.get(`/v1/organisation/audit-log?limit=3&cursor=${log.body.nextCursor}`);
    expect(next.body.items[0]).toMatchObject({ action: 'member.invite', target: member.email });
    const times = [...log.body.items, ...next.body.items].map((entry: { time: string }) =>
      Date.parse(entry.time),
    );
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('pages through the whole log, newest first, nothing twice and nothing missing', async () => {
    await addMember(owner, 'member');
    const ids = await expectFullPagination(owner, '/v1/organisation/audit-log', { limit: 3, key: 'id' });
    const entries = (await owner.get('/v1/organisation/audit-log?limit=1000')).body.items as {
      id: string;
      time: string;
    }[];
    expect(entries.map((entry) => entry.id)).toEqual(ids);
    const times = entries.map((entry) => Date.parse(entry.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('names a bad cursor', async () => {
    expectInvalidFields(await owner.get('/v1/organisation/audit-log?cursor=abc'), 'cursor');
  });

  it('is for owners and admins of the organisation only', async () => {
    const member = await addMember(owner, 'member');
    expectProblem(await member.client.get('/v1/organisation/audit-log'), 403, 'forbidden');
    const other = await addOrganisation(owner, 'auditless');
    const theirs = await other.owner.get('/v1/organisation/audit-log?limit=1000');
    expect(theirs.body.items.every((entry: { action: string }) => entry.action !== 'member.remove')).toBe(
      true,
    );
  });
});
