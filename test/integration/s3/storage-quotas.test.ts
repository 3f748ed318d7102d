import {
  S3Client,
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  UploadPartCopyCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin-cli.js';
import { BackendConnection } from '../../../src/backend/connection.js';
import { createLogger } from '../../../src/observability/logger.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { UploadChecks } from '../../../src/s3/limits/upload-checks.js';
import { Upstream } from '../../../src/s3/upstream/upstream.js';
import { realPostgresFor } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  describeRawError,
  parseS3Error,
  queryString,
  sendOnSocket,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';
import {
  BUCKET_QUOTA_EXCEEDED,
  bucketWithQuota as bucketWithQuotaOf,
  held,
  storeHolds as storeHoldsOf,
  usageOf as usageReported,
  type Stored,
} from '../../support/storage-usage.js';

/**
 * Storage quotas from end to end: set through the control plane, enforced by the storage endpoint
 * (local mode: embedded PostgreSQL or the test server, embedded object store), read back from the
 * usage report. "Nothing stored" is checked by asking the store through the gateway.
 */
let gw: TestGateway;
let admin: ControlClient;
let s3: S3Client;

const MiB = 1024 * 1024;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  s3 = pathStyleClient(gw);
});
afterAll(async () => {
  await gw?.stop();
});

async function bucketWithQuota(name: string, quota: { maxBytes?: number; maxObjects?: number }) {
  await bucketWithQuotaOf(admin, name, quota);
}

/** The bucket's counted usage from GET /v1/organisation/usage. */
function usageOf(bucket: string, client = admin): Promise<Stored | undefined> {
  return usageReported(client, bucket);
}

const silentLogger = createLogger('silent');

/** A client of the store itself, past the gateway: what it does, the gateway's accounting cannot know. */
function directClient(): S3Client {
  const { backend } = gw.gateway.context;
  return new S3Client({
    endpoint: backend.endpoint.toString(),
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: backend.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

/** What the store holds in the bucket, from a listing of it past the gateway. */
const storeHolds = (bucket: string) => storeHoldsOf(gw, bucket);

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

  it('counts the parts of an upload under way: a part that would take them past it is refused, and stores nothing', async () => {
    await bucketWithQuota('quota-multipart', { maxBytes: 6 * MiB });
    const created = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'quota-multipart', Key: 'big.bin' }),
    );
    const UploadId = created.UploadId as string;
    const part = (PartNumber: number, size: number) =>
      s3.send(
        new UploadPartCommand({
          Bucket: 'quota-multipart',
          Key: 'big.bin',
          UploadId,
          PartNumber,
          Body: Buffer.alloc(size, PartNumber),
        }),
      );
    const first = await part(1, 5 * MiB);
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0, 5 * MiB));

    // 5 MiB held in parts and 2 more would be 7: refused before the store gets any of it.
    await expectS3Error(part(2, 2 * MiB), BUCKET_QUOTA_EXCEEDED);
    const listed = await s3.send(
      new ListPartsCommand({ Bucket: 'quota-multipart', Key: 'big.bin', UploadId }),
    );
    expect(listed.Parts?.map((stored) => stored.PartNumber)).toEqual([1]);
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0, 5 * MiB));
    // Nor does a PUT fit beside them.
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: 'quota-multipart', Key: 'small.bin', Body: 'x'.repeat(MiB + 1) }),
      ),
      BUCKET_QUOTA_EXCEEDED,
    );

    await part(2, MiB);
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0, 6 * MiB));
    // A part sent again under its number replaces the one the store held: it fits at the limit.
    const second = await part(2, MiB);
    expect(await usageOf('quota-multipart')).toEqual(held(0, 0, 6 * MiB));

    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'quota-multipart',
        Key: 'big.bin',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: first.ETag as string },
            { PartNumber: 2, ETag: second.ETag as string },
          ],
        },
      }),
    );
    expect(await usageOf('quota-multipart')).toEqual(held(6 * MiB, 1));
    expect(await storeHolds('quota-multipart')).toEqual({ bytes: 6 * MiB, objects: 1 });
  });

  it('refuses a multipart completion that would exceed it, and stores nothing', async () => {
    await bucketWithQuota('quota-completion', { maxObjects: 1 });
    const created = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'quota-completion', Key: 'b.bin' }),
    );
    const UploadId = created.UploadId as string;
    // The one object the quota allows is taken meanwhile; parts are no objects, they still fit.
    await s3.send(new PutObjectCommand({ Bucket: 'quota-completion', Key: 'a.bin', Body: 'a' }));
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: 'quota-completion',
        Key: 'b.bin',
        UploadId,
        PartNumber: 1,
        Body: 'bbb',
      }),
    );
    expect(await usageOf('quota-completion')).toEqual(held(1, 1, 3));
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'quota-completion',
          Key: 'b.bin',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag as string }] },
        }),
      ),
      BUCKET_QUOTA_EXCEEDED,
    );
    expect(await exists('quota-completion', 'b.bin')).toBe(false);
    expect(await usageOf('quota-completion')).toEqual(held(1, 1, 3));

    // Aborted, its parts stop counting.
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'quota-completion', Key: 'b.bin', UploadId }));
    expect(await usageOf('quota-completion')).toEqual(held(1, 1));
  });

  it('refuses a completion that names two upload ids, and stores nothing', async () => {
    await bucketWithQuota('quota-two-ids', { maxBytes: 10 * MiB });
    const upload = async () =>
      (await s3.send(new CreateMultipartUploadCommand({ Bucket: 'quota-two-ids', Key: 'x.bin' })))
        .UploadId as string;
    const [small, other] = [await upload(), await upload()];
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: 'quota-two-ids',
        Key: 'x.bin',
        UploadId: small,
        PartNumber: 1,
        Body: 'p',
      }),
    );
    const body = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.ETag}</ETag></Part></CompleteMultipartUpload>`;
    const query = { uploadId: [small, other] };
    const refused = await sendRaw(gw.s3Url, {
      method: 'POST',
      target: `/quota-two-ids/x.bin${queryString(query)}`,
      headers: await signedHeaders({
        credential: gw.credential,
        method: 'POST',
        baseUrl: gw.s3Url,
        path: '/quota-two-ids/x.bin',
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
    expect(await exists('quota-two-ids', 'x.bin')).toBe(false);
    expect(await usageOf('quota-two-ids')).toEqual(held(0, 0, 1));
  });

  it('stops counting the parts of an upload the store no longer knows, at the periodic check', async () => {
    await bucketWithQuota('quota-expired', { maxBytes: 10 * MiB });
    const UploadId = (
      await s3.send(new CreateMultipartUploadCommand({ Bucket: 'quota-expired', Key: 'left.bin' }))
    ).UploadId as string;
    await s3.send(
      new UploadPartCommand({
        Bucket: 'quota-expired',
        Key: 'left.bin',
        UploadId,
        PartNumber: 1,
        Body: 'left',
      }),
    );
    expect(await usageOf('quota-expired')).toEqual(held(0, 0, 4));
    // Aborted past the gateway, as a lifecycle rule of the store would expire it.
    await directClient().send(
      new AbortMultipartUploadCommand({ Bucket: 'quota-expired', Key: 'left.bin', UploadId }),
    );
    const { backend, store } = gw.gateway.context;
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const upstream = new Upstream(
      new BackendConnection(backend, { timeoutMs: 10_000 }),
      metrics,
      silentLogger,
    );
    // Checked once the store last confirmed it 0 s ago: at once.
    expect(await new UploadChecks(store.storageUploads, upstream, silentLogger, 0).checkDue()).toBe(1);
    expect(await usageOf('quota-expired')).toEqual(held(0, 0));
    await upstream.connection.close();
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
    // Nor can the organisation's quota be lowered under a bucket's.
    const lowered = expectInvalidFields(
      await admin.patch(`/v1/organisation?organisationId=${other.organisationId}`, {
        limits: { maxBytes: 3000 },
      }),
      'limits.maxBytes',
    );
    expect(lowered.detail).toBe(
      "limits.maxBytes: must be at least 4000, the quota of bucket quota-rules-own: lower the bucket's quota first",
    );
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

describe('writes under a bucket quota', () => {
  it('refuses a PUT or a copy naming a versionId, and stores nothing', async () => {
    await bucketWithQuota('quota-version', { maxBytes: 1000 });
    await s3.send(new PutObjectCommand({ Bucket: 'quota-version', Key: 'a.bin', Body: 'a'.repeat(10) }));
    const versioned = async (headers: Record<string, string>) =>
      sendRaw(gw.s3Url, {
        method: 'PUT',
        target: `/quota-version/b.bin${queryString({ versionId: 'null' })}`,
        headers: await signedHeaders({
          credential: gw.credential,
          method: 'PUT',
          baseUrl: gw.s3Url,
          path: '/quota-version/b.bin',
          query: { versionId: 'null' },
          payloadHash: sha256Hex('b'.repeat(5000)),
          headers: { 'content-length': '5000', ...headers },
        }),
        body: 'b'.repeat(5000),
      });
    const variants: Record<string, string>[] = [{}, { 'x-amz-copy-source': '/quota-version/a.bin' }];
    for (const headers of variants) {
      const refused = await versioned(headers);
      expect(describeRawError(refused)).toEqual({
        status: 400,
        code: 'InvalidArgument',
        message: 'This operation does not accept a version-id.',
        requestIdMatches: true,
      });
      expect(refused.body).toContain(
        '<ArgumentName>versionId</ArgumentName><ArgumentValue>null</ArgumentValue>',
      );
    }
    expect(await exists('quota-version', 'b.bin')).toBe(false);
    expect(await usageOf('quota-version')).toEqual(held(10, 1));
  });

  it('lets a write that adds nothing through while over a quota lowered below what is held', async () => {
    await bucketWithQuota('quota-lowered', { maxBytes: 1000, maxObjects: 10 });
    await s3.send(new PutObjectCommand({ Bucket: 'quota-lowered', Key: 'a.bin', Body: 'a'.repeat(800) }));
    await s3.send(new PutObjectCommand({ Bucket: 'quota-lowered', Key: 'b.bin', Body: 'b'.repeat(100) }));
    const lowered = await admin.patch('/v1/buckets/quota-lowered', {
      quota: { maxBytes: 350, maxObjects: 1 },
    });
    expect(lowered.status, lowered.text).toBe(200);
    // A copy onto itself (a metadata change) and a smaller overwrite add nothing.
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'quota-lowered',
        Key: 'a.bin',
        CopySource: 'quota-lowered/a.bin',
        MetadataDirective: 'REPLACE',
        Metadata: { reviewed: 'yes' },
      }),
    );
    await s3.send(new PutObjectCommand({ Bucket: 'quota-lowered', Key: 'a.bin', Body: 'a'.repeat(300) }));
    expect(await usageOf('quota-lowered')).toEqual(held(400, 2));
    // What adds a byte or an object is refused until the usage is back under the quota.
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-lowered', Key: 'b.bin', Body: 'b'.repeat(101) })),
      BUCKET_QUOTA_EXCEEDED,
    );
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-lowered', Key: 'c.bin', Body: '' })),
      BUCKET_QUOTA_EXCEEDED,
    );
    expect(await usageOf('quota-lowered')).toEqual(held(400, 2));
  });

  it('frees what DeleteObjects deletes under keys written with XML references', async () => {
    await bucketWithQuota('quota-entities', { maxBytes: 1000 });
    const keys = ['a&b.txt', '<tag>.txt', 'quote"apos\'.txt'];
    for (const Key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: 'quota-entities', Key, Body: 'x'.repeat(100) }));
    }
    expect(await usageOf('quota-entities')).toEqual(held(300, 3));
    // The SDK escapes & < > " ' as entities; one key as a character reference.
    const body =
      '<Delete><Object><Key>a&amp;b.txt</Key></Object><Object><Key>&lt;tag&gt;.txt</Key></Object>' +
      '<Object><Key>quote&quot;apos&#39;.txt</Key></Object></Delete>';
    const md5 = (await import('node:crypto')).createHash('md5').update(body).digest('base64');
    const answer = await sendRaw(gw.s3Url, {
      method: 'POST',
      target: '/quota-entities?delete=',
      headers: await signedHeaders({
        credential: gw.credential,
        method: 'POST',
        baseUrl: gw.s3Url,
        path: '/quota-entities',
        query: { delete: '' },
        payloadHash: sha256Hex(body),
        headers: { 'content-length': String(body.length), 'content-md5': md5 },
      }),
      body,
    });
    expect(answer.status, answer.body).toBe(200);
    for (const Key of keys) expect(await exists('quota-entities', Key)).toBe(false);
    expect(await usageOf('quota-entities')).toEqual(held(0, 0));
  });

  it('counts writes racing on one key as the store holds them', async () => {
    await bucketWithQuota('quota-same-key', { maxBytes: 100_000 });
    const put = (size: number) =>
      s3.send(new PutObjectCommand({ Bucket: 'quota-same-key', Key: 'k.bin', Body: 'k'.repeat(size) }));
    const remove = () => s3.send(new DeleteObjectCommand({ Bucket: 'quota-same-key', Key: 'k.bin' }));
    const removeAll = () =>
      s3.send(
        new DeleteObjectsCommand({ Bucket: 'quota-same-key', Delete: { Objects: [{ Key: 'k.bin' }] } }),
      );
    const rounds: [string, () => Promise<unknown>[]][] = [
      ['PUT and PUT', () => [put(100), put(200), put(300)]],
      ['PUT and DELETE', () => [put(400), remove(), put(500)]],
      ['DELETE and DELETE', () => [remove(), remove(), removeAll()]],
      ['PUT and DeleteObjects', () => [put(600), removeAll(), removeAll()]],
    ];
    for (let repeat = 0; repeat < 3; repeat += 1) {
      for (const [what, writes] of rounds) {
        await Promise.all(writes());
        const holds = await storeHolds('quota-same-key');
        expect(await usageOf('quota-same-key'), what).toEqual(held(holds.bytes, holds.objects));
      }
    }
  });

  it('releases the room of an upload whose client goes away mid-body, and stores nothing', async () => {
    await bucketWithQuota('quota-gone', { maxBytes: 1000 });
    const headers = await signedHeaders({
      credential: gw.credential,
      method: 'PUT',
      baseUrl: gw.s3Url,
      path: '/quota-gone/cut.bin',
      payloadHash: 'UNSIGNED-PAYLOAD',
      headers: { 'content-length': '900' },
    });
    const head = Object.entries({ ...headers, connection: 'close' })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    // Half the body, then the client hangs up once the room is held.
    await sendOnSocket(gw.s3Url, `PUT /quota-gone/cut.bin HTTP/1.1\r\n${head}\r\n\r\n${'c'.repeat(450)}`, {
      hangUpWhen: () =>
        eventually('the upload holds room', async () => (await usageOf('quota-gone'))?.reservedBytes === 900),
    });
    await eventually('the room is released', async () => (await usageOf('quota-gone'))?.reservedBytes === 0);
    expect(await usageOf('quota-gone')).toEqual(held(0, 0));
    expect(await exists('quota-gone', 'cut.bin')).toBe(false);
    // The whole quota is there for the next upload.
    await s3.send(new PutObjectCommand({ Bucket: 'quota-gone', Key: 'whole.bin', Body: 'w'.repeat(1000) }));
  });

  it('releases the room of an upload the gateway refuses mid-body, and stores nothing', async () => {
    await bucketWithQuota('quota-bad-digest', { maxBytes: 1000 });
    await expectS3Error(
      s3.send(
        new PutObjectCommand({
          Bucket: 'quota-bad-digest',
          Key: 'bad.bin',
          Body: 'b'.repeat(900),
          ContentMD5: Buffer.alloc(16).toString('base64'),
        }),
      ),
      {
        code: 'BadDigest',
        status: 400,
        message:
          'The Content-MD5 or checksum value that you specified did not match what the server received.',
      },
    );
    expect(await usageOf('quota-bad-digest')).toEqual(held(0, 0));
    expect(await exists('quota-bad-digest', 'bad.bin')).toBe(false);
  });

  it('refuses a browser form upload that would exceed it, and stores nothing', async () => {
    await bucketWithQuota('quota-form', { maxBytes: 1000 });
    const form = await createPresignedPost(s3 as never, {
      Bucket: 'quota-form',
      Key: 'uploads/${filename}',
      Conditions: [['content-length-range', 0, 10_000]],
    });
    const post = (size: number, filename: string) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
      data.append('file', new Blob([Buffer.alloc(size, 1)]), filename);
      return fetch(form.url, {
        method: 'POST',
        body: data,
        headers: { 'user-agent': 'Mozilla/5.0 (quota test)' },
      });
    };
    expect((await post(600, 'first.jpg')).status).toBe(204);
    const refused = await post(500, 'second.jpg');
    const error = parseS3Error(await refused.text());
    expect({ status: refused.status, code: error.code, message: error.message }).toEqual({
      status: BUCKET_QUOTA_EXCEEDED.status,
      code: BUCKET_QUOTA_EXCEEDED.code,
      message: BUCKET_QUOTA_EXCEEDED.message,
    });
    expect(await usageOf('quota-form')).toEqual(held(600, 1));
    expect(await storeHolds('quota-form')).toEqual({ bytes: 600, objects: 1 });
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
      'gateway_organisation_part_bytes{organisation="quota-tenant"} 0',
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

describe('an organisation quota over several buckets', () => {
  /** An organisation with a bucket holding a 100-byte src.bin, then a quota of `maxBytes`, and a writer. */
  const sourceUnderQuota = async (name: string, bucket: string, maxBytes: number) => {
    const tenant = await addOrganisation(admin, name);
    await tenant.owner.createBucket(bucket);
    const key = await tenant.owner.createCredential('writer', { buckets: ['*'], level: 'read-write' });
    const writer = pathStyleClient(gw, key);
    await writer.send(new PutObjectCommand({ Bucket: bucket, Key: 'src.bin', Body: Buffer.alloc(100, 1) }));
    await admin.call(
      'PATCH',
      `/v1/organisation?organisationId=${tenant.organisationId}`,
      { limits: { maxBytes } },
      200,
    );
    return { tenant, writer };
  };

  it('refuses a part copy whose source range no object could have, before asking for room', async () => {
    const { tenant, writer } = await sourceUnderQuota('quota-copy-range', 'copy-range', 10 * MiB);
    const UploadId = (
      await writer.send(new CreateMultipartUploadCommand({ Bucket: 'copy-range', Key: 'parts.bin' }))
    ).UploadId as string;
    const copyPart = (CopySourceRange: string) =>
      writer.send(
        new UploadPartCopyCommand({
          Bucket: 'copy-range',
          Key: 'parts.bin',
          UploadId,
          PartNumber: 1,
          CopySource: 'copy-range/src.bin',
          CopySourceRange,
        }),
      );
    for (const range of ['bytes=0-99999999999999999999', 'bytes=50-10'])
      await expectS3Error(copyPart(range), {
        code: 'InvalidArgument',
        status: 400,
        message:
          'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy.',
      });
    // Past the end of the 100-byte source: S3's refusal, not a quota's.
    await expectS3Error(copyPart('bytes=0-100'), {
      code: 'InvalidArgument',
      status: 400,
      message: 'Range specified is not valid for source object of size: 100',
    });
    const report = (await tenant.owner.call('GET', '/v1/organisation/usage', undefined, 200)).storage;
    expect(report.usage).toMatchObject({ storedBytes: 100, partBytes: 0, reservedBytes: 0 });
  });

  it('counts a CopyObject by its whole source, whatever copy range header it carries', async () => {
    const { tenant, writer } = await sourceUnderQuota('quota-copy-whole', 'copy-whole', 150);
    // S3 ignores the header on CopyObject and copies all 100 bytes: 200 do not fit in 150.
    writer.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers['x-amz-copy-source-range'] =
          'bytes=0-0';
        return next(args);
      },
      { step: 'build' },
    );
    await expectS3Error(
      writer.send(
        new CopyObjectCommand({ Bucket: 'copy-whole', Key: 'copy.bin', CopySource: 'copy-whole/src.bin' }),
      ),
      {
        code: 'QuotaExceeded',
        status: 403,
        message:
          "The organisation's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask the platform's administrators to raise the quota.",
      },
    );
    const report = (await tenant.owner.call('GET', '/v1/organisation/usage', undefined, 200)).storage;
    expect(report.usage).toMatchObject({ storedBytes: 100, storedObjects: 1, reservedBytes: 0 });
  });

  it('refuses a copy and a part that would take the organisation past it, and stores nothing', async () => {
    const tenant = await addOrganisation(admin, 'quota-org-writes');
    await tenant.owner.createBucket('org-writes-a');
    await tenant.owner.createBucket('org-writes-b');
    const key = await tenant.owner.createCredential('writer', { buckets: ['*'], level: 'read-write' });
    const writer = pathStyleClient(gw, key);
    await writer.send(
      new PutObjectCommand({ Bucket: 'org-writes-a', Key: 'six.bin', Body: Buffer.alloc(6 * MiB, 6) }),
    );
    await admin.call(
      'PATCH',
      `/v1/organisation?organisationId=${tenant.organisationId}`,
      { limits: { maxBytes: 10 * MiB } },
      200,
    );
    const ORGANISATION_QUOTA_EXCEEDED = {
      code: 'QuotaExceeded',
      status: 403,
      message:
        "The organisation's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask the platform's administrators to raise the quota.",
    };
    // Into the other bucket, which has no quota of its own: 6 + 6 MiB is over the organisation's 10.
    await expectS3Error(
      writer.send(
        new CopyObjectCommand({
          Bucket: 'org-writes-b',
          Key: 'copy.bin',
          CopySource: 'org-writes-a/six.bin',
        }),
      ),
      ORGANISATION_QUOTA_EXCEEDED,
    );
    const UploadId = (
      await writer.send(new CreateMultipartUploadCommand({ Bucket: 'org-writes-b', Key: 'parts.bin' }))
    ).UploadId as string;
    const part = (PartNumber: number, size: number) =>
      writer.send(
        new UploadPartCommand({
          Bucket: 'org-writes-b',
          Key: 'parts.bin',
          UploadId,
          PartNumber,
          Body: Buffer.alloc(size, PartNumber),
        }),
      );
    await part(1, 3 * MiB);
    await expectS3Error(part(2, 2 * MiB), ORGANISATION_QUOTA_EXCEEDED);
    await expectS3Error(writer.send(new HeadObjectCommand({ Bucket: 'org-writes-b', Key: 'copy.bin' })), {
      code: 'NotFound',
      status: 404,
    });
    const report = (await tenant.owner.call('GET', '/v1/organisation/usage', undefined, 200)).storage;
    expect(report.usage).toMatchObject({
      storedBytes: 6 * MiB,
      storedObjects: 1,
      partBytes: 3 * MiB,
      reservedBytes: 0,
    });
    expect(report.buckets).toEqual([
      expect.objectContaining({
        bucket: 'org-writes-a',
        usage: expect.objectContaining({ storedBytes: 6 * MiB, partBytes: 0 }),
      }),
      expect.objectContaining({
        bucket: 'org-writes-b',
        usage: expect.objectContaining({ storedBytes: 0, partBytes: 3 * MiB }),
      }),
    ]);
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

    // An upload under way, its part sent past the gateway: --all counts it with the rest.
    const UploadId = (
      await direct.send(new CreateMultipartUploadCommand({ Bucket: 'quota-recount', Key: 'parts.bin' }))
    ).UploadId as string;
    await direct.send(
      new UploadPartCommand({
        Bucket: 'quota-recount',
        Key: 'parts.bin',
        UploadId,
        PartNumber: 1,
        Body: 'p'.repeat(7),
      }),
    );
    const all = await runAdminCommand(['recount-usage', '--all'], {
      DATABASE_URL: gw.database?.url,
      GATEWAY_BACKEND_URL: backend.endpoint.toString(),
      GATEWAY_BACKEND_ACCESS_KEY_ID: backend.credentials.accessKeyId,
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: backend.credentials.secretAccessKey,
    });
    expect(all.split('\n')).toContain(
      'quota-recount: the store holds 2 object(s), 150 byte(s) and 7 byte(s) in 1 part(s) of uploads under way; usage set to that (was 2 object(s), 150 byte(s))',
    );
    expect(await usageOf('quota-recount')).toEqual(held(150, 2, 7));
    await direct.send(
      new AbortMultipartUploadCommand({ Bucket: 'quota-recount', Key: 'parts.bin', UploadId }),
    );
    await runAdminCommand(['recount-usage', 'quota-recount'], {
      DATABASE_URL: gw.database?.url,
      GATEWAY_BACKEND_URL: backend.endpoint.toString(),
      GATEWAY_BACKEND_ACCESS_KEY_ID: backend.credentials.accessKeyId,
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: backend.credentials.secretAccessKey,
    });
    expect(await usageOf('quota-recount')).toEqual(held(150, 2));
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'quota-recount', Key: 'more.bin', Body: 'm'.repeat(9_851) })),
      BUCKET_QUOTA_EXCEEDED,
    );
  });
});
