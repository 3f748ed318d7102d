/**
 * Storage quotas in front of Ceph RGW (issue 15): an upload, a copy, a part (sent or copied) and a
 * multipart completion that would exceed the bucket's quota are refused with QuotaExceeded, and
 * RGW, read directly, holds nothing of them; the usage the control plane reports is unchanged.
 * The parts of an upload under way count until it completes or is aborted; RGW lists the parts
 * the completion is checked by (ListParts), as production stores do.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCommand,
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
import {
  describeRawError,
  queryString,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../support/s3/raw-requests.js';
import { eventually } from '../support/eventually.js';
import { BUCKET_QUOTA_EXCEEDED } from '../support/storage-usage.js';
import { sdkClient } from './support/rgw.js';

const rgw = inject('rgw');
const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const bucket = `e2e-quota-${suffix}`;
const source = `e2e-quota-src-${suffix}`;
const racing = `e2e-quota-race-${suffix}`;
const versioned = `e2e-quota-ver-${suffix}`;
const leased = `e2e-quota-lease-${suffix}`;
const MiB = 1024 * 1024;
const REFUSED = BUCKET_QUOTA_EXCEEDED;

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
  for (const name of [bucket, source, racing, versioned, leased]) await control.createBucket(name);
});
afterAll(async () => {
  await deleteVersions(versioned).catch(() => undefined);
  for (const name of [bucket, source, racing, versioned, leased])
    await control?.deleteBucketWithObjects(name).catch(() => undefined);
  await gateway?.stop();
});

/** Deletes every version and delete marker of `name`, straight on RGW (the gateway's own key pair). */
async function deleteVersions(name: string): Promise<void> {
  const listing = await sdkClient(rgw).send(new ListObjectVersionsCommand({ Bucket: name }));
  for (const entry of [...(listing.Versions ?? []), ...(listing.DeleteMarkers ?? [])])
    await sdkClient(rgw).send(
      new DeleteObjectCommand({ Bucket: name, Key: entry.Key, VersionId: entry.VersionId }),
    );
}

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

interface Counted {
  storedBytes: number;
  storedObjects: number;
  partBytes: number;
}

async function stored(name = bucket): Promise<Counted | undefined> {
  const report = await control.call('GET', '/v1/organisation/usage', undefined, 200);
  const entry = (report.storage.buckets as { bucket: string; usage?: Counted }[]).find(
    (item) => item.bucket === name,
  );
  return entry?.usage === undefined
    ? undefined
    : {
        storedBytes: entry.usage.storedBytes,
        storedObjects: entry.usage.storedObjects,
        partBytes: entry.usage.partBytes,
      };
}

/** The room reserved in the bucket (a lease among it), as the control plane reports it. */
async function reserved(name: string): Promise<number | undefined> {
  const report = await control.call('GET', '/v1/organisation/usage', undefined, 200);
  const entry = (report.storage.buckets as { bucket: string; usage?: { reservedBytes: number } }[]).find(
    (item) => item.bucket === name,
  );
  return entry?.usage?.reservedBytes;
}

/** What RGW itself holds in the bucket (listed straight from it). */
async function rgwHolds(name: string): Promise<Counted> {
  const listing = await sdkClient(rgw).send(new ListObjectsV2Command({ Bucket: name }));
  const objects = listing.Contents ?? [];
  return {
    storedBytes: objects.reduce((sum, object) => sum + (object.Size ?? 0), 0),
    storedObjects: objects.length,
    partBytes: 0,
  };
}

describe('a bucket quota in front of RGW', () => {
  it('refuses a PUT, a copy, a part, a part copy and a multipart completion over it, and RGW holds none of them', async () => {
    const s3 = pathStyleClient(gateway);
    // 4 MiB already there when the quota is set: the first count lists the bucket in RGW.
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'before.bin', Body: Buffer.alloc(4 * MiB, 1) }),
    );
    await s3.send(new PutObjectCommand({ Bucket: source, Key: 'nine.bin', Body: Buffer.alloc(9 * MiB, 3) }));
    await control.call(
      'PATCH',
      `/v1/buckets/${bucket}`,
      { quota: { maxBytes: 12 * MiB, maxObjects: 2 } },
      200,
    );
    expect(await stored()).toEqual({ storedBytes: 4 * MiB, storedObjects: 1, partBytes: 0 });

    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'put.bin', Body: Buffer.alloc(9 * MiB, 2) })),
      REFUSED,
    );
    await expectS3Error(
      s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy.bin', CopySource: `${source}/nine.bin` })),
      REFUSED,
    );
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'multi.bin' }));
    const UploadId = upload.UploadId as string;
    const part = (PartNumber: number, size: number) =>
      s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'multi.bin',
          UploadId,
          PartNumber,
          Body: Buffer.alloc(size, 4),
        }),
      );
    // 4 MiB stored and a 5 MiB part fit; another 4 MiB part beside them does not, nor a 9 MiB copy.
    const first = await part(1, 5 * MiB);
    expect(await stored()).toEqual({ storedBytes: 4 * MiB, storedObjects: 1, partBytes: 5 * MiB });
    await expectS3Error(part(2, 4 * MiB), REFUSED);
    await expectS3Error(
      s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: 'multi.bin',
          UploadId,
          PartNumber: 2,
          CopySource: `${source}/nine.bin`,
        }),
      ),
      REFUSED,
    );
    const parts = await sdkClient(rgw).send(
      new ListPartsCommand({ Bucket: bucket, Key: 'multi.bin', UploadId }),
    );
    expect(parts.Parts?.map((held) => held.PartNumber)).toEqual([1]);
    // The second object the quota allows is taken meanwhile: the completion would make a third.
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'small.bin', Body: 's' }));
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'multi.bin',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: first.ETag }] },
        }),
      ),
      REFUSED,
    );

    for (const key of ['put.bin', 'copy.bin', 'multi.bin']) expect(await inRgw(key), key).toBe(false);
    expect(await stored()).toEqual({ storedBytes: 4 * MiB + 1, storedObjects: 2, partBytes: 5 * MiB });
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'multi.bin', UploadId }));
    expect(await stored()).toEqual({ storedBytes: 4 * MiB + 1, storedObjects: 2, partBytes: 0 });
    // What fits still goes through, and is counted.
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'small.bin' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'fits.bin', Body: Buffer.alloc(8 * MiB, 5) }));
    expect(await inRgw('fits.bin')).toBe(true);
    expect(await stored()).toEqual({ storedBytes: 12 * MiB, storedObjects: 2, partBytes: 0 });
    expect(await rgwHolds(bucket)).toEqual({ storedBytes: 12 * MiB, storedObjects: 2, partBytes: 0 });
  });

  it('refuses a completion naming two upload ids (RGW would complete the last), and RGW holds nothing of it', async () => {
    const s3 = pathStyleClient(gateway);
    const create = async () =>
      (await s3.send(new CreateMultipartUploadCommand({ Bucket: source, Key: 'two.bin' })))
        .UploadId as string;
    const [small, large] = [await create(), await create()];
    const part = await s3.send(
      new UploadPartCommand({ Bucket: source, Key: 'two.bin', UploadId: small, PartNumber: 1, Body: 'p' }),
    );
    const body = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.ETag}</ETag></Part></CompleteMultipartUpload>`;
    const query = { uploadId: [small, large] };
    const refused = await sendRaw(gateway.s3Url, {
      method: 'POST',
      target: `/${source}/two.bin${queryString(query)}`,
      headers: await signedHeaders({
        credential: gateway.credential,
        method: 'POST',
        baseUrl: gateway.s3Url,
        path: `/${source}/two.bin`,
        query,
        payloadHash: sha256Hex(body),
        headers: { 'content-length': String(body.length) },
      }),
      body,
    });
    expect(describeRawError(refused)).toEqual({
      status: 400,
      code: 'InvalidArgument',
      message: 'The query parameter uploadId is given more than once; give each query parameter once.',
      requestIdMatches: true,
    });
    await expect(
      sdkClient(rgw).send(new HeadObjectCommand({ Bucket: source, Key: 'two.bin' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    for (const UploadId of [small, large])
      await s3.send(new AbortMultipartUploadCommand({ Bucket: source, Key: 'two.bin', UploadId }));
  });

  it('counts writes racing on one key as RGW holds them', async () => {
    const s3 = pathStyleClient(gateway);
    await control.call('PATCH', `/v1/buckets/${racing}`, { quota: { maxBytes: 10 * MiB } }, 200);
    const put = (size: number) =>
      s3.send(new PutObjectCommand({ Bucket: racing, Key: 'k.bin', Body: Buffer.alloc(size, 7) }));
    const remove = () => s3.send(new DeleteObjectCommand({ Bucket: racing, Key: 'k.bin' }));
    for (const writes of [
      () => [put(1000), put(2000), put(3000)],
      () => [put(4000), remove(), put(5000)],
      () => [remove(), remove()],
    ]) {
      await Promise.all(writes());
      expect(await stored(racing)).toEqual(await rgwHolds(racing));
    }
  });

  it('counts uploads admitted from leased room (a bucket with plenty of room) as RGW holds them', async () => {
    const s3 = pathStyleClient(gateway);
    await control.call('PATCH', `/v1/buckets/${leased}`, { quota: { maxBytes: 2 ** 40 } }, 200);
    const put = (key: string, size: number) =>
      s3.send(new PutObjectCommand({ Bucket: leased, Key: key, Body: Buffer.alloc(size, 5) }));
    await put('first.bin', 100);
    // The first upload finds no lease and takes the exact path; the lease is taken meanwhile.
    await eventually('a lease for the bucket', async () => ((await reserved(leased)) ?? 0) > 0);
    for (const writes of [
      () => Array.from({ length: 12 }, (_, index) => put(`many-${index}.bin`, 1000 + index)),
      () => [put('k.bin', 1000), put('k.bin', 2000), put('k.bin', 3000)],
      () => [s3.send(new DeleteObjectCommand({ Bucket: leased, Key: 'k.bin' })), put('k.bin', 4000)],
    ]) {
      await Promise.all(writes());
      const holds = await rgwHolds(leased);
      // Recorded after the answers: within a fraction of a second.
      let last: unknown;
      await eventually(
        () => `usage ${JSON.stringify(last)} to be ${JSON.stringify(holds)}`,
        async () => {
          last = await stored(leased);
          return JSON.stringify(last) === JSON.stringify(holds);
        },
      );
    }
  });

  it('counts what a versioned bucket holds current, a deleted version and a delete marker included', async () => {
    const s3 = pathStyleClient(gateway);
    // Versioning is the platform's to set (the gateway refuses bucket configuration): set on RGW.
    await sdkClient(rgw).send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await control.call('PATCH', `/v1/buckets/${versioned}`, { quota: { maxBytes: 10 * MiB } }, 200);
    const put = async (size: number) =>
      (await s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'v.bin', Body: Buffer.alloc(size, 3) })))
        .VersionId as string;
    const first = await put(1000);
    const second = await put(2000);
    expect(await stored(versioned)).toEqual({ storedBytes: 2000, storedObjects: 1, partBytes: 0 });
    // The older version is current again once the newer one is deleted.
    await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v.bin', VersionId: second }));
    expect(await stored(versioned)).toEqual({ storedBytes: 1000, storedObjects: 1, partBytes: 0 });
    // A delete marker hides it; deleting the marker brings it back.
    const marker = (await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v.bin' }))).VersionId;
    expect(await stored(versioned)).toEqual(await rgwHolds(versioned));
    expect(await stored(versioned)).toEqual({ storedBytes: 0, storedObjects: 0, partBytes: 0 });
    await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v.bin', VersionId: marker }));
    expect(await stored(versioned)).toEqual({ storedBytes: 1000, storedObjects: 1, partBytes: 0 });
    await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v.bin', VersionId: first }));
    expect(await stored(versioned)).toEqual(await rgwHolds(versioned));
    expect(await stored(versioned)).toEqual({ storedBytes: 0, storedObjects: 0, partBytes: 0 });
  });
});
