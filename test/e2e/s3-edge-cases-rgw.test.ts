/**
 * The edge cases ceph/s3-tests found through the gateway (issue 11), against a real Ceph RGW: a
 * multipart part sent twice whose first send finishes last, a copy source whose separator is
 * percent-encoded, and an `Expect` header S3 ignores. (The anonymous ListBuckets decision is
 * tested in test/integration/s3/refusals.test.ts.)
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pathStyleClient } from '../support/s3/clients.js';
import { createBucket } from '../support/s3/fixtures.js';
import { startHeldPut } from '../support/s3/held-upload.js';
import { describeRawError, sendRaw, signedHeaders } from '../support/s3/raw-requests.js';
import { backendEnv } from './support/rgw.js';

const rgw = inject('rgw');
const bucket = `e2e-edges-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const MiB = 1024 * 1024;

let gateway: TestGateway;
let s3: S3Client;

beforeAll(async () => {
  gateway = await startTestGateway({
    ...backendEnv(rgw),
  });
  await createBucket(gateway, bucket);
  s3 = pathStyleClient(gateway);
});
afterAll(async () => {
  await gateway?.stop();
});

function md5(data: Buffer | string): string {
  return createHash('md5').update(data).digest('hex');
}

describe('edge cases of the S3 conformance suite, through the gateway to Ceph RGW', () => {
  it('completes an upload whose part 1 was sent twice, the first (5 MiB) send finishing after the 1 KiB resend', async () => {
    const key = 'resent.bin';
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const uploadId = upload.UploadId as string;
    const large = Buffer.alloc(5 * MiB, 1);
    const first = await startHeldPut({
      baseUrl: gateway.s3Url,
      credential: gateway.credential,
      path: `/${bucket}/${key}`,
      query: { partNumber: '1', uploadId },
      body: large,
      sentFirst: MiB,
    });
    const resent = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: 1,
        Body: Buffer.alloc(1024, 2),
      }),
    );
    expect(resent.ETag).toBe(`"${md5(Buffer.alloc(1024, 2))}"`);
    const kept = await first.finish();
    expect([kept.status, kept.headers.etag]).toEqual([200, `"${md5(large)}"`]);
    const last = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: 2, Body: 'the end' }),
    );
    // RGW keeps the send that finished last: the 5 MiB one. Judged by that, the upload is valid.
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: kept.headers.etag as string },
            { PartNumber: 2, ETag: last.ETag },
          ],
        },
      }),
    );
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(bytes.equals(Buffer.concat([large, Buffer.from('the end')]))).toBe(true);
  });

  it('copies from a source whose separator is percent-encoded (bucket%2Fkey); what stays malformed is refused', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'dir/source.txt', Body: 'copied whole' }));
    const copy = async (source: string, key: string) =>
      sendRaw(gateway.s3Url, {
        method: 'PUT',
        target: `/${bucket}/${key}`,
        headers: await signedHeaders({
          credential: gateway.credential,
          method: 'PUT',
          baseUrl: gateway.s3Url,
          path: `/${bucket}/${key}`,
          headers: { 'x-amz-copy-source': source },
          payloadHash: 'UNSIGNED-PAYLOAD',
        }),
      });
    const copied = await copy(`${bucket}%2Fdir%2Fsource.txt`, 'copy.txt');
    expect(copied.status, copied.body).toBe(200);
    const stored = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'copy.txt' }));
    expect(await stored.Body?.transformToString()).toBe('copied whole');
    expect(describeRawError(await copy(`${bucket}%2F..%2Fx`, 'never.txt'))).toMatchObject({
      status: 400,
      code: 'InvalidArgument',
    });
  });

  it('ignores an empty or unknown Expect header, as S3 does (no 417)', async () => {
    for (const expectation of ['', 'something-else']) {
      const path = `/${bucket}/expect.txt`;
      const put = await sendRaw(gateway.s3Url, {
        method: 'PUT',
        target: path,
        headers: {
          ...(await signedHeaders({
            credential: gateway.credential,
            method: 'PUT',
            baseUrl: gateway.s3Url,
            path,
            payloadHash: 'UNSIGNED-PAYLOAD',
          })),
          expect: expectation,
        },
        body: `expect ${expectation}`,
      });
      expect(put.status, `PUT with Expect: '${expectation}'`).toBe(200);
      const stored = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'expect.txt' }));
      expect(await stored.Body?.transformToString()).toBe(`expect ${expectation}`);
    }
  });
});
