/**
 * The reads real tools send about a bucket: forwarded under the scope's read permission, or
 * answered from the gateway's own records where it owns the truth (CORS rules, ACL); and what the
 * endpoint does not offer, refused with the reason.
 */
import {
  DeleteBucketMetadataConfigurationCommand,
  GetBucketAbacCommand,
  GetBucketMetadataConfigurationCommand,
  GetObjectAnnotationCommand,
  GetObjectAttributesCommand,
  ListObjectAnnotationsCommand,
  PutBucketAbacCommand,
  PutObjectCommand,
  UpdateBucketMetadataJournalTableConfigurationCommand,
  UpdateObjectEncryptionCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket, createCredential, type TestCredential } from '../../support/s3/fixtures.js';
import { describeRawError, queryString, sendRaw, signedHeaders } from '../../support/s3/raw-requests.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

let backend: RecordingBackend;
let gateway: TestGateway;
let reader: TestCredential;

beforeAll(async () => {
  backend = await startRecordingBackend();
  gateway = await startTestGateway(backend.env);
  await createBucket(gateway, 'reads-private');
  await createBucket(gateway, 'reads-public', {
    public: true,
    cors: [
      {
        allowedOrigins: ['https://app.example'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 600,
      },
    ],
  });
  reader = await createCredential(gateway, {
    scope: { buckets: ['reads-private', 'reads-public'], level: 'read-only' },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await backend?.stop();
});

async function get(path: string, query: Record<string, string>, credential = reader) {
  const headers = await signedHeaders({
    credential,
    method: 'GET',
    baseUrl: gateway.s3Url,
    path,
    query,
    payloadHash: EMPTY_SHA256,
  });
  return sendRaw(gateway.s3Url, { method: 'GET', target: `${path}${queryString(query)}`, headers });
}

describe('bucket reads', () => {
  it.each([
    ['versions', 'ListObjectVersions'],
    ['versioning', 'GetBucketVersioning'],
    ['policy', 'GetBucketPolicy'],
    ['tagging', 'GetBucketTagging'],
    ['lifecycle', 'GetBucketLifecycleConfiguration'],
    ['publicAccessBlock', 'GetPublicAccessBlock'],
    ['policyStatus', 'GetBucketPolicyStatus'],
    ['notification', 'GetBucketNotificationConfiguration'],
    ['logging', 'GetBucketLogging'],
    ['website', 'GetBucketWebsite'],
    ['requestPayment', 'GetBucketRequestPayment'],
    ['replication', 'GetBucketReplication'],
    ['object-lock', 'GetObjectLockConfiguration'],
    ['uploads', 'ListMultipartUploads'],
  ])(
    'forwards ?%s (%s) for a read-only key, re-signed, and relays what the store answers',
    async (subresource) => {
      const before = backend.requests.length;
      const answer = await get('/reads-private', { [subresource]: '' });
      const forwarded = backend.requests.slice(before);
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0]).toMatchObject({ method: 'GET', signatureValid: true });
      expect(forwarded[0]?.target).toBe(`/reads-private?${subresource}=`);
      // The store's own answer reaches the client (s3rver answers most of these with an error of
      // its own; the e2e suite checks Ceph RGW's exact answers), an error always with a message.
      expect(answer.status).toBe(forwarded[0]?.status);
      if (answer.status >= 300) expect(describeRawError(answer).message).toMatch(/\S/);
    },
  );

  it('answers the configuration reads that cannot have been configured, as S3 answers them, forwarding none', async () => {
    const before = backend.requests.length;
    expect(describeRawError(await get('/reads-private', { encryption: '' }))).toEqual({
      status: 404,
      code: 'ServerSideEncryptionConfigurationNotFoundError',
      message: 'The server side encryption configuration was not found.',
      requestIdMatches: true,
    });
    expect(describeRawError(await get('/reads-private', { ownershipControls: '' }))).toEqual({
      status: 404,
      code: 'OwnershipControlsNotFoundError',
      message: 'The bucket ownership controls were not found.',
      requestIdMatches: true,
    });
    const accelerate = await get('/reads-private', { accelerate: '' });
    expect([accelerate.status, accelerate.body]).toEqual([
      200,
      '<?xml version="1.0" encoding="UTF-8"?><AccelerateConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>',
    ]);
    // Another organisation's bucket or a key outside the scope hears the scope refusal first.
    const outsider = await createCredential(gateway, {
      scope: { buckets: ['elsewhere'], level: 'read-only' },
    });
    expect(describeRawError(await get('/reads-private', { encryption: '' }, outsider))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(backend.requests.length).toBe(before);
  });

  it('answers GetBucketCors from the control plane rules, and NoSuchCORSConfiguration without any', async () => {
    const before = backend.requests.length;
    const rules = await get('/reads-public', { cors: '' });
    expect(rules.status).toBe(200);
    expect(rules.body).toContain('<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">');
    expect(rules.body).toContain(
      '<CORSRule><AllowedHeader>*</AllowedHeader><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>' +
        '<AllowedOrigin>https://app.example</AllowedOrigin><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>',
    );
    const none = await get('/reads-private', { cors: '' });
    expect(describeRawError(none)).toEqual({
      status: 404,
      code: 'NoSuchCORSConfiguration',
      message: 'The CORS configuration does not exist.',
      requestIdMatches: true,
    });
    expect(backend.requests.length).toBe(before);
  });

  it("answers GetBucketAcl with the organisation's full control, and public read for a public bucket", async () => {
    const before = backend.requests.length;
    const privateAcl = await get('/reads-private', { acl: '' });
    expect(privateAcl.status).toBe(200);
    expect(privateAcl.body).toContain('<Permission>FULL_CONTROL</Permission>');
    expect(privateAcl.body).not.toContain('AllUsers');
    const publicAcl = await get('/reads-public', { acl: '' });
    expect(publicAcl.body).toContain(
      '<Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Group"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission>',
    );
    expect(backend.requests.length).toBe(before);
  });

  it('answers GetObjectAttributes from a HEAD of the object at the store', async () => {
    const writer = pathStyleClient(gateway);
    await writer.send(
      new PutObjectCommand({ Bucket: 'reads-private', Key: 'sized.txt', Body: 'twelve bytes' }),
    );
    const client = pathStyleClient(gateway, reader);
    const attributes = await client.send(
      new GetObjectAttributesCommand({
        Bucket: 'reads-private',
        Key: 'sized.txt',
        ObjectAttributes: ['ETag', 'ObjectSize', 'StorageClass'],
      }),
    );
    expect(attributes).toMatchObject({ ObjectSize: 12, StorageClass: 'STANDARD' });
    expect(attributes.ETag).toMatch(/^[0-9a-f]{32}$/);
    expect(attributes.LastModified).toBeInstanceOf(Date);
    await expectS3Error(
      client.send(
        new GetObjectAttributesCommand({
          Bucket: 'reads-private',
          Key: 'missing.txt',
          ObjectAttributes: ['ETag'],
        }),
      ),
      { code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' },
    );
    const unasked = await get('/reads-private/sized.txt', { attributes: '' });
    expect(describeRawError(unasked)).toMatchObject({ status: 400, code: 'InvalidArgument' });
  });

  it('gives an anonymous reader of a public bucket the objects as they are now, never a version', async () => {
    await pathStyleClient(gateway).send(
      new PutObjectCommand({ Bucket: 'reads-public', Key: 'shown.txt', Body: 'for everyone' }),
    );
    const anonymous = (method: string, target: string) =>
      sendRaw(gateway.s3Url, { method, target, headers: { 'user-agent': 'curl/8.5.0' } });
    const current = await anonymous('GET', '/reads-public/shown.txt');
    expect([current.status, current.body]).toEqual([200, 'for everyone']);
    const before = backend.requests.length;
    for (const method of ['GET', 'HEAD']) {
      const version = await anonymous(
        method,
        '/reads-public/shown.txt?versionId=3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY',
      );
      expect(version.status, method).toBe(403);
      if (method === 'GET') {
        expect(describeRawError(version)).toEqual({
          status: 403,
          code: 'AccessDenied',
          message: 'Access Denied',
          requestIdMatches: true,
        });
      }
    }
    const nullVersion = await anonymous('GET', '/reads-public/shown.txt?versionId=null');
    expect(describeRawError(nullVersion)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(backend.requests.length).toBe(before);
    // A key of the organisation still reads versions of the same bucket.
    const signed = await get('/reads-public/shown.txt', { versionId: 'null' });
    expect(signed.status).not.toBe(403);
    expect(backend.requests.length).toBe(before + 1);
  });

  it('lets only signed reads of a public bucket override the answer headers (response-*), as S3 does', async () => {
    await pathStyleClient(gateway).send(
      new PutObjectCommand({ Bucket: 'reads-public', Key: 'named.txt', Body: 'attachment' }),
    );
    const before = backend.requests.length;
    const anonymous = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/reads-public/named.txt?response-content-disposition=attachment%3B%20filename%3Devil.html',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect(describeRawError(anonymous)).toEqual({
      status: 400,
      code: 'InvalidRequest',
      message: 'Request specific response headers cannot be used for anonymous GET requests.',
      requestIdMatches: true,
    });
    expect(backend.requests.length).toBe(before);
    const plain = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/reads-public/named.txt',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect([plain.status, plain.body]).toEqual([200, 'attachment']);
    const signed = await get('/reads-public/named.txt', { 'response-content-disposition': 'attachment' });
    expect(signed.status).toBe(200);
  });

  it('keeps bucket reads to keys whose scope covers the bucket', async () => {
    const outsider = await createCredential(gateway, {
      scope: { buckets: ['elsewhere'], level: 'read-only' },
    });
    expect(describeRawError(await get('/reads-private', { versions: '' }, outsider))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: 'Access to this bucket is denied.',
    });
  });

  it('refuses what it does not offer with 501, naming the operation and the reason', async () => {
    expect(describeRawError(await get('/reads-private', { analytics: '' }))).toEqual({
      status: 501,
      code: 'NotImplemented',
      message:
        'ListBucketAnalyticsConfigurations is not offered by this gateway: an Amazon S3 analytics, inventory or tiering feature that Ceph RGW and MinIO-compatible stores do not have.',
      requestIdMatches: true,
    });
  });

  it('refuses the newest SDK operations as the catalogue says, naming them: none reaches the store', async () => {
    const before = backend.requests.length;
    const client = pathStyleClient(gateway);
    const Bucket = 'reads-private';
    const notOffered = [
      {
        send: () => client.send(new GetBucketAbacCommand({ Bucket })),
        message:
          "GetBucketAbac is not offered by this gateway: attribute-based access control is evaluated by AWS IAM; here a credential's scope decides what it may do.",
      },
      {
        send: () => client.send(new GetBucketMetadataConfigurationCommand({ Bucket })),
        message:
          'GetBucketMetadataConfiguration is not offered by this gateway: S3 Metadata tables live in AWS, not in the object store.',
      },
      {
        send: () =>
          client.send(new GetObjectAnnotationCommand({ Bucket, Key: 'k', AnnotationName: 'colour' })),
        message:
          'GetObjectAnnotation is not offered by this gateway: object annotations are an Amazon S3 feature that Ceph RGW and MinIO-compatible stores do not have.',
      },
      {
        send: () =>
          client.send(new ListObjectAnnotationsCommand({ Bucket, Key: 'k', MaxAnnotationResults: 5 })),
        message:
          'ListObjectAnnotations is not offered by this gateway: object annotations are an Amazon S3 feature that Ceph RGW and MinIO-compatible stores do not have.',
      },
      {
        send: () =>
          client.send(
            new UpdateObjectEncryptionCommand({
              Bucket,
              Key: 'k',
              ObjectEncryption: { SSEKMS: { KMSKeyArn: 'arn:aws:kms:us-east-1:1:key/k' } },
            }),
          ),
        message:
          "UpdateObjectEncryption is not offered by this gateway: it re-keys an object's SSE-KMS encryption with AWS KMS keys, which neither Ceph RGW nor this gateway has.",
      },
    ];
    for (const { send, message } of notOffered) {
      await expectS3Error(send(), { code: 'NotImplemented', status: 501, message });
    }
    for (const send of [
      () => client.send(new PutBucketAbacCommand({ Bucket, AbacStatus: { Status: 'Enabled' } })),
      () =>
        client.send(
          new UpdateBucketMetadataJournalTableConfigurationCommand({
            Bucket,
            JournalTableConfiguration: { RecordExpiration: { Expiration: 'DISABLED' } },
          }),
        ),
      () => client.send(new DeleteBucketMetadataConfigurationCommand({ Bucket })),
    ]) {
      await expectS3Error(send(), { code: 'MethodNotAllowed', status: 405 });
    }
    expect(backend.requests.length).toBe(before);
  });
});
