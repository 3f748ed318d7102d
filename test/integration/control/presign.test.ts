import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { addMember, addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';
import { expectedPresignedSignature } from './sigv4-reference.js';

let gw: TestGateway;
let owner: ControlClient;

async function credential(
  client: ControlClient,
  scope: object,
): Promise<{ accessKeyId: string; secret: string }> {
  const created = await client.post('/v1/credentials', { name: 'presigner', scope });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  expect((await owner.post('/v1/buckets', { name: 'presign-photos' })).status).toBe(201);
  expect((await owner.post('/v1/buckets', { name: 'presign-other' })).status).toBe(201);
});
afterAll(async () => {
  await gw?.stop();
});

describe('POST /v1/buckets/{bucket}/presign', () => {
  it('signs a path-style URL on the public storage endpoint with the named credential', async () => {
    const before = Date.now();
    const response = await owner.post('/v1/buckets/presign-photos/presign', {
      key: 'albums/2024/cat picture (1).jpg',
      method: 'GET',
      accessKeyId: gw.credential.accessKeyId,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      url: expect.any(String),
      method: 'GET',
      headers: {},
      expiresAt: expect.any(String),
    });
    const url = new URL(response.body.url);
    expect(`${url.protocol}//${url.host}`).toBe(gw.s3Url);
    expect(response.body.url).toContain('/presign-photos/albums/2024/cat%20picture%20%281%29.jpg?');
    const query = url.searchParams;
    expect(query.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(query.get('X-Amz-Credential')).toMatch(
      new RegExp(`^${gw.credential.accessKeyId}/\\d{8}/us-east-1/s3/aws4_request$`),
    );
    expect(query.get('X-Amz-Expires')).toBe('3600');
    expect(query.get('X-Amz-SignedHeaders')).toBe('host');
    expect(query.get('X-Amz-Signature')).toBe(
      expectedPresignedSignature(response.body.url, 'GET', gw.credential.secret, {}),
    );
    const expiresAt = Date.parse(response.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);

    const log = await owner.get('/v1/organisation/audit-log?limit=1');
    expect(log.body.items[0]).toMatchObject({
      action: 'object.presign',
      target: 'presign-photos/albums/2024/cat picture (1).jpg',
      details: { method: 'GET', accessKeyId: gw.credential.accessKeyId, expiresIn: 3600 },
    });
    expect(log.text).not.toContain(query.get('X-Amz-Signature'));
  });

  it('signs the content type of an upload and returns it as a header to send', async () => {
    const writer = await credential(owner, { buckets: ['presign-photos'], level: 'read-write' });
    const response = await owner.post('/v1/buckets/presign-photos/presign', {
      key: 'upload.png',
      method: 'PUT',
      expiresIn: 604_800,
      accessKeyId: writer.accessKeyId,
      contentType: 'image/png',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.headers).toEqual({ 'content-type': 'image/png' });
    const query = new URL(response.body.url).searchParams;
    expect(query.get('X-Amz-Expires')).toBe('604800');
    expect(query.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(query.get('X-Amz-Signature')).toBe(
      expectedPresignedSignature(response.body.url, 'PUT', writer.secret, { 'content-type': 'image/png' }),
    );
  });

  it('refuses a lifetime over 7 days and bad keys, naming the field', async () => {
    const body = { key: 'k', method: 'GET', accessKeyId: gw.credential.accessKeyId };
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', { ...body, expiresIn: 604_801 }),
      'expiresIn',
    );
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', { ...body, expiresIn: 0 }),
      'expiresIn',
    );
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', { ...body, method: 'PATCH' }),
      'method',
    );
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', { ...body, key: 'a/../b' }),
      'key',
    );
    expectInvalidFields(await owner.post('/v1/buckets/presign-photos/presign', { ...body, key: '' }), 'key');
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', { key: 'k', method: 'GET' }),
      'accessKeyId',
    );
  });

  it('needs a credential of the caller organisation whose scope covers the bucket and method', async () => {
    const readOnly = await credential(owner, { buckets: ['presign-photos'], level: 'read-only' });
    const otherBucket = await credential(owner, { buckets: ['presign-other'], level: 'read-write' });
    const presign = (accessKeyId: string, method: string) =>
      owner.post('/v1/buckets/presign-photos/presign', { key: 'k', method, accessKeyId });

    expect((await presign(readOnly.accessKeyId, 'HEAD')).status).toBe(200);
    expectProblem(await presign(readOnly.accessKeyId, 'PUT'), 403, 'credential_scope_insufficient');
    expectProblem(await presign(readOnly.accessKeyId, 'DELETE'), 403, 'credential_scope_insufficient');
    expectProblem(await presign(otherBucket.accessKeyId, 'GET'), 403, 'credential_scope_insufficient');

    const other = await addOrganisation(owner, 'presign-stranger');
    const theirs = await credential(other.owner, { buckets: ['*'], level: 'read-write' });
    expectInvalidFields(await presign(theirs.accessKeyId, 'GET'), 'accessKeyId');
    expectInvalidFields(await presign('GWK1DOESNOTEXIST2345', 'GET'), 'accessKeyId');
    // Nor may they presign for our bucket with their own credential.
    expectProblem(
      await other.owner.post('/v1/buckets/presign-photos/presign', {
        key: 'k',
        method: 'GET',
        accessKeyId: theirs.accessKeyId,
      }),
      404,
      'bucket_not_found',
    );

    const expiring = await credential(owner, { buckets: ['*'], level: 'read-only' });
    await gw.gateway.context.store.credentials.update(expiring.accessKeyId, {
      expiresAt: new Date(Date.now() - 1000),
    });
    expectProblem(await presign(expiring.accessKeyId, 'GET'), 403, 'credential_expired');
  });

  it('lets a member presign with the credentials they created, not with others', async () => {
    const member = await addMember(owner, 'member');
    const mine = await credential(member.client, { buckets: ['presign-photos'], level: 'read-only' });
    const presign = (accessKeyId: string) =>
      member.client.post('/v1/buckets/presign-photos/presign', { key: 'k', method: 'GET', accessKeyId });
    expect((await presign(mine.accessKeyId)).status).toBe(200);
    expectProblem(await presign(gw.credential.accessKeyId), 403, 'forbidden');
  });

  it('presigns a browser form upload (POST): url and fields that upload through the storage endpoint', async () => {
    const writer = await credential(owner, { buckets: ['presign-photos'], level: 'read-write' });
    const response = await owner.post('/v1/buckets/presign-photos/presign', {
      key: 'forms/${filename}',
      method: 'POST',
      accessKeyId: writer.accessKeyId,
      contentType: 'text/plain',
      maxSizeBytes: 16,
      // The longest lifetime: the storage endpoint accepts a policy of up to 7 days.
      expiresIn: 604800,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ method: 'POST', headers: {}, url: `${gw.s3Url}/presign-photos` });
    const fields = response.body.fields as Record<string, string>;
    expect(Object.keys(fields).sort()).toEqual(
      [
        'Content-Type',
        'Policy',
        'X-Amz-Algorithm',
        'X-Amz-Credential',
        'X-Amz-Date',
        'X-Amz-Signature',
        'key',
      ].sort(),
    );
    const policy = JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        { bucket: 'presign-photos' },
        ['starts-with', '$key', 'forms/'],
        ['content-length-range', 0, 16],
      ]),
    );

    const upload = (file: string) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(fields)) data.append(name, value);
      data.append('file', new Blob([file]), 'note.txt');
      return fetch(response.body.url, {
        method: 'POST',
        body: data,
        headers: { 'user-agent': 'Mozilla/5.0' },
      });
    };
    expect((await upload('hello form')).status).toBe(204);
    const listed = await owner.get('/v1/buckets/presign-photos/objects?prefix=forms/');
    expect(listed.body.objects.map((object: { key: string }) => object.key)).toEqual(['forms/note.txt']);
    const tooLarge = await upload('this note is longer than sixteen bytes');
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.text()).toContain('<Code>EntityTooLarge</Code>');
  });

  it('refuses a form upload for a key that may only read', async () => {
    const reader = await credential(owner, { buckets: ['presign-photos'], level: 'read-only' });
    expectProblem(
      await owner.post('/v1/buckets/presign-photos/presign', {
        key: 'k',
        method: 'POST',
        accessKeyId: reader.accessKeyId,
      }),
      403,
      'credential_scope_insufficient',
    );
  });

  it('names a size limit on anything but a form upload', async () => {
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', {
        key: 'k',
        method: 'GET',
        accessKeyId: gw.credential.accessKeyId,
        maxSizeBytes: 10,
      }),
      'maxSizeBytes',
    );
  });

  it('names a success redirect that is no http(s) URL', async () => {
    expectInvalidFields(
      await owner.post('/v1/buckets/presign-photos/presign', {
        key: 'k',
        method: 'POST',
        accessKeyId: gw.credential.accessKeyId,
        successActionRedirect: 'javascript:alert(1)',
      }),
      'successActionRedirect',
    );
  });

  it('puts a success redirect in the form fields and its policy', async () => {
    const redirecting = await owner.post('/v1/buckets/presign-photos/presign', {
      key: 'k',
      method: 'POST',
      accessKeyId: gw.credential.accessKeyId,
      successActionRedirect: 'https://app.example/uploaded',
    });
    expect(redirecting.body.fields.success_action_redirect).toBe('https://app.example/uploaded');
    const policy = JSON.parse(Buffer.from(redirecting.body.fields.Policy, 'base64').toString('utf8'));
    expect(policy.conditions).toContainEqual({ success_action_redirect: 'https://app.example/uploaded' });
  });
});

describe('presigning with other signing regions (GATEWAY_S3_REGIONS)', () => {
  let regional: TestGateway;
  let admin: ControlClient;
  beforeAll(async () => {
    regional = await startTestGateway({ GATEWAY_S3_REGIONS: 'eu-central-1,auto' });
    admin = await login(regional.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    expect((await admin.post('/v1/buckets', { name: 'regional' })).status).toBe(201);
  });
  afterAll(async () => {
    await regional?.stop();
  });

  it('signs for the first accepted region, so the storage endpoint takes the URLs and forms it makes', async () => {
    const presign = async (body: object) => {
      const response = await admin.post('/v1/buckets/regional/presign', {
        accessKeyId: regional.credential.accessKeyId,
        ...body,
      });
      expect(response.status, response.text).toBe(200);
      return response.body as {
        url: string;
        headers: Record<string, string>;
        fields?: Record<string, string>;
      };
    };
    const put = await presign({ key: 'eu.txt', method: 'PUT', contentType: 'text/plain' });
    expect(new URL(put.url).searchParams.get('X-Amz-Credential')).toMatch(
      /\/eu-central-1\/s3\/aws4_request$/,
    );
    const stored = await fetch(put.url, { method: 'PUT', headers: put.headers, body: 'from europe' });
    expect(stored.status, await stored.text()).toBe(200);
    const get = await presign({ key: 'eu.txt', method: 'GET' });
    expect(await (await fetch(get.url)).text()).toBe('from europe');

    const form = await presign({ key: 'eu-form.txt', method: 'POST' });
    expect(form.fields?.['X-Amz-Credential']).toMatch(/\/eu-central-1\/s3\/aws4_request$/);
    const data = new FormData();
    for (const [name, value] of Object.entries(form.fields ?? {})) data.append(name, value);
    data.append('file', new Blob(['form from europe']), 'f.txt');
    const posted = await fetch(form.url, {
      method: 'POST',
      body: data,
      headers: { 'user-agent': 'Mozilla/5.0' },
    });
    expect(posted.status, await posted.text()).toBe(204);
  });
});
