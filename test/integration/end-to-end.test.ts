import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, type ControlClient } from '../support/control-plane.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';

/**
 * The product's main path through both planes, as a platform team would walk it: everything set up
 * through the control plane, then observed through the storage endpoint with the real AWS SDK.
 */
describe('control plane and storage endpoint together', () => {
  let gw: TestGateway;
  let control: ControlClient;

  function s3(credential: { accessKeyId: string; secret: string }): S3Client {
    return new S3Client({
      endpoint: gw.s3Url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
      maxAttempts: 1,
    });
  }

  async function s3Error(
    promise: Promise<unknown>,
  ): Promise<{ code: string; status: number; message: string }> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof S3ServiceException) {
        return { code: error.name, status: error.$metadata.httpStatusCode ?? 0, message: error.message };
      }
      throw error;
    }
    throw new Error('expected the storage endpoint to refuse');
  }

  const bucket = 'e2e-photos';
  let writerKey: { accessKeyId: string; secret: string };
  let readerKey: { accessKeyId: string; secret: string };
  let organisationId: string;

  /** A storage key made through the control plane, with the secret it shows this once. */
  async function key(name: string, level: 'read-only' | 'read-write', buckets = [bucket]) {
    const created = await control.post('/v1/credentials', { name, scope: { buckets, level } });
    expect(created.status).toBe(201);
    return { accessKeyId: created.body.accessKeyId as string, secret: created.body.secret as string };
  }

  const accountProblem = {
    code: 'AccountProblem',
    status: 403,
    message: 'There is a problem with your account that prevents the operation from completing successfully.',
  };

  beforeAll(async () => {
    gw = await startTestGateway();
    control = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    expect((await control.post('/v1/buckets', { name: bucket })).status).toBe(201);
    writerKey = await key('writer', 'read-write');
    readerKey = await key('reader', 'read-only');
    await s3(writerKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'cat.txt', Body: 'meow' }));
    const organisation = await control.get('/v1/me/organisation');
    expect(organisation.status).toBe(200);
    organisationId = organisation.body.id as string;
  });
  afterAll(() => gw.stop());

  it('a read-only key reads what a read-write key uploaded', async () => {
    const got = await s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }));
    expect(await got.Body?.transformToString()).toBe('meow');
  });

  it('a read-only key cannot write', async () => {
    expect(
      await s3Error(s3(readerKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'x', Body: 'x' }))),
    ).toEqual({
      code: 'AccessDenied',
      status: 403,
      message: 'Access to this bucket is denied.',
    });
  });

  it('a revoked key no longer exists', async () => {
    const doomed = await key('doomed', 'read-only');
    expect(
      (await s3(doomed).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }))).$metadata
        .httpStatusCode,
    ).toBe(200);
    expect((await control.delete(`/v1/credentials/${doomed.accessKeyId}`)).status).toBe(204);
    const revoked = await s3Error(s3(doomed).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' })));
    expect(revoked.code).toBe('InvalidAccessKeyId');
    expect(revoked.status).toBe(403);
  });

  describe('a suspended organisation', () => {
    beforeAll(async () => {
      const suspended = await control.post(`/v1/organisations/${organisationId}/suspend`, {
        reason: 'unpaid invoice',
      });
      expect(suspended.status).toBe(200);
    });
    afterAll(async () => {
      expect((await control.post(`/v1/organisations/${organisationId}/reinstate`)).status).toBe(200);
    });

    it('is refused every storage request, with AccountProblem', async () => {
      expect(
        await s3Error(s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }))),
      ).toEqual(accountProblem);
    });

    it('may still issue keys, which change nothing', async () => {
      const issuedKey = await key('issued while suspended', 'read-write', ['*']);
      expect(
        await s3Error(s3(issuedKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }))),
      ).toEqual(accountProblem);
    });

    it('may not create buckets', async () => {
      const refusedBucket = await control.post('/v1/buckets', { name: 'e2e-during-suspension' });
      expect({ status: refusedBucket.status, code: refusedBucket.body.code }).toEqual({
        status: 403,
        code: 'account_suspended',
      });
    });

    it('serves no public reads either', async () => {
      expect((await control.patch(`/v1/buckets/${bucket}`, { public: true })).status).toBe(200);
      try {
        const publicRead = await fetch(`${gw.s3Url}/${bucket}/cat.txt`, {
          headers: { 'user-agent': 'e2e-test/1' },
        });
        expect(publicRead.status).toBe(403);
        expect(await publicRead.text()).toContain('<Code>AccountProblem</Code>');
      } finally {
        expect((await control.patch(`/v1/buckets/${bucket}`, { public: false })).status).toBe(200);
      }
    });
  });

  it('serves the data again once reinstated: nothing was deleted', async () => {
    expect(
      (await control.post(`/v1/organisations/${organisationId}/suspend`, { reason: 'a short one' })).status,
    ).toBe(200);
    expect((await control.post(`/v1/organisations/${organisationId}/reinstate`)).status).toBe(200);
    const again = await s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }));
    expect(await again.Body?.transformToString()).toBe('meow');
  });

  it('presigns a GET that works with no SDK at all', async () => {
    const presigned = await control.post(`/v1/buckets/${bucket}/presign`, {
      key: 'cat.txt',
      method: 'GET',
      expiresIn: 300,
      accessKeyId: readerKey.accessKeyId,
    });
    expect(presigned.status).toBe(200);
    const fetched = await fetch(presigned.body.url as string, { headers: presigned.body.headers ?? {} });
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('meow');
  });

  it('lets a CORS rule\u2019s origin through the preflight, and no other origin', async () => {
    const cors = await control.put(`/v1/buckets/${bucket}/cors`, {
      rules: [
        { allowedOrigins: ['https://app.example'], allowedMethods: ['GET', 'PUT'], allowedHeaders: ['*'] },
      ],
    });
    expect(cors.status).toBe(200);
    const preflight = (origin: string) =>
      fetch(`${gw.s3Url}/${bucket}/upload.bin`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type',
        },
      });
    const allowed = await preflight('https://app.example');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});
