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

  beforeAll(async () => {
    gw = await startTestGateway();
    control = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  });
  afterAll(() => gw.stop());

  it('walks the whole path', async () => {
    const bucket = 'e2e-photos';
    expect((await control.post('/v1/buckets', { name: bucket })).status).toBe(201);

    const writer = await control.post('/v1/credentials', {
      name: 'writer',
      scope: { buckets: [bucket], level: 'read-write' },
    });
    expect(writer.status).toBe(201);
    const reader = await control.post('/v1/credentials', {
      name: 'reader',
      scope: { buckets: [bucket], level: 'read-only' },
    });
    expect(reader.status).toBe(201);
    const writerKey = {
      accessKeyId: writer.body.accessKeyId as string,
      secret: writer.body.secret as string,
    };
    const readerKey = {
      accessKeyId: reader.body.accessKeyId as string,
      secret: reader.body.secret as string,
    };

    // Upload with the read-write credential, read with the read-only one.
    await s3(writerKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'cat.txt', Body: 'meow' }));
    const got = await s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }));
    expect(await got.Body?.transformToString()).toBe('meow');

    // The read-only credential cannot write.
    expect(
      await s3Error(s3(readerKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'x', Body: 'x' }))),
    ).toEqual({
      code: 'AccessDenied',
      status: 403,
      message: 'Access to this bucket is denied.',
    });

    // Revoke: the id no longer exists.
    expect((await control.delete(`/v1/credentials/${writerKey.accessKeyId}`)).status).toBe(204);
    const revoked = await s3Error(
      s3(writerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' })),
    );
    expect(revoked.code).toBe('InvalidAccessKeyId');
    expect(revoked.status).toBe(403);

    // Suspend the organisation: every storage request refused, nothing deleted.
    const organisation = await control.get('/v1/me/organisation');
    expect(organisation.status).toBe(200);
    const organisationId = organisation.body.id as string;
    expect(
      (await control.post(`/v1/organisations/${organisationId}/suspend`, { reason: 'unpaid invoice' }))
        .status,
    ).toBe(200);
    const accountProblem = {
      code: 'AccountProblem',
      status: 403,
      message:
        'There is a problem with your account that prevents the operation from completing successfully.',
    };
    expect(
      await s3Error(s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }))),
    ).toEqual(accountProblem);
    // A key issued while suspended changes nothing; creating a bucket is refused as suspended.
    const issued = await control.post('/v1/credentials', {
      name: 'issued while suspended',
      scope: { buckets: ['*'], level: 'read-write' },
    });
    expect(issued.status).toBe(201);
    const issuedKey = {
      accessKeyId: issued.body.accessKeyId as string,
      secret: issued.body.secret as string,
    };
    expect(
      await s3Error(s3(issuedKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }))),
    ).toEqual(accountProblem);
    const refusedBucket = await control.post('/v1/buckets', { name: 'e2e-during-suspension' });
    expect({ status: refusedBucket.status, code: refusedBucket.body.code }).toEqual({
      status: 403,
      code: 'account_suspended',
    });
    // Public-bucket reads are refused too.
    expect((await control.patch(`/v1/buckets/${bucket}`, { public: true })).status).toBe(200);
    const publicRead = await fetch(`${gw.s3Url}/${bucket}/cat.txt`, {
      headers: { 'user-agent': 'e2e-test/1' },
    });
    expect(publicRead.status).toBe(403);
    expect(await publicRead.text()).toContain('<Code>AccountProblem</Code>');
    expect((await control.patch(`/v1/buckets/${bucket}`, { public: false })).status).toBe(200);

    // Reinstate and read again: the data is still there.
    expect((await control.post(`/v1/organisations/${organisationId}/reinstate`)).status).toBe(200);
    const again = await s3(readerKey).send(new GetObjectCommand({ Bucket: bucket, Key: 'cat.txt' }));
    expect(await again.Body?.transformToString()).toBe('meow');

    // Presign a GET with the reader and fetch it with no SDK at all.
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

    // A CORS rule for one origin: its preflight passes, another origin's fails.
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
