import {
  S3Client,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin-cli.js';
import { realPostgresFor } from '../../support/database.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  parseS3Error,
  queryString,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

/**
 * Storage quotas from end to end: set through the control plane, enforced by the storage endpoint
 * (local mode: embedded PostgreSQL or the test server, embedded object store), read back from the
 * usage report. "Nothing stored" is checked by asking the store through the gateway.
 */
let gw: TestGateway;
let admin: ControlClient;
let s3: S3Client;

const MiB = 1024 * 1024;
const BUCKET_QUOTA_EXCEEDED = {
  code: 'QuotaExceeded',
  status: 403,
  message:
    "The bucket's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask an owner of the organisation to raise the bucket's quota.",
};

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  s3 = pathStyleClient(gw);
});
afterAll(async () => {
  await gw?.stop();
});

async function bucketWithQuota(name: string, quota: { maxBytes?: number; maxObjects?: number }) {
  expect((await admin.post('/v1/buckets', { name })).status).toBe(201);
  const set = await admin.patch(`/v1/buckets/${name}`, { quota });
  expect(set.status, set.text).toBe(200);
  expect(set.body.quota).toEqual({ maxBytes: quota.maxBytes ?? null, maxObjects: quota.maxObjects ?? null });
}

interface Stored {
  storedBytes: number;
  storedObjects: number;
  reservedBytes: number;
  reservedObjects: number;
}

/** The bucket's counted usage from GET /v1/organisation/usage. */
async function usageOf(bucket: string, client = admin): Promise<Stored | undefined> {
  const report = await client.get('/v1/organisation/usage');
  expect(report.status, report.text).toBe(200);
  const entry = (report.body.storage.buckets as { bucket: string; usage?: Stored }[]).find(
    (item) => item.bucket === bucket,
  );
  const usage = entry?.usage;
  return usage === undefined
    ? undefined
    : {
        storedBytes: usage.storedBytes,
        storedObjects: usage.storedObjects,
        reservedBytes: usage.reservedBytes,
        reservedObjects: usage.reservedObjects,
      };
}

function held(bytes: number, objects: number): Stored {
  return { storedBytes: bytes, storedObjects: objects, reservedBytes: 0, reservedObjects: 0 };
}

async function exists(bucket: string, key: string): Promise<boolean> {
  return s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
    () => true,
    (error: { $metadata?: { httpStatusCode?: number } }) => {
      if (error.$metadata?.httpStatusCode === 404) return false;
      throw error;
    },
  );
}

describe('a bucket quota', () => {
  it('refuses a PUT that would exceed it, before the body is sent, and stores nothing', async () => {
    await bucketWithQuota('quota-put', { maxBytes: 1000 });
    expect(await usageOf('quota-put')).toEqual(held(0, 0));
    await s3.send(new PutObjectCommand({ Bucket: 'quota-put', Key: 'a.bin', Body: 'a'.repeat(600) }));
    expect(await usageOf('quota-put')).toEqual(held(600, 1));

    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-put', Key: 'b.bin', Body: 'b'.repeat(500) })),
      BUCKET_QUOTA_EXCEEDED,
    );
    expect(await exists('quota-put', 'b.bin')).toBe(false);
    expect(await usageOf('quota-put')).toEqual(held(600, 1));

    // A client that waits for 100 Continue is refused without being asked for its body.
    const body = 'c'.repeat(500);
    const headers = await signedHeaders({
      credential: gw.credential,
      method: 'PUT',
      baseUrl: gw.s3Url,
      path: '/quota-put/c.bin',
      payloadHash: sha256Hex(body),
      headers: { 'content-length': String(body.length) },
    });
    const refused = await sendRaw(gw.s3Url, {
      method: 'PUT',
      target: '/quota-put/c.bin',
      headers,
      body,
      expectContinue: true,
    });
    expect({ status: refused.status, continued: refused.continued }).toEqual({
      status: 403,
      continued: false,
    });
    expect(parseS3Error(refused.body).code).toBe('QuotaExceeded');
    expect(await exists('quota-put', 'c.bin')).toBe(false);
    expect(await usageOf('quota-put')).toEqual(held(600, 1));
  });

  it('counts an overwrite by what it adds, and a deletion frees its room', async () => {
    await bucketWithQuota('quota-overwrite', { maxBytes: 1000, maxObjects: 2 });
    await s3.send(new PutObjectCommand({ Bucket: 'quota-overwrite', Key: 'a.bin', Body: 'a'.repeat(700) }));
    // 900 bytes over the 700 already there add 200: it fits, where 900 more would not.
    await s3.send(new PutObjectCommand({ Bucket: 'quota-overwrite', Key: 'a.bin', Body: 'a'.repeat(900) }));
    expect(await usageOf('quota-overwrite')).toEqual(held(900, 1));
    await s3.send(new PutObjectCommand({ Bucket: 'quota-overwrite', Key: 'b.bin', Body: 'b'.repeat(100) }));
    // Two objects is the limit, even for an empty third.
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-overwrite', Key: 'c.bin', Body: '' })),
      BUCKET_QUOTA_EXCEEDED,
    );
    await s3.send(new DeleteObjectCommand({ Bucket: 'quota-overwrite', Key: 'a.bin' }));
    expect(await usageOf('quota-overwrite')).toEqual(held(100, 1));
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'quota-overwrite',
        Delete: { Objects: [{ Key: 'b.bin' }, { Key: 'never-there.bin' }] },
      }),
    );
    expect(await usageOf('quota-overwrite')).toEqual(held(0, 0));
    await s3.send(new PutObjectCommand({ Bucket: 'quota-overwrite', Key: 'c.bin', Body: 'c'.repeat(1000) }));
    expect(await usageOf('quota-overwrite')).toEqual(held(1000, 1));
  });

  it('refuses a copy by its source size, and stores nothing', async () => {
    expect((await admin.post('/v1/buckets', { name: 'quota-source' })).status).toBe(201);
    await s3.send(new PutObjectCommand({ Bucket: 'quota-source', Key: 'big.bin', Body: 'x'.repeat(800) }));
    await bucketWithQuota('quota-copy', { maxBytes: 1000 });
    const copy = (key: string) =>
      s3.send(new CopyObjectCommand({ Bucket: 'quota-copy', Key: key, CopySource: 'quota-source/big.bin' }));
    await copy('first.bin');
    expect(await usageOf('quota-copy')).toEqual(held(800, 1));
    await expectS3Error(copy('second.bin'), BUCKET_QUOTA_EXCEEDED);
    expect(await exists('quota-copy', 'second.bin')).toBe(false);
    expect(await usageOf('quota-copy')).toEqual(held(800, 1));
  });

  it('refuses a multipart upload at completion when its parts together exceed it, and stores nothing', async () => {
    await bucketWithQuota('quota-multipart', { maxBytes: 6 * MiB });
    const created = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'quota-multipart', Key: 'big.bin' }),
    );
    const uploadId = created.UploadId as string;
    const parts = [];
    // Each part fits alone; together they are 7 MiB.
    for (const [index, size] of [5 * MiB, 2 * MiB].entries()) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: 'quota-multipart',
          Key: 'big.bin',
          UploadId: uploadId,
          PartNumber: index + 1,
          Body: Buffer.alloc(size, index + 1),
        }),
      );
      parts.push({ PartNumber: index + 1, ETag: part.ETag as string });
    }
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0));
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'quota-multipart',
          Key: 'big.bin',
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
      BUCKET_QUOTA_EXCEEDED,
    );
    expect(await exists('quota-multipart', 'big.bin')).toBe(false);
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0));

    // A part larger than the quota is refused as it is sent.
    await expectS3Error(
      s3.send(
        new UploadPartCommand({
          Bucket: 'quota-multipart',
          Key: 'big.bin',
          UploadId: uploadId,
          PartNumber: 3,
          Body: Buffer.alloc(6 * MiB + 1),
        }),
      ),
      BUCKET_QUOTA_EXCEEDED,
    );
    // A completion that fits is accounted by its parts' sizes.
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'quota-multipart',
        Key: 'big.bin',
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.slice(0, 1) },
      }),
    );
    expect(await usageOf('quota-multipart')).toEqual(held(5 * MiB, 1));
  });

  it('refuses a multipart upload at creation when its declared size exceeds it', async () => {
    await bucketWithQuota('quota-declared', { maxBytes: 1000 });
    const target = `/quota-declared/declared.bin${queryString({ uploads: '' })}`;
    const create = async (size: number) =>
      sendRaw(gw.s3Url, {
        method: 'POST',
        target,
        headers: await signedHeaders({
          credential: gw.credential,
          method: 'POST',
          baseUrl: gw.s3Url,
          path: '/quota-declared/declared.bin',
          query: { uploads: '' },
          payloadHash: sha256Hex(''),
          headers: { 'x-amz-mp-object-size': String(size) },
        }),
      });
    const refused = await create(1001);
    expect(refused.status, refused.body).toBe(403);
    expect(parseS3Error(refused.body)).toMatchObject({ code: 'QuotaExceeded' });
    expect((await create(1000)).status).toBe(200);
  });

  it('holds room for uploads under way: of two that fit only one at a time, one is refused', async () => {
    await bucketWithQuota('quota-race', { maxBytes: 1000 });
    const put = (key: string) =>
      s3.send(new PutObjectCommand({ Bucket: 'quota-race', Key: key, Body: 'r'.repeat(700) })).then(
        () => 'stored',
        (error: { name?: string }) => error.name,
      );
    const outcomes = await Promise.all([put('one.bin'), put('two.bin')]);
    expect(outcomes.sort()).toEqual(['QuotaExceeded', 'stored']);
    expect(await usageOf('quota-race')).toEqual(held(700, 1));
  });

  it('may not exceed the organisation quota, and is set by owners and admins', async () => {
    expect((await admin.post('/v1/buckets', { name: 'quota-rules' })).status).toBe(201);
    expectInvalidFields(await admin.patch('/v1/buckets/quota-rules', {}), 'public');
    const other = await addOrganisation(admin, 'quota-rules-org');
    expectProblem(
      await other.owner.patch('/v1/buckets/quota-rules', { quota: { maxBytes: 1 } }),
      404,
      'bucket_not_found',
    );
    // The organisation's quota comes from the platform admins; its owner cannot set it.
    expectProblem(
      await other.owner.patch('/v1/organisation', { limits: { maxBytes: 5000 } }),
      403,
      'platform_admin_required',
    );
    const limited = await admin.patch(`/v1/organisation?organisationId=${other.organisationId}`, {
      limits: { maxBytes: 5000 },
    });
    expect(limited.status, limited.text).toBe(200);
    expect(limited.body.limits).toMatchObject({ maxBytes: 5000, maxObjects: null });
    expect((await other.owner.post('/v1/buckets', { name: 'quota-rules-own' })).status).toBe(201);
    expectInvalidFields(
      await other.owner.patch('/v1/buckets/quota-rules-own', { quota: { maxBytes: 5001 } }),
      'quota.maxBytes',
    );
    const within = await other.owner.patch('/v1/buckets/quota-rules-own', { quota: { maxBytes: 4000 } });
    expect(within.status, within.text).toBe(200);
    const report = await other.owner.get('/v1/organisation/usage');
    expect(report.body.storage).toMatchObject({
      quota: { maxBytes: 5000, maxObjects: null },
      usage: { storedBytes: 0, storedObjects: 0 },
      buckets: [
        { bucket: 'quota-rules-own', quota: { maxBytes: 4000, maxObjects: null }, usage: { storedBytes: 0 } },
      ],
    });
  });
});

describe('an organisation quota', () => {
  it('counts what its buckets held before it was set, and refuses what would exceed it', async () => {
    const tenant = await addOrganisation(admin, 'quota-tenant');
    for (const name of ['tenant-a', 'tenant-b']) {
      expect((await tenant.owner.post('/v1/buckets', { name })).status).toBe(201);
    }
    const created = await tenant.owner.post('/v1/credentials', {
      name: 'writer',
      scope: { buckets: ['*'], level: 'read-write' },
    });
    const writer = pathStyleClient(gw, {
      accessKeyId: created.body.accessKeyId,
      secret: created.body.secret,
    });
    await writer.send(new PutObjectCommand({ Bucket: 'tenant-a', Key: 'before.bin', Body: 'b'.repeat(300) }));

    const set = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { maxBytes: 1000, maxObjects: 3 },
    });
    expect(set.status, set.text).toBe(200);
    const report = async () => (await tenant.owner.get('/v1/organisation/usage')).body.storage;
    expect((await report()).usage).toMatchObject({ storedBytes: 300, storedObjects: 1 });

    await writer.send(new PutObjectCommand({ Bucket: 'tenant-b', Key: 'one.bin', Body: 'o'.repeat(600) }));
    await expectS3Error(
      writer.send(new PutObjectCommand({ Bucket: 'tenant-a', Key: 'two.bin', Body: 't'.repeat(200) })),
      {
        code: 'QuotaExceeded',
        status: 403,
        message:
          "The organisation's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask the platform's administrators to raise the quota.",
      },
    );
    const after = await report();
    expect(after.usage).toMatchObject({ storedBytes: 900, storedObjects: 2, reservedBytes: 0 });
    expect(after.buckets).toEqual([
      expect.objectContaining({ bucket: 'tenant-a', usage: expect.objectContaining({ storedBytes: 300 }) }),
      expect.objectContaining({ bucket: 'tenant-b', usage: expect.objectContaining({ storedBytes: 600 }) }),
    ]);

    // The dashboards read the same figures from the metrics.
    const metrics = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    for (const series of [
      'gateway_organisation_stored_bytes{organisation="quota-tenant"} 900',
      'gateway_organisation_stored_objects{organisation="quota-tenant"} 2',
      'gateway_organisation_quota_bytes{organisation="quota-tenant"} 1000',
      'gateway_organisation_quota_objects{organisation="quota-tenant"} 3',
      'gateway_organisation_limited_requests_total{organisation="quota-tenant",limit="organisation_quota"} 1',
    ]) {
      expect(metrics).toContain(series);
    }

    // Removing the quota stops the counting.
    const removed = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { maxBytes: null, maxObjects: null },
    });
    expect(removed.body.limits).toMatchObject({ maxBytes: null, maxObjects: null });
    const uncounted = await report();
    expect(uncounted.usage).toBeUndefined();
    expect(uncounted.buckets.map((bucket: { usage?: unknown }) => bucket.usage)).toEqual([
      undefined,
      undefined,
    ]);
    await writer.send(new PutObjectCommand({ Bucket: 'tenant-a', Key: 'two.bin', Body: 't'.repeat(200) }));
  });
});

describe('a bucket deleted under an organisation quota', () => {
  it("takes what it was counted as holding out of the organisation's usage", async () => {
    const tenant = await addOrganisation(admin, 'quota-forget');
    await tenant.owner.createBucket('forget-me');
    const key = await tenant.owner.createCredential('writer', { buckets: ['*'], level: 'read-write' });
    await admin.call(
      'PATCH',
      `/v1/organisation?organisationId=${tenant.organisationId}`,
      { limits: { maxBytes: 1000 } },
      200,
    );
    await pathStyleClient(gw, key).send(
      new PutObjectCommand({ Bucket: 'forget-me', Key: 'a.bin', Body: 'a'.repeat(100) }),
    );
    // Deleted straight in the store: the count still says 100 bytes, the bucket is empty.
    await gw.gateway.context.backend.deleteObjects('forget-me', ['a.bin']);
    const usage = async () =>
      (await tenant.owner.call('GET', '/v1/organisation/usage', undefined, 200)).storage.usage;
    expect(await usage()).toMatchObject({ storedBytes: 100, storedObjects: 1 });
    await tenant.owner.call('DELETE', '/v1/buckets/forget-me', undefined, 204);
    expect(await usage()).toMatchObject({ storedBytes: 0, storedObjects: 0 });
  });
});

describe('a recount', () => {
  // The admin command opens the gateway's database itself: a real server, not the test's PGlite.
  it.runIf(realPostgresFor('the usage recount test'))('sets the usage to what the store holds', async () => {
    await bucketWithQuota('quota-recount', { maxBytes: 10_000 });
    await s3.send(
      new PutObjectCommand({ Bucket: 'quota-recount', Key: 'through.bin', Body: 'g'.repeat(100) }),
    );
    // Written straight to the store, past the gateway: its accounting cannot know.
    const { backend } = gw.gateway.context;
    const direct = new S3Client({
      endpoint: backend.endpoint.toString(),
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: backend.credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    await direct.send(
      new PutObjectCommand({ Bucket: 'quota-recount', Key: 'around.bin', Body: 'd'.repeat(50) }),
    );
    expect(await usageOf('quota-recount')).toEqual(held(100, 1));

    const output = await runAdminCommand(['recount-usage', 'quota-recount'], {
      DATABASE_URL: gw.database?.url,
      GATEWAY_BACKEND_URL: backend.endpoint.toString(),
      GATEWAY_BACKEND_ACCESS_KEY_ID: backend.credentials.accessKeyId,
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: backend.credentials.secretAccessKey,
    });
    expect(output).toBe(
      'quota-recount: the store holds 2 object(s), 150 byte(s); usage set to that (was 1 object(s), 100 byte(s))\n',
    );
    expect(await usageOf('quota-recount')).toEqual(held(150, 2));
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-recount', Key: 'more.bin', Body: 'm'.repeat(9_851) })),
      BUCKET_QUOTA_EXCEEDED,
    );
  });
});
