import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { ControlClient, login } from '../../support/control-plane.js';
import { metricDeltas, scrapeMetrics } from '../../support/metrics.js';
import { expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let anonymous: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway();
  anonymous = new ControlClient(gw.controlUrl);
});
afterAll(async () => {
  await gw?.stop();
});

describe('GET /v1/health', () => {
  it('is 200 when the database and the object store answer', async () => {
    const response = await anonymous.get('/v1/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ready',
      checks: { database: { status: 'ok' }, backend: { status: 'ok' } },
    });
  });

  it('is 503 naming the failing check, without internal details', async () => {
    const { backend } = gw.gateway.context;
    const failing = vi
      .spyOn(backend, 'checkHealth')
      .mockRejectedValue(new Error('connect ECONNREFUSED 10.1.2.3:7480 secret-host'));
    try {
      const response = await anonymous.get('/v1/health');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        status: 'unavailable',
        checks: { database: { status: 'ok' }, backend: { status: 'failing', error: expect.any(String) } },
      });
      expect(response.text).not.toContain('10.1.2.3');
    } finally {
      failing.mockRestore();
    }
    expect((await anonymous.get('/v1/health')).status).toBe(200);
  });
});

describe('GET /v1/version and /v1/openapi.json', () => {
  it('names the product version, build commit and API version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect((await anonymous.get('/v1/version')).body).toEqual({
      product: 's3-gateway',
      version: pkg.version,
      commit: expect.any(String),
      apiVersion: 'v1',
    });
  });

  it('reports the commit of the checkout it runs from when GATEWAY_BUILD_COMMIT is unset', async () => {
    const { commit } = (await anonymous.get('/v1/version')).body as { commit: string };
    const given = process.env.GATEWAY_BUILD_COMMIT;
    if (given !== undefined && given.trim() !== '') {
      expect(commit).toBe(given.trim());
      return;
    }
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const git = (...args: string[]) => promisify(execFile)('git', args, { cwd: root });
    const head = await git('rev-parse', 'HEAD').catch(() => null);
    if (head === null) {
      expect(commit).toBe('unknown');
      return;
    }
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    // Others may commit to this checkout while the suite runs: the commit read at start is HEAD
    // or one of its ancestors.
    await expect(git('merge-base', '--is-ancestor', commit, 'HEAD')).resolves.toBeDefined();
  });

  it('serves the generated OpenAPI document', async () => {
    const response = await anonymous.get('/v1/openapi.json');
    expect(response.status).toBe(200);
    const committed = JSON.parse(
      readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
    );
    expect(response.body).toEqual(committed);
    expect(response.body.openapi).toMatch(/^3\./);
  });

  it('serves interactive docs at /docs, outside /v1', async () => {
    const page = await fetch(`${gw.controlUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
    const init = await fetch(`${gw.controlUrl}/docs/swagger-ui-init.js`);
    expect(await init.text()).toContain('/v1/auth/login');
  });
});

describe('who needs a bearer token (control-plane.md)', () => {
  /** The endpoints control-plane.md names as needing no token; every other one needs one. */
  const OPEN = [
    'POST /v1/auth/login',
    'POST /v1/auth/refresh',
    'POST /v1/auth/logout',
    'POST /v1/auth/invitations/accept',
    'POST /v1/auth/password-reset',
    'GET /v1/health',
    'GET /v1/version',
    'GET /v1/openapi.json',
  ];
  const SIGV4 =
    'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, ' +
    `SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`;

  async function servedOperations(): Promise<{ method: string; path: string; id: string }[]> {
    const document = (await anonymous.get('/v1/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    return Object.entries(document.paths).flatMap(([template, item]) =>
      Object.keys(item).map((method) => ({
        method: method.toUpperCase(),
        // Any value will do for a path parameter: authentication comes before the lookup.
        path: template.replace(/\{[^}]+\}/g, 'some-id'),
        id: `${method.toUpperCase()} ${template}`,
      })),
    );
  }

  it('answers 401 unauthenticated without a token, on every endpoint but the open ones', async () => {
    const operations = await servedOperations();
    expect(operations).toHaveLength(46);
    for (const { method, path, id } of operations) {
      const body = method === 'GET' ? undefined : {};
      const response = await anonymous.request(method, path, { body });
      if (OPEN.includes(id)) {
        expect(response.status === 401 && response.body.code === 'unauthenticated', id).toBe(false);
      } else {
        expect({ id, status: response.status, code: response.body.code }).toEqual({
          id,
          status: 401,
          code: 'unauthenticated',
        });
      }
    }
  });

  it('answers 401 token_expired to a correctly signed but expired token, on every bearer endpoint', async () => {
    // A real user and session, so that only the expiry can be what is refused.
    const client = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const claims = JSON.parse(
      Buffer.from((client.token as string).split('.')[1] as string, 'base64url').toString(),
    ) as { sub: string; sid: string };
    const now = Math.floor(Date.now() / 1000);
    const signedToken = (expiresAt: number) =>
      new SignJWT({ sid: claims.sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer('s3-gateway')
        .setAudience('control-plane')
        .setIssuedAt(expiresAt - 900)
        .setExpirationTime(expiresAt)
        .sign(new TextEncoder().encode(gw.gateway.context.jwtSecret));
    const expired = await signedToken(now - 60);
    // The same token, still valid, is accepted: the signature and claims are right.
    expect((await anonymous.get('/v1/me', { token: await signedToken(now + 60) })).status).toBe(200);

    const operations = (await servedOperations()).filter(({ id }) => !OPEN.includes(id));
    expect(operations).toHaveLength(46 - OPEN.length);
    for (const { method, path, id } of operations) {
      const body = method === 'GET' ? undefined : {};
      const response = await anonymous.request(method, path, { body, token: expired });
      expect({ id, status: response.status, code: response.body.code }).toEqual({
        id,
        status: 401,
        code: 'token_expired',
      });
      expect(response.headers.get('content-type'), id).toMatch(/^application\/problem\+json/);
    }
    // Refusing the expired token ended nothing: the session still works with a fresh token.
    expect((await client.get('/v1/me')).status).toBe(200);
  });

  it('refuses a storage credential with 401 storage_credentials_not_accepted wherever it is sent', async () => {
    const presigned =
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=GWK1AAAAAAAAAAAAAAAA%2F20260101%2Fus-east-1%2Fs3%2Faws4_request' +
      `&X-Amz-Signature=${'0'.repeat(64)}`;
    interface Attempt {
      id: string;
      method: string;
      path: string;
      headers: Record<string, string>;
    }
    const requests = (await servedOperations()).flatMap(({ method, path, id }): Attempt[] => [
      { id, method, path, headers: { authorization: SIGV4 } },
      { id: `${id} (presigned)`, method, path: `${path}?${presigned}`, headers: {} },
    ]);
    // An S3 client pointed at the control plane by mistake: ListBuckets, PutObject, a presigned GET.
    requests.push(
      { id: 'ListBuckets', method: 'GET', path: '/', headers: { authorization: SIGV4 } },
      { id: 'PutObject', method: 'PUT', path: '/bucket/key', headers: { authorization: SIGV4 } },
      { id: 'presigned GetObject', method: 'GET', path: `/bucket/key?${presigned}`, headers: {} },
    );
    for (const { id, method, path, headers } of requests) {
      const body = method === 'GET' ? undefined : {};
      const response = await anonymous.request(method, path, { body, headers });
      expect({ id, status: response.status, code: response.body.code }).toEqual({
        id,
        status: 401,
        code: 'storage_credentials_not_accepted',
      });
    }
  });
});

describe('the HTTP envelope', () => {
  it('answers unknown /v1 paths and methods with a 404 problem', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['POST', '/v1/me'],
      ['GET', '/v1'],
      ['POST', '/'],
    ] as const) {
      const body = expectProblem(await anonymous.request(method, path), 404, 'not_found');
      expect(body.detail).toContain(path);
    }
  });

  it('GET / sends a browser to the interactive docs and tells curl where the docs and the API are', async () => {
    const browser = await fetch(`${gw.controlUrl}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      redirect: 'manual',
    });
    expect(browser.status).toBe(302);
    const docs = await fetch(new URL(browser.headers.get('location') as string, `${gw.controlUrl}/`));
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');

    // curl sends Accept: */*; scripts often send none.
    for (const headers of [{ accept: '*/*' }, {}]) {
      const terminal = await fetch(`${gw.controlUrl}/`, { headers, redirect: 'manual' });
      expect(terminal.status).toBe(200);
      expect(terminal.headers.get('content-type')).toMatch(/^application\/json/);
      const index = (await terminal.json()) as Record<string, string>;
      expect(index).toMatchObject({ docs: '/docs/', api: '/v1', openapi: '/v1/openapi.json' });
      expect(index.message).toContain('/docs/');
      expect(index.message).toContain('POST /v1/auth/login');
    }
  });

  it('gives every response an x-request-id, echoing a sane one and naming it in problems', async () => {
    const fresh = await anonymous.get('/v1/version');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await anonymous.get('/v1/me', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    expect(echoed.body.requestId).toBe('trace-123');
    const replaced = await anonymous.get('/v1/version', { headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  const postLogin = (body: string, contentType: string) =>
    fetch(`${gw.controlUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });

  it.each([
    {
      what: 'malformed JSON',
      body: '{"email": ',
      type: 'application/json',
      status: 400,
      code: 'malformed_json',
    },
    {
      what: 'a form',
      body: 'email=a&password=b',
      type: 'application/x-www-form-urlencoded',
      status: 415,
      code: 'unsupported_media_type',
    },
  ])('turns $what into a $status $code problem', async ({ body, type, status, code }) => {
    const answer = await postLogin(body, type);
    expect(answer.status).toBe(status);
    expect(((await answer.json()) as { code: string }).code).toBe(code);
  });

  it('turns an oversized body into a 413 problem', async () => {
    const huge = await postLogin(
      JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(2_000_000) }),
      'application/json',
    );
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('counts requests per route pattern, never per concrete path', async () => {
    const version = 'gateway_control_requests_total{operation="GET /v1/version",status="200"}';
    const unmatched = 'gateway_control_requests_total{operation="unmatched",status="404"}';
    const before = await scrapeMetrics(gw.metricsUrl);
    expect((await anonymous.get('/v1/version')).status).toBe(200);
    expect((await anonymous.get('/v1/nothing-at-all')).status).toBe(404);
    const metrics = await scrapeMetrics(gw.metricsUrl);
    expect(metricDeltas(before, metrics, [version, unmatched])).toEqual({ [version]: 1, [unmatched]: 1 });
    expect(metrics).toContain('gateway_control_request_duration_seconds_bucket');
    expect(metrics).not.toContain('nothing-at-all');
  });
});

describe('tsoa on express 5', () => {
  it('resolves one express, version 5, for the generated routes and the app', () => {
    const fromApp = createRequire(import.meta.url).resolve('express/package.json');
    const tsoaRuntime = createRequire(import.meta.url).resolve('@tsoa/runtime/package.json');
    const fromTsoa = createRequire(tsoaRuntime).resolve('express/package.json');
    expect(fromTsoa).toBe(fromApp);
    expect(JSON.parse(readFileSync(fromApp, 'utf8')).version).toMatch(/^5\./);
  });
});
