import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { ControlClient, login, refreshCookieOf, setCookieHeader } from '../../support/control-plane.js';
import { metricDeltas, scrapeMetrics } from '../../support/metrics.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let anonymous: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  anonymous = new ControlClient(gw.controlUrl);
});
afterAll(async () => {
  await gw?.stop();
});

describe('POST /v1/auth/login', () => {
  it('returns a bearer token with the user and sets the rotating refresh cookie', async () => {
    const response = await anonymous.post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'token_type', 'user']);
    expect(response.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      user: { email: TEST_ADMIN_EMAIL, name: 'Platform admin', role: 'owner', platformAdmin: true },
    });
    expect(response.body.access_token.split('.')).toHaveLength(3);
    const cookie = setCookieHeader(response);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/v1/auth');
    // GATEWAY_COOKIE_SECURE is 'auto' and this request came over plain HTTP.
    expect(cookie).not.toContain('Secure');
    expect(refreshCookieOf(response)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('marks the cookie Secure when the client came over HTTPS through a TLS-terminating proxy', async () => {
    const response = await anonymous.post(
      '/v1/auth/login',
      { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD },
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    expect(response.status).toBe(200);
    expect(setCookieHeader(response)).toContain('; Secure');
  });

  it('treats the e-mail address case-insensitively', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL.toUpperCase(), TEST_ADMIN_PASSWORD);
    expect((await client.get('/v1/me')).body.email).toBe(TEST_ADMIN_EMAIL);
  });

  it('refuses a wrong password and an unknown e-mail alike', async () => {
    const wrong = await anonymous.post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: 'not it at all',
    });
    const unknown = await anonymous.post('/v1/auth/login', { email: 'nobody@example.test', password: 'x' });
    expect(expectProblem(wrong, 401, 'invalid_credentials').title).toBe(
      expectProblem(unknown, 401, 'invalid_credentials').title,
    );
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it('names each bad field', async () => {
    expectInvalidFields(
      await anonymous.post('/v1/auth/login', { email: 'not-an-address' }),
      'email',
      'password',
    );
    expectInvalidFields(await anonymous.post('/v1/auth/login', {}), 'email', 'password');
    expectInvalidFields(
      await anonymous.post('/v1/auth/login', { email: TEST_ADMIN_EMAIL, password: 'x', remember: true }),
      'remember',
    );
    expectInvalidFields(
      await anonymous.post('/v1/auth/login', { email: TEST_ADMIN_EMAIL, password: 42 }),
      'password',
    );
  });
});

describe('POST /v1/auth/refresh', () => {
  it('rotates: a new access token and a new refresh cookie, both working', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const refreshed = await client.withCookie('/v1/auth/refresh');
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      user: { email: TEST_ADMIN_EMAIL },
    });
    const next = refreshCookieOf(refreshed);
    expect(next).not.toBeNull();
    expect(next).not.toBe(client.refreshCookie);
    expect(setCookieHeader(refreshed)).toContain('HttpOnly');
    expect((await client.get('/v1/me', { token: refreshed.body.access_token })).status).toBe(200);
    expect((await client.withCookie('/v1/auth/refresh', next)).status).toBe(200);
  });

  it('detects reuse: a refresh token presented twice ends the whole session', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const stolen = client.refreshCookie;
    const first = await client.withCookie('/v1/auth/refresh', stolen);
    expect(first.status).toBe(200);
    const rotated = refreshCookieOf(first);

    const replay = await client.withCookie('/v1/auth/refresh', stolen);
    expectProblem(replay, 401, 'refresh_token_reused');
    expect(setCookieHeader(replay)).toMatch(/gw_refresh=;/);

    // The legitimate holder's newer token and every access token of the session stop working too.
    expectProblem(await client.withCookie('/v1/auth/refresh', rotated), 401, 'session_ended');
    expectProblem(await client.get('/v1/me', { token: first.body.access_token }), 401, 'session_ended');
    expectProblem(await client.get('/v1/me'), 401, 'session_ended');
  });

  it('needs the cookie, and a real one', async () => {
    expectProblem(await anonymous.withCookie('/v1/auth/refresh', null), 401, 'refresh_token_missing');
    expectProblem(
      await anonymous.withCookie('/v1/auth/refresh', 'forged-token'),
      401,
      'refresh_token_invalid',
    );
  });
});

describe('POST /v1/auth/logout', () => {
  it('ends the session and clears the cookie', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const response = await client.withCookie('/v1/auth/logout');
    expect(response.status).toBe(204);
    const cleared = setCookieHeader(response);
    expect(cleared).toMatch(/^gw_refresh=;/);
    expect(cleared).toContain('Expires=Thu, 01 Jan 1970');
    expectProblem(await client.withCookie('/v1/auth/refresh'), 401, 'session_ended');
    expectProblem(await client.get('/v1/me'), 401, 'session_ended');
  });

  it('records logins, refreshes, reuse and logouts in the audit log', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const stale = client.refreshCookie;
    await client.withCookie('/v1/auth/refresh');
    await client.withCookie('/v1/auth/refresh', stale);
    const again = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    await again.withCookie('/v1/auth/logout');

    const reader = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const entries = (await reader.get('/v1/organisation/audit-log?limit=6')).body.items;
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual([
      'auth.login',
      'auth.logout',
      'auth.login',
      'session.refresh_token_reused',
      'session.refresh',
      'auth.login',
    ]);
    expect(JSON.stringify(entries)).not.toContain(stale);
  });

  it('succeeds without a cookie (nothing to end)', async () => {
    expect((await anonymous.withCookie('/v1/auth/logout', null)).status).toBe(204);
  });
});

describe('bearer authentication', () => {
  it('answers a request without a token unauthenticated', async () => {
    expectProblem(await anonymous.get('/v1/me'), 401, 'unauthenticated');
  });

  it('answers storage credentials (SigV4, Basic, presign parameters) storage_credentials_not_accepted', async () => {
    const sigv4 =
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, ' +
      'SignedHeaders=host;x-amz-date, Signature=' +
      '0'.repeat(64);
    const storage = expectProblem(
      await anonymous.get('/v1/me', { headers: { authorization: sigv4 } }),
      401,
      'storage_credentials_not_accepted',
    );
    expect(storage.detail).toMatch(/storage credentials/i);
    expectProblem(
      await anonymous.get('/v1/me', { headers: { authorization: 'Basic YWRtaW46cGFzc3dvcmQ=' } }),
      401,
      'storage_credentials_not_accepted',
    );
    expectProblem(
      await anonymous.get('/v1/buckets?X-Amz-Credential=GWK1AAAAAAAAAAAAAAAA%2F20260101&X-Amz-Signature=00'),
      401,
      'storage_credentials_not_accepted',
    );
  });

  it('answers a token that is no JWT token_invalid', async () => {
    expectProblem(await anonymous.get('/v1/me', { token: 'not.a.jwt' }), 401, 'token_invalid');
  });

  describe('a token with the claims of a real session', () => {
    /** Signs the claims of a fresh login's access token with `secret`, expiring at `expiresAt`. */
    async function signedLike(secret: string, expiresAt: number): Promise<string> {
      const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      const me = await client.get('/v1/me');
      const claims = JSON.parse(
        Buffer.from((client.token as string).split('.')[1] as string, 'base64url').toString(),
      );
      return new SignJWT({ sid: claims.sid })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(me.body.id)
        .setIssuer('s3-gateway')
        .setAudience('control-plane')
        .setIssuedAt(expiresAt - 900)
        .setExpirationTime(expiresAt)
        .sign(new TextEncoder().encode(secret));
    }
    const now = () => Math.floor(Date.now() / 1000);

    it('is token_expired once it expired', async () => {
      const token = await signedLike(gw.gateway.context.jwtSecret, now() - 60);
      expectProblem(await anonymous.get('/v1/me', { token }), 401, 'token_expired');
    });

    it('is accepted under the gateway\u2019s key', async () => {
      const token = await signedLike(gw.gateway.context.jwtSecret, now() + 60);
      expect((await anonymous.get('/v1/me', { token })).status).toBe(200);
    });

    it('is token_invalid under another key', async () => {
      const token = await signedLike('x'.repeat(48), now() + 60);
      expectProblem(await anonymous.get('/v1/me', { token }), 401, 'token_invalid');
    });
  });
});

describe('what the gateway records about logins', () => {
  it('counts logins and refreshes by outcome in the metrics', async () => {
    const series = [
      'gateway_logins_total{outcome="succeeded"}',
      'gateway_logins_total{outcome="failed"}',
      'gateway_token_refreshes_total{outcome="refreshed"}',
      'gateway_token_refreshes_total{outcome="reuse_detected"}',
      'gateway_control_requests_total{operation="POST /v1/auth/login",status="200"}',
    ];
    const before = await scrapeMetrics(gw.metricsUrl);
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    expectProblem(
      await anonymous.post('/v1/auth/login', { email: TEST_ADMIN_EMAIL, password: 'not the password' }),
      401,
      'invalid_credentials',
    );
    const cookie = client.refreshCookie;
    expect((await client.withCookie('/v1/auth/refresh', cookie)).status).toBe(200);
    expectProblem(await client.withCookie('/v1/auth/refresh', cookie), 401, 'refresh_token_reused');
    const after = await scrapeMetrics(gw.metricsUrl);
    expect(metricDeltas(before, after, series)).toEqual(Object.fromEntries(series.map((name) => [name, 1])));
  });

  it('never writes a password, token or cookie to the log', async () => {
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    await client.get('/v1/me');
    const log = gw.logs.join('\n');
    expect(log).toContain('control request');
    expect(log).not.toContain(TEST_ADMIN_PASSWORD);
    expect(log).not.toContain(client.token as string);
    expect(log).not.toContain(client.refreshCookie as string);
  });
});
