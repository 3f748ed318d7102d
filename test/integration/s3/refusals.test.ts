/**
 * One test per refusal rule of the storage endpoint (service-spec §3, §4, §5, §7; decisions.md),
 * each asserting the exact S3 code, HTTP status and message.
 */
import net from 'node:net';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectTorrentCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  DeleteBucketCorsCommand,
  DeleteBucketLifecycleCommand,
  DeleteBucketPolicyCommand,
  DeleteBucketReplicationCommand,
  DeleteBucketTaggingCommand,
  DeleteBucketWebsiteCommand,
  HeadObjectCommand,
  PutBucketAclCommand,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketLoggingCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutBucketReplicationCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutBucketWebsiteCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutObjectRetentionCommand,
  PutObjectLockConfigurationCommand,
  PutPublicAccessBlockCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsChunkedBody } from '../../support/aws-chunked.js';
import { eventually } from '../../support/eventually.js';
import { metricDeltas, scrapeMetrics } from '../../support/metrics.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  createBucket,
  createCredential,
  createOrganisation,
  type TestCredential,
} from '../../support/s3/fixtures.js';
import {
  describeRawError,
  parseS3Error,
  queryString,
  sendOnSocket,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';

const EXPIRED_KEY = 'This access key has expired.';
const BUCKET_DENIED = 'Access to this bucket is denied.';
const PRESIGN_EXPIRED = 'The presigned URL has expired.';
const INCOMPLETE_SIGNATURE = 'The request signature is incomplete.';
const CONTROL_PLANE_URL = 'https://control.example.test';
/** The 405 of a bucket-level write points at the control plane (GATEWAY_CONTROL_PUBLIC_URL) and its endpoints. */
const BUCKET_WRITE_REFUSED =
  'The specified method is not allowed against this resource. Buckets and their configuration are managed through the control plane at https://control.example.test: POST /v1/buckets creates a bucket, PUT /v1/buckets/{bucket}/cors sets its CORS rules.';
const SIGNATURE_V2_REFUSED =
  "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256: this endpoint accepts only Signature Version 4 (boto3: Config(signature_version='s3v4'); aws-cli: s3.signature_version = s3v4).";
const EMPTY_SHA256 = sha256Hex('');

let gateway: TestGateway;
let s3: S3Client;
let otherOrganisationId: string;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_CONTROL_PUBLIC_URL: CONTROL_PLANE_URL });
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
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    });
  });

  it('unknown key: InvalidAccessKeyId 403', async () => {
    await expectS3Error(
      getExisting(client({ accessKeyId: 'GWK1AAAAAAAAAAAAAAAA', secret: 'x'.repeat(40) })),
      {
        code: 'InvalidAccessKeyId',
        status: 403,
        message: 'The AWS Access Key Id you provided does not exist in our records.',
      },
    );
  });

  it('revoked key: InvalidAccessKeyId 403 from the next request on', async () => {
    const credential = await createCredential(gateway);
    await getExisting(client(credential));
    await gateway.gateway.context.store.credentials.delete(credential.accessKeyId);
    await expectS3Error(getExisting(client(credential)), {
      code: 'InvalidAccessKeyId',
      status: 403,
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    });
  });

  it('a signed header changed after signing (by a proxy): SignatureDoesNotMatch 403', async () => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path: '/mine/existing.txt',
      headers: { 'x-amz-meta-colour': 'blue', range: 'bytes=0-1' },
      payloadHash: EMPTY_SHA256,
    });
    for (const [name, value] of [
      ['x-amz-meta-colour', 'red'],
      ['range', 'bytes=0-2'],
    ] as const) {
      const changed = { ...headers, [name]: value };
      const response = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: '/mine/existing.txt',
        headers: changed,
      });
      expect(describeRawError(response)).toEqual({
        status: 403,
        code: 'SignatureDoesNotMatch',
        message:
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        requestIdMatches: true,
      });
    }
    const unchanged = await sendRaw(gateway.s3Url, { method: 'GET', target: '/mine/existing.txt', headers });
    expect(unchanged.status).toBe(206);
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

  const signedGetAt = async (offsetMinutes: number) => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path: '/mine/existing.txt',
      payloadHash: EMPTY_SHA256,
      signingDate: new Date(Date.now() + offsetMinutes * 60_000),
    });
    return sendRaw(gateway.s3Url, { method: 'GET', target: '/mine/existing.txt', headers });
  };

  it('clock more than fifteen minutes behind or ahead: RequestTimeTooSkewed 403', async () => {
    for (const offset of [-16, 16, -20, 60]) {
      expect(describeRawError(await signedGetAt(offset)), `${offset} minutes`).toEqual({
        status: 403,
        code: 'RequestTimeTooSkewed',
        message: "The difference between the request time and the server's time is too large.",
        requestIdMatches: true,
      });
    }
  });

  const signedForRegion = async (region: string) => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path: '/mine/existing.txt',
      payloadHash: EMPTY_SHA256,
      region,
    });
    return sendRaw(gateway.s3Url, { method: 'GET', target: '/mine/existing.txt', headers });
  };

  it.each(['us-east-1', 'auto'])('signing region %s: served', async (region) => {
    expect((await signedForRegion(region)).status).toBe(200);
  });

  it('any other signing region: AuthorizationHeaderMalformed 400 naming the accepted ones', async () => {
    const wrongRegion = await signedForRegion('eu-west-1');
    expect(describeRawError(wrongRegion)).toEqual({
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message:
        "The authorization header is malformed; the region 'eu-west-1' is wrong; expecting 'us-east-1' (accepted: 'us-east-1', 'auto').",
      requestIdMatches: true,
    });
    // S3's <Region> element: boto3 re-signs for the region it names.
    expect(wrongRegion.body).toContain('<Region>us-east-1</Region>');
  });

  it('a presigned URL missing a part, or hoisting its payload hash twice: AuthorizationQueryParametersError', async () => {
    const url = new URL(
      await getSignedUrl(
        pathStyleClient(gateway),
        new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }),
        {
          expiresIn: 60,
        },
      ),
    );
    const withoutSignature = new URL(url);
    withoutSignature.searchParams.delete('X-Amz-Signature');
    // Two spellings of one parameter: which of them was signed is ambiguous.
    const twoHashes = new URL(url);
    twoHashes.searchParams.set('x-amz-content-sha256', 'UNSIGNED-PAYLOAD');
    twoHashes.searchParams.set('X-Amz-Content-Sha256', 'UNSIGNED-PAYLOAD');
    for (const target of [withoutSignature, twoHashes]) {
      const response = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: `${target.pathname}${target.search}`,
      });
      expect(describeRawError(response), target.search).toEqual({
        status: 400,
        code: 'AuthorizationQueryParametersError',
        message:
          'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
        requestIdMatches: true,
      });
    }
  });

  it('a presigned URL for a region the endpoint does not accept names the accepted ones', async () => {
    const url = await getSignedUrl(
      pathStyleClient(gateway, gateway.credential, { region: 'eu-west-1' }),
      new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }),
      { expiresIn: 60 },
    );
    const parsed = new URL(url);
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: `${parsed.pathname}${parsed.search}`,
    });
    expect(describeRawError(response)).toEqual({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message:
        "Error parsing the X-Amz-Credential parameter; the region 'eu-west-1' is wrong; expecting 'us-east-1' (accepted: 'us-east-1', 'auto').",
      requestIdMatches: true,
    });
  });

  it('Signature Version 2, in the header or a presigned URL: InvalidRequest 400 saying only SigV4 is accepted', async () => {
    const header = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/mine/existing.txt',
      headers: {
        authorization: `AWS ${gateway.credential.accessKeyId}:frJIUN8DYpKDtOLCwo//yllqDzg=`,
        date: new Date().toUTCString(),
      },
    });
    const presigned = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: `/public-mine/open.txt?AWSAccessKeyId=${gateway.credential.accessKeyId}&Expires=2000000000&Signature=frJIUN8DYpKDtOLCwo%2F%2FyllqDzg%3D`,
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    for (const response of [header, presigned]) {
      expect(describeRawError(response)).toEqual({
        status: 400,
        code: 'InvalidRequest',
        message: SIGNATURE_V2_REFUSED,
        requestIdMatches: true,
      });
    }
  });

  it('clock within fifteen minutes either way: served', async () => {
    for (const offset of [-14.5, 14.5]) {
      const response = await signedGetAt(offset);
      expect({ offset, status: response.status, body: response.body }).toEqual({
        offset,
        status: 200,
        body: 'here',
      });
    }
  });

  it('malformed Authorization: AccessDenied "The request signature is incomplete."', async () => {
    for (const authorization of [
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request',
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1, SignedHeaders=host, Signature=abc',
      'FANCY-ALGORITHM Credential=x, SignedHeaders=host, Signature=abc',
      `AWS4-HMAC-SHA256 SignedHeaders=host, Signature=${'0'.repeat(64)}`,
      'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=',
      'AWS4-HMAC-SHA256',
      // A component given twice, or one SigV4 does not have.
      `AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
      `AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}, Extra=1`,
      // Present but empty: still a signature attempt, not an anonymous request.
      '',
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
    const anonymous = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/public-mine/never.txt',
      headers: { 'user-agent': 'curl/8.5.0' },
      body: Buffer.alloc(64 * 1024, 1),
      expectContinue: true,
    });
    expect({ status: anonymous.status, continued: anonymous.continued }).toEqual({
      status: 403,
      continued: false,
    });
    // Correctly signed, but by a read-only key: authorisation refuses it before 100 Continue too.
    const readOnly = await createCredential(gateway, { scope: { buckets: ['*'], level: 'read-only' } });
    const body = Buffer.alloc(64 * 1024, 3);
    const unauthorised = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/mine/never.txt',
      headers: await signedHeaders({
        credential: readOnly,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path: '/mine/never.txt',
        payloadHash: sha256Hex(body),
      }),
      body,
      expectContinue: true,
    });
    expect({ ...describeRawError(unauthorised), continued: unauthorised.continued }).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: BUCKET_DENIED,
      requestIdMatches: true,
      continued: false,
    });
  });

  it('an authenticated, authorised upload gets 100 Continue and is stored', async () => {
    const body = Buffer.alloc(64 * 1024, 2);
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path: '/mine/continued.bin',
      payloadHash: sha256Hex(body),
    });
    const response = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/mine/continued.bin',
      headers,
      body,
      expectContinue: true,
    });
    expect({ status: response.status, continued: response.continued }).toEqual({
      status: 200,
      continued: true,
    });
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'mine', Key: 'continued.bin' }));
    expect(Buffer.from(await stored.Body!.transformToByteArray())).toEqual(body);
  });
});

describe('presigned URLs', () => {
  it('elapsed lifetime: AccessDenied "The presigned URL has expired."', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 10 * 60_000),
    });
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: url.slice(gateway.s3Url.length) });
    expect(describeRawError(response)).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: PRESIGN_EXPIRED,
      requestIdMatches: true,
    });
  });

  it('a lifetime of exactly seven days works, also when signed six days ago', async () => {
    for (const signingDate of [new Date(), new Date(Date.now() - 6 * 86_400_000)]) {
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
        expiresIn: 604_800,
        signingDate,
      });
      expect(url).toContain('X-Amz-Expires=604800');
      const response = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: url.slice(gateway.s3Url.length),
      });
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: 'here' });
    }
  });

  it('lifetime over seven days: AccessDenied before the signature is checked', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
      expiresIn: 600,
    });
    // The edited URL no longer matches its signature: only a check made before the signature's says this.
    const tooLong = url.slice(gateway.s3Url.length).replace('X-Amz-Expires=600', 'X-Amz-Expires=604801');
    const response = await sendRaw(gateway.s3Url, { method: 'GET', target: tooLong });
    expect(describeRawError(response)).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'X-Amz-Expires must be at most 604800 seconds (7 days).',
      requestIdMatches: true,
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

  it('ListBuckets by a key that may not read: AccessDenied "Access to this bucket is denied."', async () => {
    const writeOnly = client(
      await createCredential(gateway, { scope: { buckets: ['*'], methods: ['PUT'] } }),
    );
    await expectS3Error(writeOnly.send(new ListBucketsCommand({})), {
      code: 'AccessDenied',
      status: 403,
      message: BUCKET_DENIED,
    });
  });

  it('no such bucket: NoSuchBucket 404', async () => {
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: 'no-such-bucket' })), {
      code: 'NoSuchBucket',
      status: 404,
      message: 'The specified bucket does not exist.',
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

  it('may read objects of a public bucket with GET and HEAD', async () => {
    const response = await anonymous('/public-mine/open.txt');
    expect(response.status).toBe(200);
    expect(response.body).toBe('open data');
    const head = await anonymous('/public-mine/open.txt', 'HEAD');
    expect({ status: head.status, length: head.headers['content-length'] }).toEqual({
      status: 200,
      length: '9',
    });
    expect(describeRawError(await anonymous('/public-mine/missing.txt'))).toMatchObject({
      status: 404,
      code: 'NoSuchKey',
    });
    expect((await anonymous('/public-mine/missing.txt', 'HEAD')).status).toBe(404);
  });

  it('may not read a private bucket, list a public one, write, or list buckets', async () => {
    for (const [target, method] of [
      ['/mine/existing.txt', 'GET'],
      ['/mine/existing.txt', 'HEAD'],
      ['/public-mine', 'GET'],
      ['/public-mine', 'HEAD'],
      ['/public-mine/new.txt', 'PUT'],
      ['/public-mine/open.txt', 'DELETE'],
      ['/public-mine/open.txt?acl', 'GET'],
      ['/public-mine/open.txt?tagging', 'GET'],
      ['/public-mine/open.txt?tagging', 'PUT'],
      ['/public-mine/upload.bin?uploads', 'POST'],
      ['/public-mine?delete', 'POST'],
      ['/public-mine?uploads', 'GET'],
      // Bucket reads are for keys: anonymous callers read a public bucket's objects only.
      ['/public-mine?versions', 'GET'],
      ['/public-mine?acl', 'GET'],
      ['/public-mine?cors', 'GET'],
      // No organisation to list the buckets of (Ceph RGW answers an empty list; docs/s3-compatibility.md).
      ['/', 'GET'],
    ] as const) {
      const response = await anonymous(target, method, method === 'PUT' ? 'data' : undefined);
      const expected =
        method === 'HEAD'
          ? { status: 403, code: undefined, message: undefined, requestIdMatches: false }
          : {
              status: 403,
              code: 'AccessDenied',
              message: 'Access Denied',
              requestIdMatches: true,
            };
      expect(describeRawError(response), `${method} ${target}`).toEqual(expected);
    }
    expect((await anonymous('/public-mine/open.txt')).body).toBe('open data');
  });

  it('HEAD answers carry no body, whatever the error', async () => {
    const host = new URL(gateway.s3Url).host;
    for (const [target, userAgent, status] of [
      ['/mine/existing.txt', 'curl/8.5.0', '403 Forbidden'],
      ['/public-mine/missing.txt', 'curl/8.5.0', '404 Not Found'],
      ['/no-such-bucket/x', 'curl/8.5.0', '404 Not Found'],
      ['/public-mine/x?versions', 'curl/8.5.0', '501 Not Implemented'],
      // No User-Agent: the bot-protection challenge, an HTML page for GET.
      ['/public-mine/open.txt', null, '403 Forbidden'],
    ] as const) {
      const agent = userAgent === null ? '' : `User-Agent: ${userAgent}\r\n`;
      const answer = await sendOnSocket(
        gateway.s3Url,
        `HEAD ${target} HTTP/1.1\r\nHost: ${host}\r\n${agent}Connection: close\r\n\r\n`,
      );
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, target).toMatch(new RegExp(`^HTTP/1\\.1 ${status}\r\n`));
      expect(body, target).toBe('');
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
    message: 'There is a problem with your account that prevents the operation from completing successfully.',
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
    expect(describeRawError(response)).toEqual({ ...accountProblem, requestIdMatches: true });
  });

  it('public-bucket reads, GET and HEAD', async () => {
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/suspended-public/k',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect(describeRawError(response)).toEqual({ ...accountProblem, requestIdMatches: true });
    const head = await sendRaw(gateway.s3Url, {
      method: 'HEAD',
      target: '/suspended-public/k',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect(head.status).toBe(403);
  });

  it('operations the endpoint refuses anyway: AccountProblem first, signed and anonymous', async () => {
    await expectS3Error(
      client(credential).send(new PutBucketPolicyCommand({ Bucket: 'suspended-public', Policy: '{}' })),
      accountProblem,
    );
    await expectS3Error(
      client(credential).send(new GetObjectTorrentCommand({ Bucket: 'suspended-public', Key: 'k' })),
      accountProblem,
    );
    const anonymous = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/suspended-public/k?torrent',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect(describeRawError(anonymous)).toEqual({ ...accountProblem, requestIdMatches: true });
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
        message: BUCKET_WRITE_REFUSED,
      });
    }
  });

  it('every other bucket configuration write or delete: MethodNotAllowed 405', async () => {
    const Bucket = 'mine';
    const commands = [
      new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] } }),
      new DeleteBucketTaggingCommand({ Bucket }),
      new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }),
      new PutBucketEncryptionCommand({
        Bucket,
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      }),
      new PutBucketNotificationConfigurationCommand({ Bucket, NotificationConfiguration: {} }),
      new PutBucketLoggingCommand({ Bucket, BucketLoggingStatus: {} }),
      new PutBucketAclCommand({ Bucket, ACL: 'private' }),
      new PutBucketOwnershipControlsCommand({
        Bucket,
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
      new PutPublicAccessBlockCommand({
        Bucket,
        PublicAccessBlockConfiguration: { BlockPublicAcls: true },
      }),
      new PutObjectLockConfigurationCommand({ Bucket, ObjectLockConfiguration: {} }),
      new DeleteBucketCorsCommand({ Bucket }),
      new DeleteBucketPolicyCommand({ Bucket }),
      new DeleteBucketLifecycleCommand({ Bucket }),
      new DeleteBucketWebsiteCommand({ Bucket }),
      new DeleteBucketReplicationCommand({ Bucket }),
    ];
    for (const command of commands) {
      await expectS3Error(s3.send(command as Parameters<S3Client['send']>[0]), {
        code: 'MethodNotAllowed',
        status: 405,
        message: BUCKET_WRITE_REFUSED,
      });
    }
    // Refused whoever asks: an anonymous caller and a read-only credential hear the same.
    const anonymous = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: '/public-mine?policy',
      headers: { 'user-agent': 'curl/8.5.0' },
      body: '{}',
    });
    expect(describeRawError(anonymous)).toEqual({
      status: 405,
      code: 'MethodNotAllowed',
      message: BUCKET_WRITE_REFUSED,
      requestIdMatches: true,
    });
  });

  it('an operation not offered: NotImplemented 501, naming it and why', async () => {
    await expectS3Error(s3.send(new GetObjectTorrentCommand({ Bucket: 'mine', Key: 'existing.txt' })), {
      code: 'NotImplemented',
      status: 501,
      message: 'GetObjectTorrent is not offered by this gateway: BitTorrent delivery is not offered.',
    });
    await expectS3Error(
      s3.send(
        new PutObjectRetentionCommand({
          Bucket: 'mine',
          Key: 'existing.txt',
          Retention: { Mode: 'GOVERNANCE' },
        }),
      ),
      {
        code: 'NotImplemented',
        status: 501,
        message:
          'PutObjectRetention is not offered by this gateway: object lock needs a bucket created with it, and buckets are created by the control plane without.',
      },
    );
    // Outside the catalogue altogether: the generic answer.
    const unknown = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/mine/existing.txt?no-such-subresource',
      headers: await signedHeaders({
        credential: gateway.credential,
        method: 'GET',
        baseUrl: gateway.s3Url,
        path: '/mine/existing.txt',
        query: { 'no-such-subresource': '' },
        payloadHash: 'UNSIGNED-PAYLOAD',
      }),
    });
    expect(describeRawError(unknown)).toEqual({
      status: 501,
      code: 'NotImplemented',
      message: 'A header or query you provided implies functionality that is not implemented.',
      requestIdMatches: true,
    });
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
      body: awsChunkedBody(Buffer.from('hello'), 5, [], { extension: ';chunk-signature=00' }),
    });
    expect(describeRawError(response)).toEqual({
      status: 501,
      code: 'NotImplemented',
      message:
        'STREAMING-AWS4-HMAC-SHA256-PAYLOAD is not implemented; use UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a signed payload hash.',
      requestIdMatches: true,
    });
  });

  it('a non-STANDARD storage class: NotImplemented 501', async () => {
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: 'mine', Key: 'cold.txt', Body: 'brr', StorageClass: 'GLACIER' }),
      ),
      { code: 'NotImplemented', status: 501, message: 'Only the STANDARD storage class is implemented.' },
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
          message: 'Conditional GET requests (If-Match, If-None-Match, If-Modified-Since) are not supported.',
        },
      );
    }
  });

  it('a presigned GET revalidated as a browser does (an unsigned If-None-Match added): InvalidRequest 400', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'mine', Key: 'existing.txt' }), {
      expiresIn: 600,
    });
    const target = url.slice(gateway.s3Url.length);
    const fresh = await sendRaw(gateway.s3Url, { method: 'GET', target });
    expect({ status: fresh.status, body: fresh.body }).toEqual({ status: 200, body: 'here' });
    const etag = fresh.headers.etag;
    expect(etag).toMatch(/^".+"$/);
    const conditions: Record<string, string>[] = [
      { 'if-none-match': etag as string },
      { 'if-modified-since': new Date().toUTCString() },
    ];
    for (const condition of conditions) {
      const revalidated = await sendRaw(gateway.s3Url, { method: 'GET', target, headers: condition });
      expect(describeRawError(revalidated)).toEqual({
        status: 400,
        code: 'InvalidRequest',
        message: 'Conditional GET requests (If-Match, If-None-Match, If-Modified-Since) are not supported.',
        requestIdMatches: true,
      });
    }
  });

  it('keys with dot segments, also percent-encoded: SignatureDoesNotMatch 403, nothing stored', async () => {
    const bans = 'gateway_s3_refusals_total{reason="ban"}';
    const before = await scrapeMetrics(gateway.metricsUrl);
    const dotted = [
      '/mine/a/../b.txt',
      '/mine/a/%2E%2E/b.txt',
      '/mine/a/%2e%2E/b.txt',
      '/mine/a/.%2e/b.txt',
      '/mine/%2e/b.txt',
      '/mine/%2E',
      '/mine/..%2Falso-mine%2Fb.txt',
      '/mine/..',
      '/mine/x/.',
    ];
    for (const path of dotted) {
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
        message:
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        requestIdMatches: true,
      });
    }
    // Virtual-hosted, the whole path is the key: `..` would climb out of the Host's bucket.
    const virtualHost = `http://mine.${gateway.config.s3.domain}:${new URL(gateway.s3Url).port}`;
    const virtualDotted = ['/../also-mine/b.txt', '/%2E%2E/also-mine/b.txt'];
    for (const path of ['/virtual-ok.txt', ...virtualDotted]) {
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: virtualHost,
        path,
        payloadHash: sha256Hex('dots'),
      });
      const response = await sendRaw(gateway.s3Url, { method: 'PUT', target: path, headers, body: 'dots' });
      // The same signing is good for a key without dot segments.
      if (path === '/virtual-ok.txt') expect(response.status).toBe(200);
      else expect(describeRawError(response)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'mine' }));
    expect(listed.Contents?.map((object) => object.Key)).not.toContain('b.txt');
    const beside = await s3.send(new ListObjectsV2Command({ Bucket: 'also-mine' }));
    expect(beside.KeyCount ?? 0).toBe(0);
    // Every one of them counted as the ban it is, once.
    expect(metricDeltas(before, await scrapeMetrics(gateway.metricsUrl), [bans])).toEqual({
      [bans]: dotted.length + virtualDotted.length,
    });
  });

  it('a key holding NUL, which no S3 XML document can carry: InvalidArgument 400, nothing forwarded', async () => {
    for (const method of ['PUT', 'GET', 'DELETE']) {
      const path = '/mine/nul%00key';
      const headers = await signedHeaders({
        credential: gateway.credential,
        method,
        baseUrl: gateway.s3Url,
        path,
        payloadHash: 'UNSIGNED-PAYLOAD',
      });
      const response = await sendRaw(gateway.s3Url, {
        method,
        target: path,
        headers,
        ...(method === 'PUT' ? { body: 'x' } : {}),
      });
      expect(describeRawError(response)).toEqual({
        status: 400,
        code: 'InvalidArgument',
        message: 'Object keys cannot contain the NUL character (U+0000): no S3 XML document can carry it.',
        requestIdMatches: true,
      });
    }
  });

  it('a dot inside a segment is fine: a.txt, ..a, a.., ...', async () => {
    for (const key of ['a.txt', '..a', 'dir/a..', '...', '.hidden/.x', '%2E%2E%2E']) {
      const path = `/mine/${key}`;
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path,
        payloadHash: sha256Hex(key),
      });
      const response = await sendRaw(gateway.s3Url, { method: 'PUT', target: path, headers, body: key });
      expect({ key, status: response.status }).toEqual({ key, status: 200 });
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'mine' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(
      expect.arrayContaining(['a.txt', '..a', 'dir/a..', '...', '.hidden/.x']),
    );
  });

  it('conditional HEADs are not refused: only GET is', async () => {
    for (const condition of [{ IfNoneMatch: '"another-etag"' }, { IfModifiedSince: new Date(0) }]) {
      const head = await s3.send(
        new HeadObjectCommand({ Bucket: 'mine', Key: 'existing.txt', ...condition }),
      );
      expect(head.$metadata.httpStatusCode).toBe(200);
    }
  });
});

describe('HTTP framing', () => {
  const host = () => new URL(gateway.s3Url).host;
  const statusLine = (answer: string) => answer.split('\r\n', 1)[0];

  const put = (framing: string) =>
    `PUT /public-mine/framed.txt HTTP/1.1\r\nHost: ${host()}\r\nUser-Agent: framing/1\r\n${framing}\r\n`;
  const malformed = { status: 400, code: 'InvalidRequest', message: 'The request is not valid HTTP/1.1.' };
  const unknownMethod = {
    status: 405,
    code: 'MethodNotAllowed',
    message: 'The specified method is not allowed against this resource.',
  };

  it.each([
    {
      what: 'no Host',
      request: () => 'GET /public-mine/open.txt HTTP/1.1\r\nUser-Agent: framing/1\r\n\r\n',
      expected: {
        status: 400,
        code: 'InvalidRequest',
        message: 'Missing required header for this request: Host',
      },
    },
    {
      what: 'Content-Length with Transfer-Encoding',
      request: () => put('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n',
      expected: malformed,
    },
    {
      what: 'an unknown method',
      request: () => `FROB /public-mine/open.txt HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
      expected: unknownMethod,
    },
    // A tunnel request: Node hands it over as a raw socket; it gets the same answer, not silence.
    {
      what: 'CONNECT',
      request: () => `CONNECT backend.internal:7480 HTTP/1.1\r\nHost: backend.internal:7480\r\n\r\n`,
      expected: unknownMethod,
    },
    {
      what: 'huge headers',
      request: () =>
        `GET /public-mine/open.txt HTTP/1.1\r\nHost: ${host()}\r\nUser-Agent: framing/1\r\n` +
        `X-Padding: ${'p'.repeat(20 * 1024)}\r\n\r\n`,
      expected: {
        status: 400,
        code: 'RequestHeaderSectionTooLarge',
        message: 'Your request header section exceeds the maximum allowed size.',
      },
    },
  ])('$what: an S3 error document', async ({ request, expected }) => {
    const answer = await sendOnSocket(gateway.s3Url, request());
    const [head = '', body = ''] = answer.split('\r\n\r\n', 2);
    expect(Number((statusLine(head) ?? '').split(' ')[1])).toBe(expected.status);
    const requestId = /^x-amz-request-id: (.+)$/im.exec(head)?.[1];
    expect(parseS3Error(body)).toEqual({ code: expected.code, message: expected.message, requestId });
  });

  it('a refused upload still arriving in pieces: the body is read to its end, the answer is read, the connection lives on', async () => {
    const socket = net.connect(Number(new URL(gateway.s3Url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const writeFailures: string[] = [];
    socket.on('error', (error) => writeFailures.push(error.message));
    // An anonymous chunked upload to a private bucket, as the SDKs stream unknown-length bodies.
    socket.write(
      `PUT /mine/streamed.bin HTTP/1.1\r\nHost: ${host()}\r\nUser-Agent: repro/1.0\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const piece = `400\r\n${'x'.repeat(1024)}\r\n`;
    socket.write(piece);
    // The refusal is answered while the body is still on its way: the rest follows the answer.
    await eventually('the refusal is answered', () => received.includes('</Error>'));
    for (let rest = 1; rest < 4; rest += 1) {
      await new Promise<void>((resolve, reject) =>
        socket.write(piece, (error) => (error ? reject(error) : resolve())),
      );
    }
    socket.write('0\r\n\r\n');
    const [head = '', body = ''] = received.split('\r\n\r\n', 2);
    expect(statusLine(head)).toBe('HTTP/1.1 403 Forbidden');
    expect(parseS3Error(body)).toMatchObject({ code: 'AccessDenied' });
    expect(head.toLowerCase()).not.toContain('connection: close');
    // The same connection serves the next request.
    received = '';
    socket.write(`GET /_gateway/live HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    await eventually('the next request is answered', () => received.includes('live'));
    expect(writeFailures).toEqual([]);
    socket.destroy();
  });

  it('a method HTTP knows but S3 does not: NotImplemented 501', async () => {
    for (const method of ['PATCH', 'PROPFIND', 'TRACE']) {
      const response = await sendRaw(gateway.s3Url, {
        method,
        target: '/public-mine/open.txt',
        headers: { 'user-agent': 'framing/1' },
      });
      expect(describeRawError(response), method).toEqual({
        status: 501,
        code: 'NotImplemented',
        message: 'A header or query you provided implies functionality that is not implemented.',
        requestIdMatches: true,
      });
    }
  });

  it('a body longer than its Content-Length: the object is the declared bytes, the rest a separate request', async () => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path: '/mine/exact.txt',
      payloadHash: sha256Hex('hello'),
      headers: { 'content-length': '5' },
    });
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const surplus = `DELETE /mine/existing.txt HTTP/1.1\r\nHost: ${host()}\r\nUser-Agent: framing/1\r\nConnection: close\r\n\r\n`;
    const answer = await sendOnSocket(
      gateway.s3Url,
      `PUT /mine/exact.txt HTTP/1.1\r\n${head}\r\nhello${surplus}`,
    );
    // Two answers: the upload, then the surplus read as an unsigned request of its own, refused.
    expect(answer.match(/^HTTP\/1\.1 \d{3}/gm)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 403']);
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'mine', Key: 'exact.txt' }));
    expect(await stored.Body?.transformToString()).toBe('hello');
    expect((await getExisting(s3)).$metadata.httpStatusCode).toBe(200);
  });

  it('escapes what a key holds in the error document it names', async () => {
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/mine/%3C%2FMessage%3E%3CCode%3EOops%3C%2FCode%3E%26',
      headers: { 'user-agent': 'framing/1' },
    });
    expect(describeRawError(response)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(response.body).toContain(
      '<Resource>/mine/&lt;/Message&gt;&lt;Code&gt;Oops&lt;/Code&gt;&amp;</Resource>',
    );
  });
});

describe('query parameters standing for headers', () => {
  it('holding what no header can carry: InvalidArgument 400, never a 500', async () => {
    for (const value of ['a\r\nx-injected: yes', 'snow \u2603']) {
      const query = { 'x-amz-meta-note': value };
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path: '/mine/noted.txt',
        query,
        payloadHash: sha256Hex('n'),
      });
      const response = await sendRaw(gateway.s3Url, {
        method: 'PUT',
        target: `/mine/noted.txt${queryString(query)}`,
        headers,
        body: 'n',
      });
      expect(describeRawError(response), JSON.stringify(value)).toEqual({
        status: 400,
        code: 'InvalidArgument',
        message: 'A query parameter that stands for a header holds characters no header can carry.',
        requestIdMatches: true,
      });
    }
  });
});

describe("ACLs other than the owner's full control (decisions.md)", () => {
  it('a canned ACL or a grant header on an upload or ACL write: NotImplemented 501', async () => {
    const refused = {
      code: 'NotImplemented',
      status: 501,
      message: 'Only a private (owner full control) ACL is implemented.',
    };
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'mine', Key: 'shared.txt', Body: 'x', ACL: 'public-read' })),
      refused,
    );
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: 'mine', Key: 'shared.txt', Body: 'x', GrantRead: 'uri="AllUsers"' }),
      ),
      refused,
    );
    await expectS3Error(
      s3.send(
        new PutObjectAclCommand({ Bucket: 'mine', Key: 'existing.txt', GrantRead: 'id="someone-else"' }),
      ),
      refused,
    );
    const owned = await s3.send(
      new PutObjectCommand({ Bucket: 'mine', Key: 'shared.txt', Body: 'x', ACL: 'private' }),
    );
    expect(owned.$metadata.httpStatusCode).toBe(200);
  });
});

/** UploadPartCopy into part 1 of an upload of mine/assembled. */
const copyPart = (uploadId: string | undefined, CopySource: string) =>
  s3.send(
    new UploadPartCopyCommand({
      Bucket: 'mine',
      Key: 'assembled',
      UploadId: uploadId,
      PartNumber: 1,
      CopySource,
    }),
  );

describe('copy sources (decisions.md)', () => {
  it('malformed, incomplete or dot-segment sources: InvalidArgument 400 before anything is forwarded', async () => {
    for (const CopySource of [
      'mine/bad%zzkey',
      'mine',
      'mine/',
      '/mine',
      'mine/a/../existing.txt',
      'mine/%2E%2E/x',
      'mine/nul%00key',
    ]) {
      await expectS3Error(s3.send(new CopyObjectCommand({ Bucket: 'mine', Key: 'target', CopySource })), {
        code: 'InvalidArgument',
        status: 400,
        message:
          'Copy Source must mention the source bucket and key: sourcebucket/sourcekey, URL-encoded, without dot segments.',
      });
    }
  });

  it('a malformed source for UploadPartCopy: InvalidArgument 400 too', async () => {
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    for (const CopySource of ['mine/bad%zz', 'mine/', 'mine/x/./y']) {
      await expectS3Error(copyPart(upload.UploadId, CopySource), {
        code: 'InvalidArgument',
        status: 400,
        message:
          'Copy Source must mention the source bucket and key: sourcebucket/sourcekey, URL-encoded, without dot segments.',
      });
    }
  });

  it('a missing source: NoSuchKey 404, for CopyObject and UploadPartCopy', async () => {
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: 'mine', Key: 'target', CopySource: 'mine/not-there' })),
      { code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' },
    );
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    await expectS3Error(copyPart(upload.UploadId, 'mine/not-there'), {
      code: 'NoSuchKey',
      status: 404,
      message: 'The specified key does not exist.',
    });
  });

  it('UploadPartCopy from a key holding "%": NotImplemented 501, even when it exists (it aborts Ceph RGW 16.2)', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'mine', Key: '100%/real', Body: 'percent' }));
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    for (const CopySource of ['mine/100%25/real', 'mine/100%25-missing']) {
      await expectS3Error(copyPart(upload.UploadId, CopySource), {
        code: 'NotImplemented',
        status: 501,
        message:
          'UploadPartCopy from a source key containing "%" is not supported; copy the object with CopyObject or upload the part.',
      });
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

  it("a part copied from another organisation's bucket: AccessDenied, nothing forwarded", async () => {
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mine', Key: 'assembled' }));
    await expectS3Error(copyPart(upload.UploadId, 'theirs/anything'), {
      code: 'AccessDenied',
      status: 403,
      message: BUCKET_DENIED,
    });
  });

  it('a key that may write but not read its own bucket cannot read it through a copy', async () => {
    const writeOnly = client(
      await createCredential(gateway, { scope: { buckets: ['mine'], methods: ['PUT'] } }),
    );
    await writeOnly.send(new PutObjectCommand({ Bucket: 'mine', Key: 'write-only-upload', Body: 'w' }));
    await expectS3Error(
      writeOnly.send(
        new CopyObjectCommand({ Bucket: 'mine', Key: 'copied-out', CopySource: 'mine/existing.txt' }),
      ),
      { code: 'AccessDenied', status: 403, message: BUCKET_DENIED },
    );
    await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'mine', Key: 'copied-out' })), {
      code: 'NotFound',
      status: 404,
    });
  });
});
