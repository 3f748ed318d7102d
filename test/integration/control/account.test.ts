import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { addMember, ControlClient, login } from '../../support/control-plane.js';
import { expectFullPagination } from '../../support/pagination.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let admin: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gw?.stop();
});

describe('GET and PATCH /v1/me', () => {
  it('answers who the token belongs to, with role and platform-admin flag', async () => {
    const me = await admin.get('/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      email: TEST_ADMIN_EMAIL,
      name: 'Platform admin',
      role: 'owner',
      platformAdmin: true,
      organisationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const member = await addMember(admin, 'member');
    expect((await member.client.get('/v1/me')).body).toMatchObject({
      id: member.userId,
      email: member.email,
      role: 'member',
      platformAdmin: false,
    });
  });

  it('changes the display name, validating it', async () => {
    const { client } = await addMember(admin, 'member');
    const renamed = await client.patch('/v1/me', { name: 'Ada Lovelace' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Ada Lovelace');
    expect((await client.get('/v1/me')).body.name).toBe('Ada Lovelace');
    expectInvalidFields(await client.patch('/v1/me', { name: '' }), 'name');
    expectInvalidFields(await client.patch('/v1/me', { name: 'x', email: 'new@example.test' }), 'email');
    expectProblem(await client.patch('/v1/me', { name: 'x' }, { token: null }), 401, 'unauthenticated');
  });
});

describe('GET /v1/me/organisation', () => {
  it('names the organisation with its status and the caller role', async () => {
    const response = await admin.get('/v1/me/organisation');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.any(String),
      name: 'default',
      status: 'active',
      suspensionReason: null,
      role: 'owner',
    });
  });

  it('is a problem for a person without an organisation', async () => {
    const removed = await addMember(admin, 'member');
    expect((await admin.delete(`/v1/organisation/members/${removed.userId}`)).status).toBe(204);
    const again = await login(gw.controlUrl, removed.email, removed.password);
    expect((await again.get('/v1/me')).body).toMatchObject({ role: null, organisationId: null });
    expectProblem(await again.get('/v1/me/organisation'), 403, 'no_organisation');
  });
});

describe('PUT /v1/me/password', () => {
  it('needs the current password, then ends every other session', async () => {
    const person = await addMember(admin, 'member');
    const other = await login(gw.controlUrl, person.email, person.password);

    const wrong = await person.client.put('/v1/me/password', {
      currentPassword: 'not my password',
      newPassword: 'a brand new password',
    });
    expect(expectProblem(wrong, 400, 'current_password_incorrect').errors).toEqual([
      { field: 'currentPassword', message: expect.any(String) },
    ]);
    expectInvalidFields(
      await person.client.put('/v1/me/password', { currentPassword: person.password, newPassword: 'short' }),
      'newPassword',
    );

    const changed = await person.client.put('/v1/me/password', {
      currentPassword: person.password,
      newPassword: 'a brand new password',
    });
    expect(changed.status).toBe(204);
    expect((await person.client.get('/v1/me')).status).toBe(200);
    expectProblem(await other.get('/v1/me'), 401, 'session_ended');
    expectProblem(
      await new ControlClient(gw.controlUrl).post('/v1/auth/login', {
        email: person.email,
        password: person.password,
      }),
      401,
      'invalid_credentials',
    );
    await login(gw.controlUrl, person.email, 'a brand new password');
  });
});

describe('sessions', () => {
  let second: ControlClient;
  let third: ControlClient;

  beforeAll(async () => {
    const person = await addMember(admin, 'member');
    second = await login(gw.controlUrl, person.email, person.password);
    third = await login(gw.controlUrl, person.email, person.password);
  });

  it('lists the active sessions newest first, each with where and when it came from', async () => {
    const all = await third.get('/v1/me/sessions');
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(3);
    expect(all.body.nextCursor).toBeNull();
    const created = all.body.items.map((session: { createdAt: string }) => session.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(all.body.items[0]).toMatchObject({
      sourceAddress: '127.0.0.1',
      userAgent: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      expiresAt: expect.any(String),
    });
  });

  it('marks the session of the token asking as current', async () => {
    const fromThird = await third.get('/v1/me/sessions');
    expect(fromThird.body.items.map((session: { current: boolean }) => session.current)).toEqual([
      true,
      false,
      false,
    ]);
    const fromSecond = await second.get('/v1/me/sessions');
    expect(fromSecond.body.items.map((session: { current: boolean }) => session.current)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('pages through them: nothing twice, nothing missing', async () => {
    await expectFullPagination(second, '/v1/me/sessions', { limit: 2, key: 'id' });
  });

  it('names a bad cursor or limit on the sessions list', async () => {
    const person = await addMember(admin, 'member');
    expectInvalidFields(await person.client.get('/v1/me/sessions?cursor=bm90LWEtY3Vyc29y'), 'cursor');
    expectInvalidFields(await person.client.get('/v1/me/sessions?limit=0'), 'limit');
    expectInvalidFields(await person.client.get('/v1/me/sessions?limit=abc'), 'limit');
  });

  it('ends one session, which stops its access token at once', async () => {
    const person = await addMember(admin, 'member');
    const other = await login(gw.controlUrl, person.email, person.password);
    const sessions = await person.client.get('/v1/me/sessions');
    const otherSession = sessions.body.items.find((session: { current: boolean }) => !session.current);

    expect((await person.client.delete(`/v1/me/sessions/${otherSession.id}`)).status).toBe(204);
    expectProblem(await other.get('/v1/me'), 401, 'session_ended');
    expectProblem(await other.withCookie('/v1/auth/refresh'), 401, 'session_ended');
    expect((await person.client.get('/v1/me')).status).toBe(200);

    expectProblem(await person.client.delete(`/v1/me/sessions/${otherSession.id}`), 404, 'session_not_found');
    expectProblem(await person.client.delete('/v1/me/sessions/not-a-session'), 404, 'session_not_found');
    // Another person's session is not the caller's to end.
    const adminSessions = await admin.get('/v1/me/sessions');
    expectProblem(
      await person.client.delete(`/v1/me/sessions/${adminSessions.body.items[0].id}`),
      404,
      'session_not_found',
    );
  });

  it('records logins, renames, password changes and ended sessions in the audit log', async () => {
    const person = await addMember(admin, 'member');
    const second = await login(gw.controlUrl, person.email, person.password);
    await person.client.patch('/v1/me', { name: 'Audited Person' });
    await person.client.put('/v1/me/password', {
      currentPassword: person.password,
      newPassword: 'audited password 1',
    });
    const third = await login(gw.controlUrl, person.email, 'audited password 1');
    const thirdSession = (await third.get('/v1/me/sessions')).body.items.find(
      (session: { current: boolean }) => session.current,
    );
    await person.client.delete(`/v1/me/sessions/${thirdSession.id}`);
    await person.client.delete('/v1/me/sessions');
    expectProblem(await second.get('/v1/me'), 401, 'session_ended');

    const log = await admin.get('/v1/organisation/audit-log?limit=1000');
    const mine = log.body.items
      .filter((entry: { actor: { userId: string } }) => entry.actor.userId === person.userId)
      .map((entry: { action: string }) => entry.action)
      .reverse();
    expect(mine).toEqual([
      'invitation.accept',
      'auth.login',
      'user.rename',
      'user.password_change',
      'auth.login',
      'session.end',
      'session.end_all',
    ]);
    expect(log.text).not.toContain('audited password 1');
  });

  it('logs out everywhere', async () => {
    const person = await addMember(admin, 'member');
    const other = await login(gw.controlUrl, person.email, person.password);
    expect((await person.client.delete('/v1/me/sessions')).status).toBe(204);
    expectProblem(await person.client.get('/v1/me'), 401, 'session_ended');
    expectProblem(await other.get('/v1/me'), 401, 'session_ended');
  });
});
