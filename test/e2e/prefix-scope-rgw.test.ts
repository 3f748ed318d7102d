/**
 * A prefix-scoped credential in front of Ceph RGW (issue 15): it cannot read, write, list, copy
 * from or be presigned outside its prefixes, and works inside them.
 */
import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { login, type ControlClient } from '../support/control-plane.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../support/s3/clients.js';
import type { TestCredential } from '../support/s3/fixtures.js';
import {
  describeRawError,
  queryString,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../support/s3/raw-requests.js';
import { backendEnv } from './support/rgw.js';

const rgw = inject('rgw');
const bucket = `e2e-prefix-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const DENIED = { code: 'AccessDenied', status: 403, message: 'Access to this bucket is denied.' };

let gateway: TestGateway;
let control: ControlClient;
let key: TestCredential;

beforeAll(async () => {
  gateway = await startTestGateway({
    ...backendEnv(rgw),
  });
  control = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  await control.createBucket(bucket);
  const owner = pathStyleClient(gateway);
  for (const Key of ['users/42/mine.txt', 'users/43/theirs.txt'])
    await owner.send(new PutObjectCommand({ Bucket: bucket, Key, Body: Key }));
  key = await control.createCredential('user 42', {
    buckets: [bucket],
    prefixes: { [bucket]: ['users/42/'] },
    level: 'read-write',
  });
});
afterAll(async () => {
  await control?.deleteBucketWithObjects(bucket).catch(() => undefined);
  await gateway?.stop();
});

describe('a key limited to users/42/, against RGW', () => {
  it('reads, lists and copies inside its prefix', async () => {
    const s3 = pathStyleClient(gateway, key);
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'users/42/mine.txt' }));
    expect(await object.Body?.transformToString()).toBe('users/42/mine.txt');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'users/42/' }));
    expect(listed.Contents?.map((entry) => entry.Key)).toEqual(['users/42/mine.txt']);
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'users/42/copy.txt',
        CopySource: `${bucket}/users/42/mine.txt`,
      }),
    );
    const upload = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'users/42/parts.bin' }),
    );
    const copied = await s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'users/42/parts.bin',
        UploadId: upload.UploadId,
        PartNumber: 1,
        CopySource: `${bucket}/users/42/mine.txt`,
      }),
    );
    expect(copied.CopyPartResult?.ETag).toBeDefined();
  });

  it('cannot read, list, copy from or be presigned outside it', async () => {
    const s3 = pathStyleClient(gateway, key);
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'users/43/theirs.txt' })),
      DENIED,
    );
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: bucket })), DENIED);
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'users/43/' })), DENIED);
    await expectS3Error(
      s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'users/42/stolen.txt',
          CopySource: `${bucket}/users/43/theirs.txt`,
        }),
      ),
      DENIED,
    );
    await expectS3Error(
      pathStyleClient(gateway).send(new HeadObjectCommand({ Bucket: bucket, Key: 'users/42/stolen.txt' })),
      { code: 'NotFound', status: 404 },
    );
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'users/43/planted.txt', Body: 'x' })),
      DENIED,
    );
    await expectS3Error(
      pathStyleClient(gateway).send(new HeadObjectCommand({ Bucket: bucket, Key: 'users/43/planted.txt' })),
      { code: 'NotFound', status: 404 },
    );
    const upload = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'users/42/stolen.bin' }),
    );
    await expectS3Error(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: 'users/42/stolen.bin',
          UploadId: upload.UploadId,
          PartNumber: 1,
          CopySource: `${bucket}/users/43/theirs.txt`,
        }),
      ),
      DENIED,
    );
    const refused = await control.call(
      'POST',
      `/v1/buckets/${bucket}/presign`,
      { key: 'users/43/theirs.txt', method: 'GET', accessKeyId: key.accessKeyId },
      403,
    );
    expect(refused.code).toBe('credential_scope_insufficient');
  });

  it('cannot widen a listing by repeating its prefix parameter (RGW reads the last one)', async () => {
    const query = { 'list-type': '2', prefix: ['users/42/', ''] };
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: `/${bucket}${queryString(query)}`,
      headers: await signedHeaders({
        credential: key,
        method: 'GET',
        baseUrl: gateway.s3Url,
        path: `/${bucket}`,
        query,
        payloadHash: sha256Hex(''),
      }),
    });
    expect(describeRawError(response)).toEqual({
      status: 400,
      code: 'InvalidArgument',
      message: 'The query parameter prefix is given more than once; give each query parameter once.',
      requestIdMatches: true,
    });
    expect(response.body).not.toContain('users/43/');
  });
});
