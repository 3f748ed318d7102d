/**
 * Browser form uploads (POST Object): the policy as the AWS SDK's createPresignedPost makes it,
 * sent as multipart/form-data the way browsers send it; the file streamed to the store as a
 * PutObject, and nothing stored when the form or its policy does not hold.
 */
import { createHmac } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  writer = await createCredential(gateway, { scope: { buckets: ['forms'], level: 'read-write' } });
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
  options: Omit<PresignedPostOptions, 'Bucket'>,
): Promise<{ url: string; fields: Record<string, string> }> {
  return createPresignedPost(sdk(credential) as never, { Bucket: 'forms', ...options });
}

/** POSTs the form as a browser does (FormData, the file last). */
async function post(
  form: { url: string; fields: Record<string, string> },
  file: Buffer | string,
  extra: Record<string, string> = {},
  filename = 'photo.jpg',
): Promise<Response> {
  const data = new FormData();
  for (const [name, value] of Object.entries({ ...form.fields, ...extra })) data.append(name, value);
  data.append('file', new Blob([file]), filename);
  return fetch(form.url, {
    method: 'POST',
    body: data,
    headers: { 'user-agent': 'Mozilla/5.0 (form test)' },
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
): { url: string; fields: Record<string, string> } {
  const now = new Date();
  const amzDate = now
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
    url: `${gateway.s3Url}/forms`,
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
});
