/**
 * Browser form uploads (POST Object): the policy as the AWS SDK's createPresignedPost makes it,
 * sent as multipart/form-data the way browsers send it; the file streamed to the store as a
 * PutObject, and nothing stored when the form or its policy does not hold.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  createBucket,
  createCredential,
  createOrganisation,
  type TestCredential,
} from '../../support/s3/fixtures.js';
import { describeRawError, parseS3Error, sendRaw, type RawResponse } from '../../support/s3/raw-requests.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';

let backend: RecordingBackend;
let gateway: TestGateway;
let writer: TestCredential;
let reader: TestCredential;

beforeAll(async () => {
  backend = await startRecordingBackend();
  gateway = await startTestGateway(backend.env);
  await createBucket(gateway, 'forms');
  await createBucket(gateway, 'forms-cors', {
    cors: [
      {
        allowedOrigins: ['https://app.example'],
        allowedMethods: ['POST'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
      },
    ],
  });
  writer = await createCredential(gateway, {
    scope: { buckets: ['forms', 'forms-cors'], level: 'read-write' },
  });
  reader = await createCredential(gateway, { scope: { buckets: ['forms'], level: 'read-only' } });
});
afterAll(async () => {
  await gateway?.stop();
  await backend?.stop();
});

function sdk(credential: TestCredential): S3Client {
  return new S3Client({
    endpoint: gateway.s3Url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
  });
}

async function presignedPost(
  credential: TestCredential,
  options: Omit<PresignedPostOptions, 'Bucket'> & { Bucket?: string },
): Promise<{ url: string; fields: Record<string, string> }> {
  return createPresignedPost(sdk(credential) as never, { Bucket: 'forms', ...options });
}

/** POSTs the form as a browser does (FormData, the file last). */
async function post(
  form: { url: string; fields: Record<string, string> },
  file: Buffer | string,
  extra: Record<string, string> = {},
  filename = 'photo.jpg',
  headers: Record<string, string> = {},
): Promise<Response> {
  const data = new FormData();
  for (const [name, value] of Object.entries({ ...form.fields, ...extra })) data.append(name, value);
  data.append('file', new Blob([file]), filename);
  return fetch(form.url, {
    method: 'POST',
    body: data,
    headers: { 'user-agent': 'Mozilla/5.0 (form test)', ...headers },
  });
}

async function errorOf(response: Response): Promise<{ status: number; code?: string; message?: string }> {
  const { code, message } = parseS3Error(await response.text());
  return { status: response.status, code, message };
}

/** SigV4 over the base64 policy, with the signing key of the credential's scope. */
function policySignature(credential: TestCredential, credentialField: string, policy: string): string {
  const [, date = '', region = ''] = /\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(credentialField) ?? [];
  let key: Buffer = createHmac('sha256', `AWS4${credential.secret}`).update(date).digest();
  for (const part of [region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(policy).digest('hex');
}

/** A form signed by hand for a policy document of the test's own. */
function handSignedForm(
  credential: TestCredential,
  document: { expiration: string; conditions: unknown[] },
  signedAt = new Date(),
  bucket = 'forms',
): { url: string; fields: Record<string, string> } {
  const amzDate = signedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const credentialField = `${credential.accessKeyId}/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const fields = {
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': credentialField,
    'X-Amz-Date': amzDate,
  };
  const conditions = [
    ...document.conditions,
    ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
  ];
  const policy = Buffer.from(JSON.stringify({ ...document, conditions })).toString('base64');
  return {
    url: `${gateway.s3Url}/${bucket}`,
    fields: {
      ...fields,
      Policy: policy,
      'X-Amz-Signature': policySignature(credential, credentialField, policy),
    },
  };
}

function puts(key: string): number {
  return backend.requests.filter((request) => request.method === 'PUT' && request.target === `/forms/${key}`)
    .length;
}

describe('browser form uploads (POST Object)', () => {
  it('streams the file to the store as a PutObject and answers 204, as S3 does by default', async () => {
    const form = await presignedPost(writer, {
      Key: 'uploads/${filename}',
      Conditions: [
        ['starts-with', '$key', 'uploads/'],
        ['content-length-range', 0, 10 * 1024 * 1024],
      ],
      Fields: { 'Content-Type': 'image/jpeg' },
    });
    const file = Buffer.alloc(3 * 1024 * 1024 + 7, 9);
    const answer = await post(form, file, { 'Content-Type': 'image/jpeg' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    const stored = await pathStyleClient(gateway).send(
      new GetObjectCommand({ Bucket: 'forms', Key: 'uploads/photo.jpg' }),
    );
    expect(stored.ContentType).toBe('image/jpeg');
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(file)).toBe(true);
    const forwarded = backend.requests.filter((request) => request.target === '/forms/uploads/photo.jpg');
    expect(forwarded[0]).toMatchObject({ method: 'PUT', signatureValid: true, bodyBytes: file.length });
  });

  it('answers 201 with a PostResponse, or 303 to success_action_redirect with bucket, key and ETag', async () => {
    const created = await presignedPost(writer, {
      Key: 'answers/created.txt',
      Fields: { success_action_status: '201' },
    });
    const answer = await post(created, 'created');
    expect(answer.status).toBe(201);
    const document = await answer.text();
    expect(document).toContain('<PostResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/">');
    expect(document).toContain('<Bucket>forms</Bucket><Key>answers/created.txt</Key>');

    const redirected = await presignedPost(writer, {
      Key: 'answers/redirected.txt',
      Fields: { success_action_redirect: 'https://app.example/done?from=form' },
    });
    const redirect = await fetch(redirected.url, {
      method: 'POST',
      redirect: 'manual',
      body: (() => {
        const data = new FormData();
        for (const [name, value] of Object.entries(redirected.fields)) data.append(name, value);
        data.append('file', new Blob(['redirected']), 'r.txt');
        return data;
      })(),
      headers: { 'user-agent': 'Mozilla/5.0 (form test)' },
    });
    expect(redirect.status).toBe(303);
    const location = new URL(redirect.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe('https://app.example/done');
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      from: 'form',
      bucket: 'forms',
      key: 'answers/redirected.txt',
    });
    expect(location.searchParams.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('refuses what the policy does not allow, storing nothing', async () => {
    const form = await presignedPost(writer, {
      Key: 'policy/ok.txt',
      Conditions: [
        ['starts-with', '$key', 'policy/'],
        ['content-length-range', 1, 16],
      ],
    });
    // Another key than the one the policy names exactly (createPresignedPost adds {"key": ...}).
    expect(await errorOf(await post(form, 'x', { key: 'policy/other.txt' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy Condition failed: {"key":"policy/ok.txt"}',
    });
    expect(await errorOf(await post(form, 'x', { 'x-amz-meta-colour': 'blue' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Extra input fields: x-amz-meta-colour',
    });
    expect(await errorOf(await post(form, 'seventeen bytes!!'))).toEqual({
      status: 400,
      code: 'EntityTooLarge',
      message: "The file is larger than the policy's content-length-range allows.",
    });
    // A policy whose expiration has passed, signed by hand (the SDK only makes future ones).
    const expired = handSignedForm(writer, {
      expiration: new Date(Date.now() - 60_000).toISOString(),
      conditions: [{ bucket: 'forms' }, { key: 'policy/late.txt' }],
    });
    expect(await errorOf(await post(expired, 'late', { key: 'policy/late.txt' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy expired.',
    });
    const forged = { ...form, fields: { ...form.fields, 'X-Amz-Signature': 'f'.repeat(64) } };
    expect((await errorOf(await post(forged, 'x'))).code).toBe('SignatureDoesNotMatch');
    expect(puts('policy/ok.txt') + puts('policy/other.txt') + puts('policy/late.txt')).toBe(0);
  });

  it('holds a form to its credential: a read-only key, a suspended organisation, no signature', async () => {
    const readOnly = await presignedPost(reader, { Key: 'scope/ro.txt' });
    expect(await errorOf(await post(readOnly, 'x'))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Access to this bucket is denied.',
    });
    const unsigned = await post({ url: `${gateway.s3Url}/forms`, fields: { key: 'scope/anon.txt' } }, 'x');
    expect((await errorOf(unsigned)).code).toBe('AccessDenied');

    const other = await createOrganisation(gateway, 'form-suspended');
    await createBucket(gateway, 'forms-suspended', { organisationId: other.id });
    const key = await createCredential(gateway, {
      organisationId: other.id,
      scope: { buckets: ['forms-suspended'], level: 'read-write' },
    });
    await gateway.gateway.context.store.organisations.suspend(other.id, 'test');
    const suspended = await createPresignedPost(sdk(key) as never, {
      Bucket: 'forms-suspended',
      Key: 'k.txt',
    });
    expect((await errorOf(await post(suspended, 'x'))).code).toBe('AccountProblem');
    expect(puts('scope/ro.txt') + puts('scope/anon.txt')).toBe(0);
  });

  it('stores nothing from a form that does not end with its closing delimiter where its length says', async () => {
    const form = await presignedPost(writer, { Key: 'framing/cut.txt' });
    const boundary = '----gatewayTestBoundary';
    const parts = Object.entries(form.fields).map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    const body = Buffer.from(
      `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\nthe file's bytes\r\n--${boundary}-X\r\n`,
      'latin1',
    );
    const answer: RawResponse = await sendRaw(gateway.s3Url, {
      method: 'POST',
      target: '/forms',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'user-agent': 'curl/8.5.0' },
      body,
    });
    expect(describeRawError(answer)).toMatchObject({ status: 400, code: 'MalformedPOSTRequest' });
    await expectS3Error(
      pathStyleClient(gateway).send(new HeadObjectCommand({ Bucket: 'forms', Key: 'framing/cut.txt' })),
      { code: 'NotFound', status: 404 },
    );
  });

  it('verifies the signature over the policy text as sent (HMAC of the base64 policy)', async () => {
    const form = await presignedPost(writer, { Key: 'sig/check.txt' });
    const credential = form.fields['X-Amz-Credential'] ?? '';
    expect(form.fields['X-Amz-Signature']).toBe(
      policySignature(writer, credential, form.fields.Policy ?? ''),
    );
    expect((await post(form, 'signed')).status).toBe(204);
  });

  it("refuses a file under the policy's content-length-range minimum, storing nothing", async () => {
    const form = await presignedPost(writer, {
      Key: 'range/empty.txt',
      Conditions: [['content-length-range', 1, 16]],
    });
    expect(await errorOf(await post(form, ''))).toEqual({
      status: 400,
      code: 'EntityTooSmall',
      message: "The file is smaller than the policy's content-length-range allows.",
    });
    expect((await post(form, 'x')).status).toBe(204);
    expect(puts('range/empty.txt')).toBe(1);
  });

  it('holds the key to a starts-with condition: a key under the prefix is stored, one outside is refused', async () => {
    const conditions = [{ bucket: 'forms' }, ['starts-with', '$key', 'inbox/']];
    const expiration = new Date(Date.now() + 600_000).toISOString();
    const outside = handSignedForm(writer, { expiration, conditions });
    expect(await errorOf(await post(outside, 'x', { key: 'outbox/x.txt' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy Condition failed: ["starts-with","$key","inbox/"]',
    });
    expect(puts('outbox/x.txt')).toBe(0);
    const inside = handSignedForm(writer, { expiration, conditions });
    expect((await post(inside, 'x', { key: 'inbox/x.txt' })).status).toBe(204);
    expect(puts('inbox/x.txt')).toBe(1);
  });

  it('answers success_action_status 200 with an empty body, and 204 for any other value', async () => {
    const ok = await presignedPost(writer, {
      Key: 'status/200.txt',
      Fields: { success_action_status: '200' },
    });
    const answer = await post(ok, 'two hundred');
    expect([answer.status, await answer.text()]).toEqual([200, '']);
    expect(answer.headers.get('etag')).toBe(`"${createHash('md5').update('two hundred').digest('hex')}"`);
    const other = await presignedPost(writer, {
      Key: 'status/other.txt',
      Fields: { success_action_status: '404' },
    });
    expect((await post(other, 'other')).status).toBe(204);
  });

  it('refuses a form signed with an expired access key', async () => {
    const expired = await createCredential(gateway, {
      scope: { buckets: ['forms'], level: 'read-write' },
      expiresAt: new Date(Date.now() - 60_000),
    });
    const form = await presignedPost(expired, { Key: 'expired-key.txt' });
    expect(await errorOf(await post(form, 'x'))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'This access key has expired.',
    });
    expect(puts('expired-key.txt')).toBe(0);
  });

  it('bans in form fields what it bans in a PutObject: a public ACL, a storage class other than STANDARD', async () => {
    const publicAcl = await presignedPost(writer, { Key: 'bans/acl.txt', Fields: { acl: 'public-read' } });
    expect(await errorOf(await post(publicAcl, 'x'))).toEqual({
      status: 501,
      code: 'NotImplemented',
      message: 'Only a private (owner full control) ACL is implemented.',
    });
    const glacier = await presignedPost(writer, {
      Key: 'bans/glacier.txt',
      Fields: { 'x-amz-storage-class': 'GLACIER' },
    });
    expect(await errorOf(await post(glacier, 'x'))).toEqual({
      status: 501,
      code: 'NotImplemented',
      message: 'Only the STANDARD storage class is implemented.',
    });
    expect(puts('bans/acl.txt') + puts('bans/glacier.txt')).toBe(0);
    const privateAcl = await presignedPost(writer, { Key: 'bans/private.txt', Fields: { acl: 'private' } });
    expect((await post(privateAcl, 'x')).status).toBe(204);
  });

  it("answers a form from an origin the bucket's CORS rules allow with their headers, errors included", async () => {
    const fromApp = { origin: 'https://app.example' };
    const form = await presignedPost(writer, { Bucket: 'forms-cors', Key: 'cors/ok.txt' });
    const stored = await post(form, 'x', {}, 'ok.txt', fromApp);
    expect(stored.status).toBe(204);
    expect(
      Object.fromEntries([...stored.headers].filter(([name]) => name.startsWith('access-control-'))),
    ).toEqual({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST',
      'access-control-expose-headers': 'ETag',
    });
    // An error carries them too, so the page can read why.
    const refused = await post(form, 'x', { key: 'cors/other.txt' }, 'ok.txt', fromApp);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example');
    // Another origin gets no CORS headers: its scripts cannot read the answer.
    const elsewhere = await post(form, 'x', {}, 'ok.txt', { origin: 'https://elsewhere.example' });
    expect([...elsewhere.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('refuses a policy that would live more than 7 days after its x-amz-date, storing nothing', async () => {
    // Whole seconds, as x-amz-date has them.
    const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const conditions = [{ bucket: 'forms' }, { key: 'lifetime/long.txt' }];
    const tooLong = handSignedForm(
      writer,
      { expiration: new Date(signedAt.getTime() + 604_800_000 + 1000).toISOString(), conditions },
      signedAt,
    );
    expect(await errorOf(await post(tooLong, 'x', { key: 'lifetime/long.txt' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message:
        'Invalid according to Policy: the policy expiration must be at most 604800 seconds (7 days) after its x-amz-date.',
    });
    // Signed six days ago for exactly seven: still valid, a day left.
    const sixDaysAgo = new Date(signedAt.getTime() - 6 * 86_400_000);
    const stillValid = handSignedForm(
      writer,
      { expiration: new Date(sixDaysAgo.getTime() + 604_800_000).toISOString(), conditions },
      sixDaysAgo,
    );
    expect((await post(stillValid, 'x', { key: 'lifetime/long.txt' })).status).toBe(204);
    expect(puts('lifetime/long.txt')).toBe(1);
  });

  it("takes the longest policy the AWS SDK's createPresignedPost makes for 7 days", async () => {
    const form = await presignedPost(writer, { Key: 'lifetime/week.txt', Expires: 604_800 });
    expect((await post(form, 'a week')).status).toBe(204);
  });

  it('refuses a form dated in the future beyond the clock skew allowance (it would outlive 7 days)', async () => {
    const future = new Date(Date.now() + 3_600_000);
    const form = handSignedForm(
      writer,
      {
        expiration: new Date(future.getTime() + 86_400_000).toISOString(),
        conditions: [{ bucket: 'forms' }, { key: 'lifetime/future.txt' }],
      },
      future,
    );
    expect(await errorOf(await post(form, 'x', { key: 'lifetime/future.txt' }))).toEqual({
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: "The difference between the request time and the server's time is too large.",
    });
    expect(puts('lifetime/future.txt')).toBe(0);
  });

  it('streams the file: the store has its first bytes before the browser has sent its last', async () => {
    const form = await presignedPost(writer, { Key: 'stream/big.bin' });
    const boundary = '----gatewayStreamBoundary';
    const fields = Object.entries(form.fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('');
    const head = Buffer.from(
      `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
      'latin1',
    );
    const file = Buffer.alloc(8 * 1024 * 1024, 7);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
    const target = new URL(form.url);
    const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request({
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: target.pathname,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + file.length + tail.length),
          'user-agent': 'Mozilla/5.0 (form test)',
        },
      });
      request.once('response', resolve).once('error', reject);
      request.write(Buffer.concat([head, file.subarray(0, 1024 * 1024)]));
      // The rest only once the store is receiving the file: a gateway that held the file whole
      // before sending it on would never get there.
      void eventually('the store to receive the first bytes of the file', () =>
        backend.requests.find(
          (seen) => seen.method === 'PUT' && seen.target === '/forms/stream/big.bin' && seen.bodyBytes > 0,
        ),
      ).then(
        (seen) => {
          expect(seen.bodyComplete).toBe(false);
          request.end(Buffer.concat([file.subarray(1024 * 1024), tail]));
        },
        (error: unknown) => {
          request.destroy();
          reject(error as Error);
        },
      );
    });
    const response = await answered;
    response.resume();
    expect(response.statusCode).toBe(204);
    const [stored] = backend.requests.filter((seen) => seen.target === '/forms/stream/big.bin');
    expect(stored).toMatchObject({ method: 'PUT', bodyBytes: file.length, bodyComplete: true });
  });
});
