import { DeleteObjectCommand, DeleteObjectsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bucketScope } from '../../../src/store/usage-scopes.js';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';
import {
  BUCKET_QUOTA_EXCEEDED,
  bucketWithQuota,
  held,
  storeHolds as storeHoldsOf,
  usageOf,
} from '../../support/storage-usage.js';
import { eventually } from '../../support/eventually.js';
import { startHeldPut } from '../../support/s3/held-upload.js';

/**
 * The sizes the gateway keeps of a counted bucket's objects: an upload or a deletion reads what it
 * replaces from them instead of asking the store with a HEAD first, and the counts stay what the
 * store holds. The recording backend shows every request the store receives.
 */
let backend: RecordingBackend;
let gw: TestGateway;
let admin: ControlClient;
let s3: S3Client;

beforeAll(async () => {
  backend = await startRecordingBackend();
  gw = await startTestGateway(backend.env);
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  s3 = pathStyleClient(gw);
});
afterAll(async () => {
  await gw?.stop();
  await backend?.stop();
});
beforeEach(() => {
  backend.requests.length = 0;
});

const put = (bucket: string, key: string, size: number) =>
  s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.alloc(size, 120) }));
const remove = (bucket: string, key: string) =>
  s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));

/** The HEAD requests the store received since the test began. */
const heads = () =>
  backend.requests.filter((request) => request.method === 'HEAD').map((request) => request.target);

/** What the store holds in the bucket, from a listing of it past the gateway. */
const storeHolds = (bucket: string) => storeHoldsOf(gw, bucket);

describe('a bucket counted from a listing of the store', () => {
  it('counts uploads, overwrites and deletions by the sizes it keeps, without asking the store first', async () => {
    expect((await admin.post('/v1/buckets', { name: 'sizes-listed' })).status).toBe(201);
    // Stored before the quota: the listing that starts the count tells its size.
    await put('sizes-listed', 'before.bin', 700);
    const quota = await admin.patch('/v1/buckets/sizes-listed', { quota: { maxBytes: 1000, maxObjects: 2 } });
    expect(quota.status, quota.text).toBe(200);
    backend.requests.length = 0;

    // 900 over the 700 there adds 200: admitted at once, however full the bucket looks to a new object.
    await put('sizes-listed', 'before.bin', 900);
    await put('sizes-listed', 'new.bin', 100);
    expect(await usageOf(admin, 'sizes-listed')).toEqual(held(1000, 2));
    await expectS3Error(put('sizes-listed', 'third.bin', 0), BUCKET_QUOTA_EXCEEDED);
    await expectS3Error(put('sizes-listed', 'new.bin', 101), BUCKET_QUOTA_EXCEEDED);
    await remove('sizes-listed', 'before.bin');
    await remove('sizes-listed', 'never-there.bin');
    expect(await usageOf(admin, 'sizes-listed')).toEqual(held(100, 1));
    await put('sizes-listed', 'new.bin', 1000);
    expect(await usageOf(admin, 'sizes-listed')).toEqual(held(1000, 1));

    expect(await storeHolds('sizes-listed')).toEqual({ bytes: 1000, objects: 1 });
    expect(heads()).toEqual([]);
  });

  it('keeps the sizes of a bucket created while its organisation is counted, without asking the store', async () => {
    const tenant = await addOrganisation(admin, 'sizes-tenant');
    const set = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { maxBytes: 1_000_000 },
    });
    expect(set.status, set.text).toBe(200);
    expect((await tenant.owner.post('/v1/buckets', { name: 'sizes-created' })).status).toBe(201);
    const created = await tenant.owner.post('/v1/credentials', {
      name: 'writer',
      scope: { buckets: ['*'], level: 'read-write' },
    });
    const writer = pathStyleClient(gw, {
      accessKeyId: created.body.accessKeyId,
      secret: created.body.secret,
    });
    const upload = (key: string, size: number) =>
      writer.send(new PutObjectCommand({ Bucket: 'sizes-created', Key: key, Body: 'x'.repeat(size) }));
    backend.requests.length = 0;

    await upload('a.bin', 10);
    await upload('a.bin', 30);
    await writer.send(new DeleteObjectCommand({ Bucket: 'sizes-created', Key: 'a.bin' }));
    await upload('b.bin', 5);
    expect(await usageOf(tenant.owner, 'sizes-created')).toEqual(held(5, 1));
    expect(heads()).toEqual([]);
  });
});

describe('a write that does not fit while another write holds its key', () => {
  it('waits for that write, and is admitted by what it adds to what that write stored', async () => {
    await bucketWithQuota(admin, 'sizes-turns', { maxBytes: 1000 });
    const first = await startHeldPut({
      baseUrl: gw.s3Url,
      credential: gw.credential,
      path: '/sizes-turns/k.bin',
      query: {},
      body: Buffer.alloc(900, 1),
      sentFirst: 100,
    });
    await eventually(
      'the first upload holds its room',
      async () => (await usageOf(admin, 'sizes-turns'))?.reservedBytes === 900,
    );
    // As a new object 500 more would not fit; once the first write has stored 900, it adds nothing.
    const second = put('sizes-turns', 'k.bin', 500);
    expect((await first.finish()).status).toBe(200);
    await second;
    expect(await usageOf(admin, 'sizes-turns')).toEqual(held(500, 1));
    expect(await storeHolds('sizes-turns')).toEqual({ bytes: 500, objects: 1 });
  });
});

describe('DeleteObjects in a bucket counted from a listing', () => {
  it('reads what its keys held from the sizes kept, and asks the store only what the deleted ones hold after', async () => {
    await bucketWithQuota(admin, 'sizes-batch', { maxBytes: 10_000 });
    await put('sizes-batch', 'one.bin', 100);
    await put('sizes-batch', 'two.bin', 200);
    backend.requests.length = 0;

    await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'sizes-batch',
        Delete: { Objects: [{ Key: 'one.bin' }, { Key: 'two.bin' }, { Key: 'never-there.bin' }] },
      }),
    );
    expect(await usageOf(admin, 'sizes-batch')).toEqual(held(0, 0));
    // A deleted version may leave another current: the store is asked after, for the keys it held.
    expect(heads().sort()).toEqual(['/sizes-batch/one.bin', '/sizes-batch/two.bin']);
    // The keys DeleteObjects found empty are still known to be: the next upload to one asks nothing.
    backend.requests.length = 0;
    await put('sizes-batch', 'never-there.bin', 50);
    await put('sizes-batch', 'one.bin', 60);
    expect(await usageOf(admin, 'sizes-batch')).toEqual(held(110, 2));
    expect(heads()).toEqual([]);
  });
});

describe("the control plane's deletion in a bucket counted from a listing", () => {
  it('forgets the sizes of the keys it deleted: the next uploads to them count as new objects', async () => {
    await bucketWithQuota(admin, 'sizes-console', { maxBytes: 1000 });
    await put('sizes-console', 'a.bin', 300);
    await put('sizes-console', 'b.bin', 200);
    const deleted = await admin.post('/v1/buckets/sizes-console/objects/delete', { keys: ['a.bin'] });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await usageOf(admin, 'sizes-console')).toEqual(held(200, 1));
    backend.requests.length = 0;

    await put('sizes-console', 'a.bin', 700);
    await expectS3Error(put('sizes-console', 'c.bin', 101), BUCKET_QUOTA_EXCEEDED);
    await put('sizes-console', 'a.bin', 800);
    expect(await usageOf(admin, 'sizes-console')).toEqual(held(1000, 2));
    expect(await storeHolds('sizes-console')).toEqual({ bytes: 1000, objects: 2 });
    expect(heads()).toEqual([]);
  });
});

describe('a bucket whose sizes the gateway does not all know', () => {
  it('asks the store what each write replaces, and counts exactly as before', async () => {
    await bucketWithQuota(admin, 'sizes-unlisted', { maxBytes: 1000 });
    await put('sizes-unlisted', 'a.bin', 600);
    // As a bucket counted before the gateway kept sizes.
    const { sql } = gw.gateway.context.store.db;
    await sql`UPDATE storage_usage SET objects_listed = false WHERE scope = ${bucketScope('sizes-unlisted')}`;
    await sql`DELETE FROM storage_objects WHERE bucket = 'sizes-unlisted'`;
    backend.requests.length = 0;

    await put('sizes-unlisted', 'a.bin', 900);
    expect(await usageOf(admin, 'sizes-unlisted')).toEqual(held(900, 1));
    await remove('sizes-unlisted', 'a.bin');
    expect(await usageOf(admin, 'sizes-unlisted')).toEqual(held(0, 0));
    expect(heads()).toEqual(['/sizes-unlisted/a.bin', '/sizes-unlisted/a.bin']);
  });
});
