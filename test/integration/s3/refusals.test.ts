/**
 * One test per refusal rule of the storage endpoint (service-spec §3, §4, §5, §7; decisions.md),
 * each asserting the exact S3 code, HTTP status and message.
 */
import {
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectRetentionCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand,
  PutBucketReplicationCommand,
  PutBucketWebsiteCommand,
  PutObjectCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_ERRORS } from '../../../src/s3/errors.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  createBucket,
  createCredential,
  createOrganisation,
  type TestCredential,
} from '../../support/s3/fixtures.js';
import { describeRawError, sendRaw, sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';

const EXPIRED_KEY = 'This access key has expired.';
const BUCKET_DENIED = 'Access to this bucket is denied.';
const PRESIGN_EXPIRED = 'The presigned URL has expired.';
const INCOMPLETE_SIGNATURE = 'The request signature is incomplete.';
const EMPTY_SHA256 = sha256Hex('');

let gateway: TestGateway;
let s3: S3Client;
let otherOrganisationId: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  s3 = pathStyleClient(gateway);
  await createBucket(gateway, 'mine');
  await createBucket(gateway, 'also-mine');
  await createBucket(gateway, 'public-mine', { public: true });
  otherOrganisationId = (await createOrganisation(gateway, 'other')).id;
  await createBucket(gateway, 'theirs', { organisationId: otherOrganisationId });
  await s3.send(new PutObjectCommand({ Bucket: 'mine', Key: 'existing.txt', Body: 'here' }));
  await s3.send(new PutObjectCommand({ Bucket: 'public-mine', Key: 'open.txt', Body: 'open data' }));
});
afterAll(async () => {
  await gateway?.stop();
});

function client(credential: TestCredential): S3Client {
  return pathStyleClient(gateway, credential);
}

const getExisting = (client: S3Client) =>
  client.send(new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }));

describe('authentication', () => {
  it('wrong secret: SignatureDoesNotMatch 403', async () => {
    const wrong = { accessKeyId: gateway.credential.accessKeyId, secret: 'x'.repeat(40) };
    await expectS3Error(getExisting(client(wrong)), {
      code: 'SignatureDoesNotMatch',
      status: 403,
      message: S3_ERRORS.SignatureDoesNotMatch.message,
    });
  });

  it('unknown key: InvalidAccessKeyId 403', async () => {
    await expectS3Error(
      getExisting(client({ accessKeyId: 'GWK1AAAAAAAAAAAAAAAA', secret: 'x'.repeat(40) })),
      {
        code: 'InvalidAccessKeyId',
        status: 403,
        message: S3_ERRORS.InvalidAccessKeyId.message,
      },
    );
  });

  it('revoked key: InvalidAccessKeyId 403 from the next request on', async () => {
    const credential = await createCredential(gateway);
    await getExisting(client(credential));
    await gateway.gateway.context.store.credentials.delete(credential.accessKeyId);
    await expectS3Error(getExisting(client(credential)), { code: 'InvalidAccessKeyId', status: 403 });
  });

  it('expired key: AccessDenied "This access key has expired."', async () => {
    const credential = await createCredential(gateway, { expiresAt: new Date(Date.now() - 1000) });
    await expectS3Error(getExisting(client(credential)), {
      code: 'AccessDenied',
      status: 403,
      message: EXPIRED_KEY,
    });
  });

  it("a rotated key's previous secret verifies until its grace period ends", async () => {
    const credential = await createCredential(gateway);
    const { credentials } = gateway.gateway.context.store;
    await credentials.rotate(credential.accessKeyId, 'n'.repeat(40), new Date(Date.now() + 60_000));
    await getExisting(client(credential));
    await getExisting(client({ accessKeyId: credential.accessKeyId, secret: 'n'.repeat(40) }));
    await credentials.rotate(credential.accessKeyId, 'm'.repeat(40), null);
    await expectS3Error(
      getExisting(client({ accessKeyId: credential.accessKeyId, secret: 'n'.repeat(40) })),
      {
        code: 'SignatureDoesNotMatch',
        status: 403,
      },
    );
  });

  it('clock more than fifteen minutes off: RequestTimeTooSkewed 403', async () => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path: '/mine/existing.txt',
      payloadHash: EMPTY_SHA256,
      signingDate: new Date(Date.now() - 20 * 60_000),
    });
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: '/mine/existing.txt', headers });
    expect(describeRawError(response)).toEqual({
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: S3_ERRORS.RequestTimeTooSkewed.message,
      requestIdMatches: true,
    });
  });

  it('malformed Authorization: AccessDenied "The request signature is incomplete."', async () => {
    for (const authorization of [
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request',
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1, SignedHeaders=host, Signature=abc',
      'FANCY-ALGORITHM Credential=x, SignedHeaders=host, Signature=abc',
    ]) {
      const response = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: '/mine/existing.txt',
        headers: { authorization, 'x-amz-date': '20260101T000000Z', 'x-amz-content-sha256': EMPTY_SHA256 },
      });
      expect(describeRawError(response)).toEqual({
        status: 403,
        code: 'AccessDenied',
        message: INCOMPLETE_SIGNATURE,
        requestIdMatches: true,
      });
    }
  });

  it('a refused upload never gets 100 Continue, so its body is never sent', async () => {
    const response = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/mine/never.txt',
      headers: {
        authorization: 'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request',
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      },
      body: Buffer.alloc(64 * 1024, 1),
      expectContinue: true,
    });
    expect(response.status).toBe(403);
    expect(response.continued).toBe(false);
  });
});

describe('presigned URLs', () => {
  it('elapsed lifetime: AccessDenied "The presigned URL has expired."', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 10 * 60_000),
    });
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: url.slice(gateway.s3Url.length) });
    expect(describeRawError(response)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: PRESIGN_EXPIRED,
    });
  });

  it('lifetime over seven days: AccessDenied before the signature is checked', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
      expiresIn: 600,
    });
    const tooLong = url.slice(gateway.s3Url.length).replace('X-Amz-Expires=600', 'X-Amz-Expires=604801');
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: tooLong });
    expect(describeRawError(response)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: S3_ERRORS.PresignedLifetimeTooLong.message,
    });
  });
});

describe('authorisation', () => {
  it('another organisation\'s bucket: AccessDenied "Access to this bucket is denied."', async () => {
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: 'theirs' })), {
      code: 'AccessDenied',
      status: 403,
      message: BUCKET_DENIED,
    });
  });

  it('a bucket outside the allowlist: AccessDenied "Access to this bucket is denied."', async () => {
    const credential = await createCredential(gateway, { scope: { buckets: ['mine'], level: 'read-write' } });
    await getExisting(client(credential));
    await expectS3Error(client(credential).send(new ListObjectsV2Command({ Bucket: 'also-mine' })), {
      code: 'AccessDenied',
      status: 403,
      message: BUCKET_DENIED,
    });
  });

  it('a read-only credential is refused every write with "Access to this bucket is denied."', async () => {
    const readOnly = client(
      await createCredential(gateway, { scope: { buckets: ['*'], level: 'read-only' } }),
    );
    await getExisting(readOnly);
    const writes = [
      () => readOnly.send(new PutObjectCommand({ Bucket: 'mine', Key: 'ro.txt', Body: 'no' })),
      () => readOnly.send(new DeleteObjectCommand({ Bucket: 'mine', Key: 'existing.txt' })),
      () => readOnly.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'ro-multipart' })),
      () =>
        readOnly.send(
          new CopyObjectCommand({ Bucket: 'mine', Key: 'ro-copy', CopySource: 'mine/existing.txt' }),
        ),
    ];
    for (const write of writes) {
      await expectS3Error(write(), { code: 'AccessDenied', status: 403, message: BUCKET_DENIED });
    }
  });

  it('a method outside the permitted methods: AccessDenied "Access to this bucket is denied."', async () => {
    const noDelete = client(
      await createCredential(gateway, { scope: { buckets: ['*'], methods: ['GET', 'PUT'] } }),
    );
    await noDelete.send(new PutObjectCommand({ Bucket: 'mine', Key: 'keep.txt', Body: 'kept' }));
    await expectS3Error(noDelete.send(new DeleteObjectCommand({ Bucket: 'mine', Key: 'keep.txt' })), {
      code: 'AccessDenied',
      status: 403,
      message: BUCKET_DENIED,
    });
  });

  it('no such bucket: NoSuchBucket 404', async () => {
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: 'no-such-bucket' })), {
      code: 'NoSuchBucket',
      status: 404,
      message: S3_ERRORS.NoSuchBucket.message,
    });
  });
});

describe('anonymous requests', () => {
  const anonymous = (target: string, method = 'GET', body?: string) =>
    sendRaw(gateway.s3Url, {
      method,
      target,
      headers: { 'user-agent': 'curl/8.5.0' },
      ...(body ? { body } : {}),
    });

  it('may read objects of a public bucket', async () => {
    const response = await anonymous('/public-mine/open.txt');
    expect(response.status).toBe(200);
    expect(response.body).toBe('open data');
  });

  it('may not read a private bucket, list a public one, write, or list buckets', async () => {
    for (const [target, method] of [
      ['/mine/existing.txt', 'GET'],
      ['/public-mine', 'GET'],
      ['/public-mine/new.txt', 'PUT'],
      ['/', 'GET'],
    ] as const) {
      const response = await anonymous(target, method, method === 'PUT' ? 'data' : undefined);
      expect(describeRawError(response)).toEqual({
        status: 403,
        code: 'AccessDenied',
        message: S3_ERRORS.AnonymousAccessDenied.message,
        requestIdMatches: true,
      });
    }
  });
});

describe('suspended organisations: AccountProblem 403 for everything', () => {
  let credential: TestCredential;
  let organisationId: string;

  beforeAll(async () => {
    organisationId = (await createOrganisation(gateway, 'suspended-org')).id;
    await createBucket(gateway, 'suspended-public', { organisationId, public: true });
    credential = await createCredential(gateway, { organisationId });
    await client(credential).send(new PutObjectCommand({ Bucket: 'suspended-public', Key: 'k', Body: 'v' }));
    await gateway.gateway.context.store.organisations.suspend(organisationId, 'unpaid');
  });

  const accountProblem = {
    code: 'AccountProblem',
    status: 403,
    message: S3_ERRORS.AccountProblem.message,
  };

  it('signed requests, ListBuckets included', async () => {
    await expectS3Error(
      client(credential).send(new GetObjectCommand({ Bucket: 'suspended-public', Key: 'k' })),
      accountProblem,
    );
    await expectS3Error(client(credential).send(new ListBucketsCommand({})), accountProblem);
  });

  it('presigned requests', async () => {
    const url = await getSignedUrl(
      client(credential),
      new GetObjectCommand({ Bucket: 'suspended-public', Key: 'k' }),
    );
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: url.slice(gateway.s3Url.length) });
    expect(describeRawError(response)).toMatchObject({ status: 403, code: 'AccountProblem' });
  });

  it('public-bucket reads', async () => {
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/suspended-public/k',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect(describeRawError(response)).toMatchObject({ status: 403, code: 'AccountProblem' });
  });

  it('a credential issued while suspended', async () => {
    const fresh = await createCredential(gateway, { organisationId });
    await expectS3Error(
      client(fresh).send(new GetObjectCommand({ Bucket: 'suspended-public', Key: 'k' })),
      accountProblem,
    );
  });
});

describe('operations the endpoint does not offer', () => {
  it('bucket-level writes: MethodNotAllowed 405', async () => {
    const writes = [
      () => s3.send(new CreateBucketCommand({ Bucket: 'brand-new' })),
      () => s3.send(new DeleteBucketCommand({ Bucket: 'mine' })),
      () =>
        s3.send(
          new PutBucketCorsCommand({
            Bucket: 'mine',
            CORSConfiguration: { CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'] }] },
          }),
        ),
      () => s3.send(new PutBucketPolicyCommand({ Bucket: 'mine', Policy: '{}' })),
      () =>
        s3.send(
          new PutBucketLifecycleConfigurationCommand({
            Bucket: 'mine',
            LifecycleConfiguration: {
              Rules: [{ ID: 'x', Status: 'Enabled', Filter: { Prefix: '' }, Expiration: { Days: 1 } }],
            },
          }),
        ),
      () =>
        s3.send(
          new PutBucketWebsiteCommand({
            Bucket: 'mine',
            WebsiteConfiguration: { IndexDocument: { Suffix: 'i.html' } },
          }),
        ),
      () =>
        s3.send(
          new PutBucketReplicationCommand({
            Bucket: 'mine',
            ReplicationConfiguration: {
              Role: 'arn:aws:iam::1:role/r',
              Rules: [{ Status: 'Enabled', Destination: { Bucket: 'arn:aws:s3:::x' } }],
            },
          }),
        ),
    ];
    for (const write of writes) {
      await expectS3Error(write(), {
        code: 'MethodNotAllowed',
        status: 405,
        message: S3_ERRORS.MethodNotAllowed.message,
      });
    }
  });

  it('an operation not offered: NotImplemented 501', async () => {
    for (const call of [
      () => s3.send(new ListObjectVersionsCommand({ Bucket: 'mine' })),
      () => s3.send(new GetObjectRetentionCommand({ Bucket: 'mine', Key: 'existing.txt' })),
    ]) {
      await expectS3Error(call(), {
        code: 'NotImplemented',
        status: 501,
        message: S3_ERRORS.OperationNotImplemented.message,
      });
    }
  });

  it('per-chunk signed streaming: NotImplemented 501', async () => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path: '/mine/signed-streaming.txt',
      payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '5' },
    });
    const response = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/mine/signed-streaming.txt',
      headers,
      body: '5;chunk-signature=00\r\nhello\r\n0;chunk-signature=00\r\n\r\n',
    });
    expect(describeRawError(response)).toEqual({
      status: 501,
      code: 'NotImplemented',
      message: S3_ERRORS.SignedStreamingNotImplemented.message,
      requestIdMatches: true,
    });
  });

  it('a non-STANDARD storage class: NotImplemented 501', async () => {
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: 'mine', Key: 'cold.txt', Body: 'brr', StorageClass: 'GLACIER' }),
      ),
      { code: 'NotImplemented', status: 501, message: S3_ERRORS.StorageClassNotImplemented.message },
    );
    const standard = await s3.send(
      new PutObjectCommand({ Bucket: 'mine', Key: 'warm.txt', Body: 'ok', StorageClass: 'STANDARD' }),
    );
    expect(standard.$metadata.httpStatusCode).toBe(200);
  });
});

describe('bans', () => {
  it('conditional GETs: InvalidRequest 400', async () => {
    for (const condition of [
      { IfNoneMatch: '"abc"' },
      { IfMatch: '"abc"' },
      { IfModifiedSince: new Date(0) },
    ]) {
      await expectS3Error(
        s3.send(new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt', ...condition })),
        {
          code: 'InvalidRequest',
          status: 400,
          message: S3_ERRORS.ConditionalReadRefused.message,
        },
      );
    }
  });

  it('keys with dot segments, also percent-encoded: SignatureDoesNotMatch 403, nothing stored', async () => {
    for (const path of [
      '/mine/a/../b.txt',
      '/mine/a/%2E%2E/b.txt',
      '/mine/%2e/b.txt',
      '/mine/..',
      '/mine/x/.',
    ]) {
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path,
        payloadHash: sha256Hex('dots'),
      });
      const response = await sendRaw(gateway.s3Url, { method: 'PUT', target: path, headers, body: 'dots' });
      expect(describeRawError(response)).toEqual({
        status: 403,
        code: 'SignatureDoesNotMatch',
        message: S3_ERRORS.SignatureDoesNotMatch.message,
        requestIdMatches: true,
      });
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'mine' }));
    expect(listed.Contents?.map((object) => object.Key)).not.toContain('b.txt');
    const metrics = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_s3_refusals_total\{reason="ban"\} [1-9]/);
  });
});

describe('copy sources (decisions.md)', () => {
  it('malformed, incomplete or dot-segment sources: InvalidArgument 400 before anything is forwarded', async () => {
    for (const CopySource of [
      'mine/bad%zzkey',
      'mine',
      'mine/',
      '/mine',
      'mine/a/../existing.txt',
      'mine/%2E%2E/x',
    ]) {
      await expectS3Error(s3.send(new CopyObjectCommand({ Bucket: 'mine', Key: 'target', CopySource })), {
        code: 'InvalidArgument',
        status: 400,
        message: S3_ERRORS.InvalidCopySource.message,
      });
    }
  });

  it('a missing source: NoSuchKey 404, for CopyObject and UploadPartCopy', async () => {
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: 'mine', Key: 'target', CopySource: 'mine/not-there' })),
      { code: 'NoSuchKey', status: 404, message: S3_ERRORS.NoSuchKey.message },
    );
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    await expectS3Error(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: 'mine',
          Key: 'assembled',
          UploadId: upload.UploadId,
          PartNumber: 1,
          CopySource: 'mine/not-there',
        }),
      ),
      { code: 'NoSuchKey', status: 404 },
    );
  });

  it('UploadPartCopy from a key holding "%": NotImplemented 501, even when it exists (it aborts Ceph RGW 16.2)', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'mine', Key: '100%/real', Body: 'percent' }));
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    for (const CopySource of ['mine/100%25/real', 'mine/100%25-missing']) {
      await expectS3Error(
        s3.send(
          new UploadPartCopyCommand({
            Bucket: 'mine',
            Key: 'assembled',
            UploadId: upload.UploadId,
            PartNumber: 1,
            CopySource,
          }),
        ),
        { code: 'NotImplemented', status: 501, message: S3_ERRORS.UploadPartCopyPercentKey.message },
      );
    }
  });

  it("a source in another organisation's bucket or outside the scope: AccessDenied", async () => {
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: 'mine', Key: 'stolen', CopySource: 'theirs/anything' })),
      { code: 'AccessDenied', status: 403, message: BUCKET_DENIED },
    );
    const scoped = client(
      await createCredential(gateway, { scope: { buckets: ['also-mine'], level: 'read-write' } }),
    );
    await expectS3Error(
      scoped.send(
        new CopyObjectCommand({ Bucket: 'also-mine', Key: 'copied', CopySource: 'mine/existing.txt' }),
      ),
      { code: 'AccessDenied', status: 403, message: BUCKET_DENIED },
    );
  });
});
