/**
 * Storage quotas in front of Ceph RGW (issue 15): an upload, a copy and a multipart completion
 * that would exceed the bucket's quota are refused with QuotaExceeded, and RGW, read directly, holds
 * nothing of them; the usage the control plane reports is unchanged. RGW lists the parts the
 * completion is checked by (ListParts), as production stores do.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCommand,
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
import { sdkClient } from './support/rgw.js';

const rgw = inject('rgw');
const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const bucket = `e2e-quota-${suffix}`;
const source = `e2e-quota-src-${suffix}`;
const MiB = 1024 * 1024;
const REFUSED = {
  code: 'QuotaExceeded',
  status: 403,
  message:
    "The bucket's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask an owner of the organisation to raise the bucket's quota.",
};

let gateway: TestGateway;
let control: ControlClient;

beforeAll(async () => {
  gateway = await startTestGateway({
    GATEWAY_BACKEND_URL: rgw.url,
    GATEWAY_BACKEND_ACCESS_KEY_ID: rgw.accessKeyId,
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    GATEWAY_BACKEND_REGION: rgw.region,
  });
  control = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  await control.createBucket(bucket);
  await control.createBucket(source);
});
afterAll(async () => {
  for (const name of [bucket, source]) await control?.deleteBucketWithObjects(name).catch(() => undefined);
  await gateway?.stop();
});

/** Whether RGW itself holds the key (a HEAD straight to RGW with the gateway's own key pair). */
async function inRgw(key: string): Promise<boolean> {
  try {
    await sdkClient(rgw).send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
    throw error;
  }
}

async function stored(): Promise<{ storedBytes: number; storedObjects: number } | undefined> {
  const report = await control.call('GET', '/v1/organisation/usage', undefined, 200);
  const entry = (
    report.storage.buckets as { bucket: string; usage?: { storedBytes: number; storedObjects: number } }[]
  ).find((item) => item.bucket === bucket);
  return entry?.usage === undefined
    ? undefined
    : { storedBytes: entry.usage.storedBytes, storedObjects: entry.usage.storedObjects };
}

describe('a bucket quota in front of RGW', () => {
  it('refuses a PUT, a copy and a multipart completion over it, and RGW holds none of them', async () => {
    const s3 = pathStyleClient(gateway);
    // 4 MiB already there when the quota is set: the first count lists the bucket in RGW.
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'before.bin', Body: Buffer.alloc(4 * MiB, 1) }),
    );
    await s3.send(new PutObjectCommand({ Bucket: source, Key: 'nine.bin', Body: Buffer.alloc(9 * MiB, 3) }));
    await control.call('PATCH', `/v1/buckets/${bucket}`, { quota: { maxBytes: 12 * MiB } }, 200);
    expect(await stored()).toEqual({ storedBytes: 4 * MiB, storedObjects: 1 });

    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'put.bin', Body: Buffer.alloc(9 * MiB, 2) })),
      REFUSED,
    );
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy.bin', CopySource: `${source}/nine.bin` })),
      REFUSED,
    );
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'multi.bin' }));
    // Each part fits beside what is stored (4 + 5 and 4 + 4 MiB); the object they make (9) does not.
    const parts = [];
    for (const [index, size] of [5 * MiB, 4 * MiB].entries()) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'multi.bin',
          UploadId: upload.UploadId,
          PartNumber: index + 1,
          Body: Buffer.alloc(size, 4),
        }),
      );
      parts.push({ PartNumber: index + 1, ETag: part.ETag });
    }
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'multi.bin',
          UploadId: upload.UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
      REFUSED,
    );

    for (const key of ['put.bin', 'copy.bin', 'multi.bin']) expect(await inRgw(key), key).toBe(false);
    await s3.send(
      new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'multi.bin', UploadId: upload.UploadId }),
    );
    expect(await stored()).toEqual({ storedBytes: 4 * MiB, storedObjects: 1 });
    // What fits still goes through, and is counted.
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'fits.bin', Body: Buffer.alloc(8 * MiB, 5) }));
    expect(await inRgw('fits.bin')).toBe(true);
    expect(await stored()).toEqual({ storedBytes: 12 * MiB, storedObjects: 2 });
  });
});
