import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { login, type ControlClient } from '../../support/control-plane.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

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

describe('bodies that cannot be read', () => {
  it.each(['gzip', 'deflate', 'br'])(
    'a body that is not %s as its Content-Encoding says is malformed_json',
    async (encoding) => {
      const response = await fetch(`${gw.controlUrl}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: '{"email":"a@b.c","password":"not compressed at all"}',
      });
      expectProblem(
        { status: response.status, headers: response.headers, text: '', body: await response.json() },
        400,
        'malformed_json',
      );
    },
  );
});

/** Writes raw bytes and collects the answer until the server closes; the socket stays half-open as some clients leave it. */
function rawExchange(url: string, request: string): Promise<{ socket: Socket; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve({ socket, answer }));
    socket.on('error', reject);
    socket.write(request);
  });
}

function problemOf(answer: string) {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  const status = Number(head.split(' ', 2)[1]);
  const contentType = /^content-type: (.*)$/im.exec(head)?.[1];
  return {
    status,
    contentType,
    problem: JSON.parse(body) as { status: number; code: string; detail: string },
  };
}

describe('requests Node refuses before express sees them', () => {
  it.each([
    ['an unknown method', 'BREW /v1/me HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
    [
      'a malformed header',
      'GET /v1/me HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
      400,
      'malformed_request',
    ],
    [
      'headers over 16 KiB',
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 404, 'not_found'],
  ])('%s gets a problem, then the connection is closed', async (_what, request, status, code) => {
    const { socket, answer } = await rawExchange(gw.controlUrl, request);
    socket.destroy();
    const parsed = problemOf(answer);
    expect(parsed.status, answer).toBe(status);
    expect(parsed.contentType).toMatch(/^application\/problem\+json/);
    expect(parsed.problem).toMatchObject({ status, code });
    expect(answer).toMatch(/^x-request-id: [0-9a-f-]{36}$/im);
  });

  it('a HEAD with headers over 16 KiB is answered 431 without a body', async () => {
    const { socket, answer } = await rawExchange(
      gw.controlUrl,
      `HEAD /v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    socket.destroy();
    const [head, body] = answer.split('\r\n\r\n', 2);
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/^content-type: application\/problem\+json/im);
    // The length announced is the body's: none, or a client would wait for bytes that never come.
    expect(head).toMatch(/^content-length: 0$/im);
    expect(body).toBe('');
  });

  it('a client that never closes its side after such an answer does not hold up a graceful stop', async () => {
    const own = await startTestGateway();
    let stopped = false;
    try {
      const held = await Promise.all([
        rawExchange(own.controlUrl, 'BREW / HTTP/1.1\r\nHost: x\r\n\r\n'),
        rawExchange(own.controlUrl, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      ]);
      await own.stop();
      stopped = true;
      for (const { socket } of held) socket.destroy();
    } finally {
      if (!stopped) await own.stop();
    }
  });
});
