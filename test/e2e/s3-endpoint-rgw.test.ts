/**
 * The storage endpoint in front of a real Ceph RGW, which (unlike the embedded s3rver) verifies
 * every SigV4 signature the gateway re-signs, commits uploads atomically, answers ListParts and
 * implements UploadPartCopy.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { expectS3Error, pathStyleClient, virtualHostedClient } from '../support/s3/clients.js';
import { createBucket } from '../support/s3/fixtures.js';
import { awsChunkedBody } from '../support/aws-chunked.js';
import { describeRawError, sendRaw, signedHeaders } from '../support/s3/raw-requests.js';
import { backendEnv } from './support/rgw.js';

const rgw = inject('rgw');
const bucket = `e2e-endpoint-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const MiB = 1024 * 1024;

let gateway: TestGateway;
let s3: S3Client;

beforeAll(async () => {
  gateway = await startTestGateway({
    ...backendEnv(rgw),
  });
  s3 = pathStyleClient(gateway);
  await createBucket(gateway, bucket);
});
afterAll(async () => {
  await gateway?.stop();
});

async function text(key: string, client: S3Client = s3): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

describe('storage endpoint → Ceph RGW', () => {
  it('stores and lists keys exactly, whatever characters they hold', async () => {
    const keys = ['plain', 'a b/c+d.txt', '100%/x', 'ü/日本', 'double//slash', 'semi;colon=&?', '~tilde*(!)'];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: `v-${Key}` }));
    for (const Key of keys) expect(await text(Key)).toBe(`v-${Key}`);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((object) => object.Key).sort()).toEqual([...keys].sort());
  });

  it('turns streaming-trailer uploads into plain uploads RGW accepts', async () => {
    const body = Readable.from([Buffer.alloc(100_000, 1), Buffer.from('end')]);
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'streamed', Body: body, ContentLength: 100_003 }),
    );
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'streamed' }))).ContentLength).toBe(
      100_003,
    );
  });

  it('copies, tags, lists buckets from the store, and serves virtual-hosted and presigned requests', async () => {
    await s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'copy', CopySource: `${bucket}/a%20b/c%2Bd.txt` }),
    );
    expect(await text('copy')).toBe('v-a b/c+d.txt');
    // The source check HEADs the source with the key encoded one canonical way: '%' and its
    // decoded look-alikes are different keys to RGW.
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'pct%41', Body: 'percent' }));
    await s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'pct-copy', CopySource: `${bucket}/pct%2541` }),
    );
    expect(await text('pct-copy')).toBe('percent');
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'nothing', CopySource: `${bucket}/pctA` })),
      { code: 'NoSuchKey', status: 404 },
    );
    await s3.send(
      new PutObjectTaggingCommand({
        Bucket: bucket,
        Key: 'plain',
        Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] },
      }),
    );
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'plain' }))).TagSet).toEqual([
      { Key: 'k', Value: 'v' },
    ]);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((entry) => entry.Name)).toEqual([bucket]);

    const virtual = virtualHostedClient(gateway);
    await virtual.send(new PutObjectCommand({ Bucket: bucket, Key: 'virtual', Body: 'vv' }));
    expect(await text('virtual', virtual)).toBe('vv');

    const put = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'pre signed' }));
    expect((await fetch(put, { method: 'PUT', body: 'pp', headers: { 'user-agent': 'e2e' } })).status).toBe(
      200,
    );
    const get = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'pre signed' }));
    expect(await (await fetch(get, { headers: { 'user-agent': 'e2e' } })).text()).toBe('pp');
  });

  it('assembles multipart uploads with part copies, and enforces 5 MiB from RGW ListParts', async () => {
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'assembled' }));
    const first = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'assembled',
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: Buffer.alloc(5 * MiB, 2),
      }),
    );
    const second = await s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'assembled',
        UploadId: upload.UploadId,
        PartNumber: 2,
        CopySource: `${bucket}/a%20b/c%2Bd.txt`,
      }),
    );
    // RGW 16.2 aborts on this request; the gateway must never pass it on.
    await expectS3Error(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: 'assembled',
          UploadId: upload.UploadId,
          PartNumber: 3,
          CopySource: `${bucket}/100%25/x`,
        }),
      ),
      { code: 'NotImplemented', status: 501 },
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'assembled',
        UploadId: upload.UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: first.ETag },
            { PartNumber: 2, ETag: second.CopyPartResult?.ETag },
          ],
        },
      }),
    );
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'assembled' }))).ContentLength).toBe(
      5 * MiB + 'v-a b/c+d.txt'.length,
    );

    const small = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'small' }));
    const parts = [];
    for (const PartNumber of [1, 2]) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'small',
          UploadId: small.UploadId,
          PartNumber,
          Body: 'tiny',
        }),
      );
      parts.push({ PartNumber, ETag: part.ETag });
    }
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'small',
          UploadId: small.UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
      { code: 'EntityTooSmall', status: 400 },
    );
  });

  it('never lets RGW store a body that failed its checksum', async () => {
    const data = Buffer.alloc(3 * MiB, 'a');
    const path = `/${bucket}/corrupted`;
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path,
      payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      headers: {
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(data.length),
        'x-amz-trailer': 'x-amz-checksum-crc32',
      },
    });
    const response = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: path,
      headers,
      body: awsChunkedBody(data, 64 * 1024, { 'x-amz-checksum-crc32': 'AAAAAA==' }),
    });
    expect(describeRawError(response)).toMatchObject({
      status: 400,
      code: 'BadDigest',
      requestIdMatches: true,
    });
    await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'corrupted' })), {
      code: 'NotFound',
      status: 404,
    });
  });

  it('deletes what it stored', async () => {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map((object) => ({ Key: object.Key }));
    const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    expect(deleted.Deleted).toHaveLength(keys.length);
    await gateway.gateway.context.backend.deleteBucket(bucket);
  });
});
