import { rmSync } from 'node:fs';
import http from 'node:http';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUOTA_RECORD_OUTCOMES, type QuotaRecordOutcome } from '../../../src/observability/metrics.js';
import { newId } from '../../../src/security/ids.js';
import { stampClock, TombstoneSweep } from '../../../src/store/storage-objects.js';
import { CLOCK_MARGIN_MICROS } from '../../../src/store/storage-records.js';
import { bucketScope } from '../../../src/store/usage-scopes.js';
import { ControlClient, login } from '../../support/control-plane.js';
import { realPostgresFor } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { metricValue, scrapeMetrics } from '../../support/metrics.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { sendRaw, signedHeaders } from '../../support/s3/raw-requests.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';
import { bucketWithQuota, held, storeHolds as storeHoldsOf, usageOf } from '../../support/storage-usage.js';

/**
 * Uploads into a bucket with plenty of room under its quota are admitted from room the process
 * leased in advance, hold no key in the database, and are recorded after the client's answer
 * (store/storage-leases.ts, store/storage-records.ts, s3/limits/leases.ts): the counts still end
 * at what the store holds.
 */
let backend: RecordingBackend;
let gw: TestGateway;
let admin: ControlClient;
let s3: S3Client;

const LARGE_QUOTA = 2 ** 40;
const MIB = 1024 * 1024;

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
const sql = () => gw.gateway.context.store.db.sql;
/** The HEADs of objects of `bucket` the store received since the test began. */
const objectHeads = (bucket: string) =>
  backend.requests
    .filter((request) => request.method === 'HEAD' && request.target.startsWith(`/${bucket}/`))
    .map((request) => request.target)
    .filter((target) => target !== `/${bucket}/`);

const recordSeries = (outcome: QuotaRecordOutcome) => `gateway_quota_records_total{outcome="${outcome}"}`;

/**
 * Holds `key` of `bucket` as another instance does while a write of its exact path (a copy, a
 * deletion) is under way; the function that lets it go.
 */
async function holdAsAnotherInstance(bucket: string, key: string): Promise<() => Promise<void>> {
  const other = newId();
  const hold = newId();
  await sql()`INSERT INTO gateway_instances (id) VALUES (${other}::uuid)`;
  await sql()`
    INSERT INTO storage_reservations (id, instance_id, scopes, bytes, objects, held_key)
    VALUES (${hold}::uuid, ${other}::uuid, ${[bucketScope(bucket)]}::text[], 0, 0, ${`object:${bucket}/${key}`})`;
  return async () => {
    await sql()`DELETE FROM storage_reservations WHERE id = ${hold}::uuid`;
  };
}

/**
 * How gateway_quota_records_total has moved by outcome since the scrape `before`, once it shows
 * `count` more records of `outcome` than then (records are counted once their statement is answered).
 */
async function recordsCounted(
  before: string,
  count: number,
  outcome: QuotaRecordOutcome = 'written',
): Promise<Record<QuotaRecordOutcome, number>> {
  let moved = {} as Record<QuotaRecordOutcome, number>;
  await eventually(
    () => `${count} records counted as ${outcome}; last ${JSON.stringify(moved)}`,
    async () => {
      const after = await scrapeMetrics(gw.metricsUrl);
      moved = Object.fromEntries(
        QUOTA_RECORD_OUTCOMES.map((outcome) => [
          outcome,
          metricValue(after, recordSeries(outcome)) - metricValue(before, recordSeries(outcome)),
        ]),
      ) as Record<QuotaRecordOutcome, number>;
      return moved[outcome] >= count;
    },
  );
  return moved;
}

/** The room the process's lease under the bucket's quota holds now (0: none). */
async function leasedRoom(bucket: string): Promise<number> {
  const [row] = await sql()<{ bytes: string | null }[]>`
    SELECT sum(bytes)::text AS bytes FROM storage_reservations
    WHERE held_key IS NULL AND ${bucketScope(bucket)} = ANY(scopes)`;
  return Number(row?.bytes ?? 0);
}

/** Uploads one object, then waits until the process holds a lease for the bucket. */
async function leaseFor(bucket: string): Promise<void> {
  await put(bucket, 'first.bin', 100);
  await eventually(`a lease for ${bucket}`, async () => (await leasedRoom(bucket)) > 0);
}

/** The bucket's counted usage once nothing waits to be recorded (the lease's room aside). */
async function settledUsage(bucket: string, bytes: number, objects: number): Promise<void> {
  let last: unknown;
  await eventually(
    () => `usage of ${bucket} to hold ${bytes} bytes in ${objects} objects; last ${JSON.stringify(last)}`,
    async () => {
      const usage = await usageOf(admin, bucket);
      last = usage;
      return usage?.storedBytes === bytes && usage.storedObjects === objects;
    },
  );
}

/** Headers of a PUT of `path` by the gateway's credential, its body unsigned (sent by hand, raw). */
function unsignedPutHeaders(path: string, headers: Record<string, string> = {}) {
  return signedHeaders({
    credential: gw.credential,
    method: 'PUT',
    baseUrl: gw.s3Url,
    path,
    payloadHash: 'UNSIGNED-PAYLOAD',
    headers,
  });
}

describe('uploads into a bucket with plenty of room under its quota', () => {
  it('are admitted from a lease and counted once recorded, as the store holds them', async () => {
    await bucketWithQuota(admin, 'leased-many', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-many');
    const before = await scrapeMetrics(gw.metricsUrl);
    const sizes = Array.from({ length: 24 }, (_, index) => 1000 + index);
    await Promise.all(sizes.map((size, index) => put('leased-many', `object-${index}.bin`, size)));

    const total = 100 + sizes.reduce((sum, size) => sum + size, 0);
    await settledUsage('leased-many', total, 25);
    expect(await recordsCounted(before, 24)).toEqual({
      written: 24,
      in_doubt: 0,
      unresolved: 0,
      given_up: 0,
    });
    expect(await storeHoldsOf(gw, 'leased-many')).toEqual({ bytes: total, objects: 25 });
    // The lease's room is reserved for uploads to come; nothing else is.
    const usage = await usageOf(admin, 'leased-many');
    expect(usage?.reservedBytes).toBe(await leasedRoom('leased-many'));
    expect(objectHeads('leased-many')).toEqual([]);
  });

  it('count overwrites from one process by what they replace', async () => {
    await bucketWithQuota(admin, 'leased-overwrites', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-overwrites');
    await put('leased-overwrites', 'same.bin', 1000);
    await put('leased-overwrites', 'same.bin', 300);
    await put('leased-overwrites', 'same.bin', 700);
    await put('leased-overwrites', 'first.bin', 50);
    await settledUsage('leased-overwrites', 750, 2);
    expect(await storeHoldsOf(gw, 'leased-overwrites')).toEqual({ bytes: 750, objects: 2 });
  });

  it('to one key from many clients at once take turns only while in flight, and count what the store holds last', async () => {
    await bucketWithQuota(admin, 'leased-one-key', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-one-key');
    const before = await scrapeMetrics(gw.metricsUrl);
    const sizes = Array.from({ length: 16 }, (_, index) => 2000 + index);
    await Promise.all(sizes.map((size) => put('leased-one-key', 'hot.bin', size)));

    // Whichever the store took last is what it holds; the count follows it, and none of the
    // records was left in doubt (one process's writes to a key never overlap).
    const held = await storeHoldsOf(gw, 'leased-one-key');
    expect(held.objects).toBe(2);
    expect(sizes).toContain(held.bytes - 100);
    await settledUsage('leased-one-key', held.bytes, 2);
    expect(await recordsCounted(before, 16)).toMatchObject({ written: 16, in_doubt: 0 });
    expect(objectHeads('leased-one-key')).toEqual([]);
  });

  it('are recorded before a deletion of their key, which came while one was at the store, reads what it held', async () => {
    await bucketWithQuota(admin, 'leased-then-deleted', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-then-deleted');
    const before = await scrapeMetrics(gw.metricsUrl);
    const path = '/leased-then-deleted/brief.bin';
    const body = Buffer.alloc(256 * 1024, 1);
    const headers = await unsignedPutHeaders(path, { 'content-length': String(body.length) });
    const url = new URL(gw.s3Url);
    const upload = http.request({
      host: url.hostname,
      port: url.port,
      method: 'PUT',
      path,
      headers,
      agent: false,
    });
    const uploaded = new Promise<number>((resolve, reject) => {
      upload.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      upload.on('error', reject);
    });
    upload.write(body.subarray(0, body.length / 2));
    const atStore = () => backend.requests.find((request) => request.target.startsWith(path));
    await eventually('the store receives the upload', () => (atStore()?.bodyBytes ?? 0) > 0);

    // The deletion waits for the upload's turn at the key, its interval begun while the upload
    // is at the store: only if it also waits for the upload's record does it read what the upload
    // left, rather than leave that record in doubt (a HEAD of the key, later).
    const deleted = s3.send(new DeleteObjectCommand({ Bucket: 'leased-then-deleted', Key: 'brief.bin' }));
    await eventually(
      'the deletion under way beside the upload',
      async () => metricValue(await scrapeMetrics(gw.metricsUrl), 'gateway_s3_in_flight_requests') >= 2,
    );
    upload.end(body.subarray(body.length / 2));
    expect(await uploaded).toBe(200);
    await deleted;

    await settledUsage('leased-then-deleted', 100, 1);
    expect(await storeHoldsOf(gw, 'leased-then-deleted')).toEqual({ bytes: 100, objects: 1 });
    expect(await recordsCounted(before, 1)).toMatchObject({ in_doubt: 0 });
    expect(objectHeads('leased-then-deleted')).toEqual([]);
  });

  it('give the room of an upload the client abandons back, and free its key for the next', async () => {
    await bucketWithQuota(admin, 'leased-abandoned', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-abandoned');
    const path = '/leased-abandoned/gone.bin';
    const upstream = () => backend.requests.find((request) => request.target.startsWith(path));
    const headers = await unsignedPutHeaders(path);
    await sendRaw(gw.s3Url, {
      method: 'PUT',
      target: path,
      headers,
      body: Buffer.alloc(2 * MIB, 1),
      abortAfterBytes: 512 * 1024,
      abortWhen: () => eventually('the store receives the upload', () => (upstream()?.bodyBytes ?? 0) > 0),
    });
    await eventually('the store to see the upload abandoned', () => upstream()?.abandoned === true);

    // Its turn at the key ended with its send: the next upload of the key goes at once.
    await put('leased-abandoned', 'gone.bin', 300);
    await settledUsage('leased-abandoned', 400, 2);
    expect(await storeHoldsOf(gw, 'leased-abandoned')).toEqual({ bytes: 400, objects: 2 });
    const usage = await usageOf(admin, 'leased-abandoned');
    expect(usage?.reservedBytes).toBe(await leasedRoom('leased-abandoned'));
  });

  it('do not wait for a key another instance holds, and ask the store what it holds once the writes are over', async () => {
    await bucketWithQuota(admin, 'leased-held', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-held');
    const release = await holdAsAnotherInstance('leased-held', 'k.bin');

    // An upload of the exact path would wait for the hold (and end in 503 SlowDown).
    const room = await leasedRoom('leased-held');
    const before = await scrapeMetrics(gw.metricsUrl);
    await put('leased-held', 'k.bin', 4000);
    // Its record gives its room back to the lease, and counts nothing while the key is held.
    await eventually('the record of k.bin', async () => (await leasedRoom('leased-held')) === room - 4000);
    expect(await usageOf(admin, 'leased-held')).toMatchObject({ storedBytes: 100, storedObjects: 1 });
    await release();

    await settledUsage('leased-held', 4100, 2);
    expect(objectHeads('leased-held')).toEqual(['/leased-held/k.bin']);
    // The record in doubt (again if the store was asked while the hold stood), then what the HEAD found.
    const moved = await recordsCounted(before, 1);
    expect(moved).toMatchObject({ written: 1, unresolved: 0, given_up: 0 });
    expect(moved.in_doubt).toBeGreaterThanOrEqual(1);
  });

  it('count a record left in doubt as unresolved when the store cannot say what its key holds', async () => {
    await bucketWithQuota(admin, 'leased-unresolved', { maxBytes: LARGE_QUOTA });
    await leaseFor('leased-unresolved');
    const release = await holdAsAnotherInstance('leased-unresolved', 'k.bin');
    backend.failHead = (target) => (target === '/leased-unresolved/k.bin' ? 503 : null);
    try {
      const before = await scrapeMetrics(gw.metricsUrl);
      await put('leased-unresolved', 'k.bin', 4000);
      const moved = await recordsCounted(before, 1, 'unresolved');
      expect(moved).toMatchObject({ written: 0, in_doubt: 1, unresolved: 1, given_up: 0 });
      expect(objectHeads('leased-unresolved')).toEqual(['/leased-unresolved/k.bin']);
      // Left as it was for a recount to mend: the upload is stored, its record counted nothing.
      expect(await usageOf(admin, 'leased-unresolved')).toMatchObject({ storedBytes: 100, storedObjects: 1 });
      expect(await storeHoldsOf(gw, 'leased-unresolved')).toEqual({ bytes: 4100, objects: 2 });
    } finally {
      backend.failHead = null;
      await release();
    }
  });

  it('give their unused leased room back when an upload of the exact path needs it', async () => {
    const quota = 17 * MIB;
    await bucketWithQuota(admin, 'leased-near', { maxBytes: quota });
    await leaseFor('leased-near');
    expect(await leasedRoom('leased-near')).toBeGreaterThanOrEqual(MIB);

    // Fits beside what is stored, not beside what is stored and leased.
    const large = quota - 100 - MIB / 2;
    await put('leased-near', 'large.bin', large);
    await settledUsage('leased-near', 100 + large, 2);
    expect(await storeHoldsOf(gw, 'leased-near')).toEqual({ bytes: 100 + large, objects: 2 });
  });
});

describe('the records of a key', () => {
  /** Writes one record of `key` and returns the doubtful ones (storage-records.ts). */
  const record = (
    bucket: string,
    key: string,
    bytes: number | null,
    writer: string,
    from: number,
    until: number,
  ) =>
    gw.gateway.context.store.storageRecords.write([
      {
        bucket,
        key,
        scopes: [bucketScope(bucket)],
        bytes,
        writer,
        from,
        until,
        leaseId: null,
        leasedBytes: 0,
      },
    ]);

  it('may come several to a statement: the latest by its interval counts, the earlier change nothing', async () => {
    await bucketWithQuota(admin, 'several', { maxBytes: LARGE_QUOTA });
    const writer = newId();
    const second = 1_000_000;
    const start = 1_800_000_000 * second;
    const of = (key: string, bytes: number | null, from: number) => ({
      bucket: 'several',
      key,
      scopes: [bucketScope('several')],
      bytes,
      writer,
      from,
      until: from + second / 2,
      leaseId: null,
      leasedBytes: 0,
    });
    const statement = (records: ReturnType<typeof of>[]) =>
      gw.gateway.context.store.storageRecords.write(records);

    // One process's writes of a key, given out of order: what the last left counts.
    expect(
      await statement([
        of('k', 70, start + 2 * second),
        of('k', 10, start),
        of('j', 5, start),
        of('k', 30, start + second),
      ]),
    ).toEqual([]);
    expect(await usageOf(admin, 'several')).toEqual(held(75, 2));
    // A deletion and an upload after it, together: the key holds the upload.
    expect(await statement([of('j', null, start + 3 * second), of('j', 8, start + 4 * second)])).toEqual([]);
    expect(await usageOf(admin, 'several')).toEqual(held(78, 2));
    // An upload and a deletion after it: nothing.
    expect(await statement([of('k', 90, start + 3 * second), of('k', null, start + 4 * second)])).toEqual([]);
    expect(await usageOf(admin, 'several')).toEqual(held(8, 1));
  });

  it('are ordered by when their writes were in flight: later ones replace, stale ones and overlapping ones change nothing', async () => {
    await bucketWithQuota(admin, 'ordered', { maxBytes: LARGE_QUOTA });
    const [x, y, z] = [newId(), newId(), newId()];
    const second = 1_000_000;
    const start = 1_800_000_000 * second;

    expect(await record('ordered', 'k', 10, x, start, start + second)).toEqual([]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(10, 1));
    // Another process's write sent after the first was answered (beyond the clocks' margin).
    const later = start + 2 * second + CLOCK_MARGIN_MICROS;
    expect(await record('ordered', 'k', 30, y, later, later + second)).toEqual([]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(30, 1));
    // A late record of a write answered before that one was sent: the store holds the later one.
    expect(await record('ordered', 'k', 50, x, start + second, start + second + 10)).toEqual([]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(30, 1));
    // Overlapping the last write: left to the store's answer.
    expect(await record('ordered', 'k', 70, z, later + second / 2, later + 2 * second)).toEqual([0]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(30, 1));
    // The same process's next write, right after its last: a deletion, which leaves a tombstone.
    expect(await record('ordered', 'k', null, y, later + second, later + 3 * second)).toEqual([]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(0, 0));
    // A write from before the deletion, recorded late, does not bring the object back.
    expect(await record('ordered', 'k', 90, z, later - second, later)).toEqual([]);
    expect(await usageOf(admin, 'ordered')).toEqual(held(0, 0));
  });
});

describe("the control plane's object deletion", () => {
  it('leaves tombstones: a late record of an upload made before it does not count the object again', async () => {
    await bucketWithQuota(admin, 'deleted-by-console', { maxBytes: LARGE_QUOTA });
    const before = stampClock();
    await put('deleted-by-console', 'gone.bin', 500);
    await put('deleted-by-console', 'kept.bin', 300);
    await settledUsage('deleted-by-console', 800, 2);
    const deleted = await admin.post('/v1/buckets/deleted-by-console/objects/delete', { keys: ['gone.bin'] });
    expect(deleted.status, deleted.text).toBe(200);
    await settledUsage('deleted-by-console', 300, 1);

    // As the record of an upload from another process's lease, answered before the deletion.
    const doubtful = await gw.gateway.context.store.storageRecords.write([
      {
        bucket: 'deleted-by-console',
        key: 'gone.bin',
        scopes: [bucketScope('deleted-by-console')],
        bytes: 500,
        writer: newId(),
        from: before - 2 * CLOCK_MARGIN_MICROS,
        until: before - CLOCK_MARGIN_MICROS,
        leaseId: null,
        leasedBytes: 0,
      },
    ]);
    expect(doubtful).toEqual([]);
    expect(await usageOf(admin, 'deleted-by-console')).toMatchObject({ storedBytes: 300, storedObjects: 1 });
  });
});

describe('the tombstones deletions leave', () => {
  it('go once they are an hour old', async () => {
    expect((await admin.post('/v1/buckets', { name: 'tombstones' })).status).toBe(201);
    const now = stampClock();
    const hour = 3_600_000_000;
    const writer = newId();
    for (const [key, until] of [
      ['old', now - hour - 1_000_000],
      ['recent', now - hour + 60_000_000],
    ] as const)
      await sql()`
        INSERT INTO storage_objects (bucket, object_key, bytes, writer, written_from, written_until)
        VALUES ('tombstones', ${key}, NULL, ${writer}::uuid, ${until - 1000}, ${until})`;
    await sql()`INSERT INTO storage_objects (bucket, object_key, bytes) VALUES ('tombstones', 'mark', NULL)`;

    // Two rows a step: the walk takes several steps and ends after the last row. (The gateway's
    // own sweep, a step per heartbeat, may drop the old tombstone first: what is left is the same.)
    const sweep = new TombstoneSweep(sql(), 2);
    const [counted] = await sql()<{ rows: number }[]>`SELECT count(*)::int AS rows FROM storage_objects`;
    const rows = counted?.rows ?? 0;
    let steps = 0;
    for (let wrapped = false; !wrapped; steps += 1) {
      expect(steps).toBeLessThan(rows);
      wrapped = (await sweep.step()).wrapped;
    }
    expect(steps).toBeGreaterThanOrEqual(2);
    const left = await sql()<{ object_key: string }[]>`
      SELECT object_key FROM storage_objects WHERE bucket = 'tombstones' ORDER BY object_key`;
    expect(left.map((row) => row.object_key)).toEqual(['mark', 'recent']);
  });

  it('have no index, so that a record rewrites its row in place (a heap-only update)', async () => {
    expect((await admin.post('/v1/buckets', { name: 'rewritten-in-place' })).status).toBe(201);
    const writer = newId();
    const hot = await sql().begin(async (tx) => {
      await tx`
        INSERT INTO storage_objects (bucket, object_key, bytes, writer, written_from, written_until)
        VALUES ('rewritten-in-place', 'k', 100, ${writer}::uuid, 1, 2)`;
      // What a record of a deletion changes: the size, and the stamp.
      await tx`
        UPDATE storage_objects SET bytes = NULL, written_from = 3, written_until = 4
        WHERE bucket = 'rewritten-in-place' AND object_key = 'k'`;
      const [row] = await tx<{ hot: number }[]>`
        SELECT pg_stat_get_xact_tuples_hot_updated('storage_objects'::regclass)::int AS hot`;
      return row?.hot;
    });
    expect(hot).toBe(1);
  });
});

// Its database is read after the gateway stopped: a real PostgreSQL server outlives it.
const postgres = realPostgresFor('the test of leases given back at shutdown');

describe.runIf(postgres)('a gateway that stops', () => {
  it('records what its uploads left and gives its leases back first', async () => {
    const own = await startTestGateway(backend.env);
    let stopped = false;
    try {
      const client = await login(own.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
      await bucketWithQuota(client, 'leased-stop', { maxBytes: LARGE_QUOTA });
      const ownS3 = pathStyleClient(own);
      const ownPut = (key: string, size: number) =>
        ownS3.send(new PutObjectCommand({ Bucket: 'leased-stop', Key: key, Body: Buffer.alloc(size, 1) }));
      await ownPut('first.bin', 100);
      const db = own.database?.connect(1);
      if (db === undefined) throw new Error('expected a real database');
      try {
        const leased = async () => {
          const [row] = await db.sql<{ count: number }[]>`
            SELECT count(*)::int AS count FROM storage_reservations WHERE held_key IS NULL`;
          return row?.count ?? 0;
        };
        await eventually('a lease', async () => (await leased()) > 0);
        await Promise.all([ownPut('a.bin', 1000), ownPut('b.bin', 2000)]);
        await own.gateway.stop();
        stopped = true;

        expect(await leased()).toBe(0);
        const [usage] = await db.sql<{ stored: string; objects: string; reserved: string }[]>`
          SELECT stored_bytes::text AS stored, stored_objects::text AS objects, reserved_bytes::text AS reserved
          FROM storage_usage WHERE scope = ${bucketScope('leased-stop')}`;
        expect(usage).toEqual({ stored: '3100', objects: '3', reserved: '0' });
      } finally {
        await db.close();
      }
    } finally {
      // Stopped here to read its database afterwards; own.stop() would read its store (the log audit).
      if (stopped) {
        await own.database?.drop();
        rmSync(own.config.dataDir, { recursive: true, force: true });
      } else await own.stop();
    }
  });
});
