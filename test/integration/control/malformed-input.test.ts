import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectInvalidFields, login, type ControlClient } from './client.js';

let gw: TestGateway;
let admin: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway();
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gw?.stop();
});

/** Sends a JSON body as written, so that escapes such as \u0000 reach the server untouched. */
async function postRaw(path: string, json: string, token: string | null = null) {
  const response = await fetch(`${gw.controlUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: json,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe('input no endpoint can take is a 400 validation problem, never a 500', () => {
  const PATHS = [
    // Percent-encodings that are not UTF-8 (an overlong dot, a lone byte, a cut-off escape).
    '/v1/credentials/%C0%AE',
    '/v1/credentials/%FF',
    '/v1/credentials/%',
    '/v1/buckets/%C0%AE',
    '/v1/buckets/%C0%AE/cors',
    '/v1/organisation/members/%C0%AE',
    '/v1/organisations/%E0%80/suspend',
    // NUL, which PostgreSQL cannot compare with any text.
    '/v1/credentials/%00',
    '/v1/credentials/GWK1%00',
    '/v1/buckets/%00',
    '/v1/organisation/members/%00',
    '/v1/me/sessions/%00',
    // An encoded lone surrogate is not UTF-8 either.
    '/v1/credentials/%ED%A0%80',
  ];

  it.each(PATHS)('GET, PATCH and DELETE %s name the path', async (path) => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await admin.request(method, path, { body: method === 'PATCH' ? {} : undefined });
      const problem = expectInvalidFields(response, 'path');
      expect(problem.detail, `${method} ${path}`).toMatch(/percent-encoded UTF-8|NUL/);
    }
  });

  it('a NUL in a JSON string names the field (login before any lookup)', async () => {
    const response = await postRaw(
      '/v1/auth/login',
      '{"email":"a\\u0000b@x","password":"correct horse battery staple"}',
    );
    const problem = expectInvalidFields(response, 'email');
    expect(problem.errors).toEqual([{ field: 'email', message: 'must not contain a NUL character' }]);
  });

  it('names nested fields and property names, with NUL or an unpaired surrogate', async () => {
    const renamed = await postRaw(
      '/v1/credentials',
      '{"name":"k","scope":{"buckets":["a\\u0000"]}}',
      admin.token,
    );
    expectInvalidFields(renamed, 'scope.buckets[0]');

    const settings = await admin.patch('/v1/organisation', {
      settings: { 'colour\u0000': 'blue', note: 'half a pair \ud800' },
    });
    const problem = expectInvalidFields(settings, 'settings.colour\u0000', 'settings.note');
    expect(problem.errors).toContainEqual({
      field: 'settings.note',
      message: 'must be well-formed Unicode (it holds an unpaired surrogate)',
    });

    const name = await admin.patch('/v1/me', { name: 'Ada\u0000' });
    expectInvalidFields(name, 'name');
  });

  it('a NUL in a query parameter names the parameter', async () => {
    expectInvalidFields(await admin.get('/v1/credentials?cursor=%00'), 'cursor');
    expectInvalidFields(await admin.get('/v1/buckets/any/objects?prefix=a%00b'), 'prefix');
  });

  it('deeply nested JSON is walked without overflowing the stack', async () => {
    const depth = 200_000;
    const response = await postRaw('/v1/auth/login', `${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    expect(response.status, response.text).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('what stays valid is untouched: paired surrogates, dots, and ordinary escapes', async () => {
    expect((await admin.patch('/v1/me', { name: 'Ada 🚀 Lovelace' })).status).toBe(200);
    expect((await admin.get('/v1/credentials/..%2Fetc')).body.code).toBe('credential_not_found');
    expect((await admin.get('/v1/buckets/caf%C3%A9')).body.code).toBe('bucket_not_found');
  });
});
