/**
 * The scenario every S3 client goes through against the gateway in front of Ceph RGW. A driver
 * maps each step onto the client's own commands or API; the steps, their assertions and their
 * names (which become the rows of the results table) are the same for every client.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import type { StorageKey } from '../../support/control-plane.js';
import type { LoopbackResolver } from './drivers/loopback-agent.js';
import { EARLIER_STEP_FAILED } from './step-failure.js';
import { startWorld, storedEtag, storedObject, uniqueName, type World } from './world.js';

export const MiB = 1024 * 1024;
/** Large enough to need multipart with 8 MiB parts (3 parts) and with minio's 5 MiB minimum (4 parts). */
export const LARGE_SIZE = 17 * MiB;

export type Addressing = 'path' | 'virtual';

export interface Connection {
  key: StorageKey;
  addressing: Addressing;
}

export interface ListedObject {
  key: string;
  size: number;
}

/** The S3 error a client reported, as the client shows it. */
export class ClientRefusal extends Error {
  constructor(
    readonly code: string,
    /** The error document's Message as the client shows it (null when the client shows none). */
    readonly s3Message: string | null,
    /** The HTTP status, when the client shows it. */
    readonly status: number | null,
    readonly output: string,
  ) {
    super(`${code} (${status ?? 'status not shown'}): ${s3Message ?? 'no message shown'}\n${output}`);
    this.name = 'ClientRefusal';
  }
}

export interface ClientEnvironment {
  world: World;
  /** The client's scratch directory: HOME, configuration files, downloads. */
  workDir: string;
}

export interface S3ClientDriver {
  readonly name: string;
  /** Part size the driver configures for multipart uploads (the large object's part count follows). */
  readonly partSize: number;
  /** Whether refusals carry the HTTP status (some clients show only the code and message). */
  readonly showsStatus: boolean;
  version(): Promise<string>;
  put(connection: Connection, bucket: string, key: string, file: string): Promise<void>;
  get(connection: Connection, bucket: string, key: string, file: string): Promise<void>;
  list(connection: Connection, bucket: string, prefix: string): Promise<ListedObject[]>;
  copy(connection: Connection, bucket: string, sourceKey: string, key: string): Promise<void>;
  remove(connection: Connection, bucket: string, key: string): Promise<void>;
  /** The client's own bucket creation and deletion (which the storage endpoint refuses). */
  createBucket(connection: Connection, bucket: string): Promise<void>;
  deleteBucket(connection: Connection, bucket: string): Promise<void>;
  /**
   * How the client reaches `<bucket>.<domain>` on loopback: its own resolver (the JavaScript clients'
   * agent), or, when absent, the world's forward proxy.
   */
  readonly virtualHostResolver?: LoopbackResolver;
  /** A presigned SigV4 GET URL made by the client, or absent when the client cannot make one. */
  presignGet?(connection: Connection, bucket: string, key: string, expiresSeconds: number): Promise<string>;
  close?(): Promise<void>;
}

export type DriverFactory = (environment: ClientEnvironment) => S3ClientDriver | Promise<S3ClientDriver>;

// The storage endpoint's refusals as the spec words them (src/s3/errors.ts).
export const BUCKET_DENIED = { code: 'AccessDenied', s3Message: 'Access to this bucket is denied.' };
export const KEY_UNKNOWN = {
  code: 'InvalidAccessKeyId',
  s3Message: 'The AWS Access Key Id you provided does not exist in our records.',
};
export const ACCOUNT_SUSPENDED = {
  code: 'AccountProblem',
  s3Message: 'There is a problem with your account that prevents the operation from completing successfully.',
};

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Awaits a client call that must be refused, and returns what the client reported. */
export async function refusal(call: Promise<unknown>): Promise<ClientRefusal> {
  const outcome = await call.then(
    () => null,
    (error: unknown) => error,
  );
  if (outcome === null) throw new Error('expected the client to report an S3 error, the call succeeded');
  if (!(outcome instanceof ClientRefusal)) throw outcome;
  return outcome;
}

/** Fetches a URL as a browser or curl would: no SDK, no credentials, a descriptive User-Agent. */
export async function fetchBytes(url: string): Promise<{ status: number; body: Buffer }> {
  const response = await fetch(url, { headers: { 'user-agent': 'gateway-e2e-suite' } });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

export interface ClientSuite {
  world(): World;
  environment(): ClientEnvironment;
  driver(): S3ClientDriver;
  /** Tags a test for the results table (client and version); call first in extra tests. */
  tag(context: TestContext): void;
}

export interface ClientSuiteOptions {
  /** False for a client that cannot make SigV4 presigned URLs; its own file then tests what it makes. */
  presignsSigV4: boolean;
  /** Client-specific tests, defined inside the same describe block after the shared ones. */
  extra?: (suite: ClientSuite) => void;
}

/**
 * Defines the client's describe block: the shared scenario, then the client's own tests. The
 * scenario's steps build on each other (what one uploads the next downloads, lists, copies), so
 * after the first failed step the remaining ones fail at once with EARLIER_STEP_FAILED instead of
 * running against a broken state. The client's own tests are independent and always run.
 */
export function describeClient(name: string, factory: DriverFactory, options: ClientSuiteOptions): void {
  describe.sequential(name, () => {
    const rgw = inject('rgw');
    let world: World;
    let environment: ClientEnvironment;
    let driver: S3ClientDriver;
    let version = '';
    const smallKey = 'docs/hello wörld+1.txt';
    const largeKey = 'big/large object.bin';
    let smallFile: string;
    let largeFile: string;
    let small: Buffer;
    let large: Buffer;

    const suite: ClientSuite = {
      world: () => world,
      environment: () => environment,
      driver: () => driver,
      tag: (context) => {
        const meta = context.task.meta as Record<string, unknown>;
        meta.client = name;
        meta.clientVersion = version;
      },
    };
    let failedStep: string | null = null;
    const step = (title: string, body: () => Promise<void>): void => {
      it(title, async (context) => {
        suite.tag(context);
        if (failedStep !== null) throw new Error(`${EARLIER_STEP_FAILED} ("${failedStep}")`);
        // also a step that timed out, whose body may still be running
        context.onTestFailed(() => {
          failedStep ??= title;
        });
        await body();
      });
    };

    beforeAll(async () => {
      world = await startWorld(name.replace(/[^a-z0-9]+/g, ''), rgw);
      environment = { world, workDir: mkdtempSync(path.join(tmpdir(), `gw-e2e-${name}-`)) };
      driver = await factory(environment);
      version = await driver.version();
      small = Buffer.from(`small object for ${name}, ${randomBytes(8).toString('hex')}\n`);
      large = randomBytes(LARGE_SIZE);
      smallFile = path.join(environment.workDir, 'small.txt');
      largeFile = path.join(environment.workDir, 'large.bin');
      writeFileSync(smallFile, small);
      writeFileSync(largeFile, large);
    });
    afterAll(async () => {
      await driver?.close?.();
      await world?.stop();
      if (environment !== undefined) rmSync(environment.workDir, { recursive: true, force: true });
    });

    const rw = (): Connection => ({ key: world.tenant.readWrite, addressing: 'path' });
    const download = (file: string): Buffer => readFileSync(path.join(environment.workDir, file));

    step('upload small object', async () => {
      await driver.put(rw(), world.tenant.bucket, smallKey, smallFile);
      const stored = await storedObject(world, world.tenant.bucket, smallKey);
      expect(stored?.size).toBe(small.length);
      expect(sha256(stored!.body)).toBe(sha256(small));
      expect(stored!.etag).toBe(`"${createHash('md5').update(small).digest('hex')}"`);
    });

    step('upload large object (multipart)', async () => {
      await driver.put(rw(), world.tenant.bucket, largeKey, largeFile);
      const parts = Math.ceil(LARGE_SIZE / driver.partSize);
      // RGW reports a multipart object's ETag as "<md5 of the part md5s>-<part count>".
      expect(await storedEtag(world, world.tenant.bucket, largeKey)).toMatch(
        new RegExp(`^"[0-9a-f]{32}-${parts}"$`),
      );
      const stored = await storedObject(world, world.tenant.bucket, largeKey);
      expect(stored?.size).toBe(LARGE_SIZE);
      expect(sha256(stored!.body)).toBe(sha256(large));
      const uploads = world
        .accessLog()
        .filter((entry) => entry.operation === 'UploadPart' && entry.bucket === world.tenant.bucket);
      expect(uploads.filter((entry) => entry.status === 200).length).toBeGreaterThanOrEqual(parts);
    });

    step('download and compare bytes', async () => {
      await driver.get(rw(), world.tenant.bucket, smallKey, path.join(environment.workDir, 'small.down'));
      expect(sha256(download('small.down'))).toBe(sha256(small));
      await driver.get(rw(), world.tenant.bucket, largeKey, path.join(environment.workDir, 'large.down'));
      const got = download('large.down');
      expect(got.length).toBe(LARGE_SIZE);
      expect(sha256(got)).toBe(sha256(large));
    });

    step('list', async () => {
      const listed = await driver.list(rw(), world.tenant.bucket, '');
      expect([...listed].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: largeKey, size: LARGE_SIZE },
        { key: smallKey, size: small.length },
      ]);
      expect(await driver.list(rw(), world.tenant.bucket, 'docs/')).toEqual([
        { key: smallKey, size: small.length },
      ]);
    });

    step('server-side copy', async () => {
      await driver.copy(rw(), world.tenant.bucket, smallKey, 'copies/small copy.txt');
      await driver.copy(rw(), world.tenant.bucket, largeKey, 'copies/large copy.bin');
      const smallCopy = await storedObject(world, world.tenant.bucket, 'copies/small copy.txt');
      const largeCopy = await storedObject(world, world.tenant.bucket, 'copies/large copy.bin');
      expect(sha256(smallCopy!.body)).toBe(sha256(small));
      expect(largeCopy?.size).toBe(LARGE_SIZE);
      expect(sha256(largeCopy!.body)).toBe(sha256(large));
      // The bytes never left the store: no upload of them went through the gateway.
      const copies = world
        .accessLog()
        .filter(
          (entry) => entry.target.includes('/copies/') && entry.method === 'PUT' && entry.status === 200,
        );
      expect(
        copies.every((entry) => ['CopyObject', 'UploadPartCopy', 'PutObjectAcl'].includes(entry.operation)),
      ).toBe(true);
      expect(copies.length).toBeGreaterThan(0);
    });

    if (options.presignsSigV4) {
      step('presigned GET', async () => {
        const presign = driver.presignGet?.bind(driver);
        if (presign === undefined) throw new Error(`the ${name} driver cannot presign`);
        const smallUrl = await presign(rw(), world.tenant.bucket, smallKey, 300);
        expect(smallUrl).toContain('X-Amz-Signature=');
        const smallAnswer = await fetchBytes(smallUrl);
        expect(smallAnswer.status).toBe(200);
        expect(sha256(smallAnswer.body)).toBe(sha256(small));
        const largeAnswer = await fetchBytes(await presign(rw(), world.tenant.bucket, largeKey, 300));
        expect(largeAnswer.status).toBe(200);
        expect(sha256(largeAnswer.body)).toBe(sha256(large));
      });
    }

    step('read-only credential: reads, writing → AccessDenied', async () => {
      const readOnly: Connection = { key: world.tenant.readOnly, addressing: 'path' };
      await driver.get(readOnly, world.tenant.bucket, smallKey, path.join(environment.workDir, 'ro.down'));
      expect(download('ro.down').equals(small)).toBe(true);
      const refused = await refusal(
        driver.put(readOnly, world.tenant.bucket, 'read-only/denied.txt', smallFile),
      );
      expect(refused).toMatchObject(BUCKET_DENIED);
      if (driver.showsStatus) expect(refused.status).toBe(403);
      expect(await storedEtag(world, world.tenant.bucket, 'read-only/denied.txt')).toBeNull();
    });

    step('bucket outside the scope → AccessDenied', async () => {
      const listRefused = await refusal(driver.list(rw(), world.tenant.otherBucket, ''));
      expect(listRefused).toMatchObject(BUCKET_DENIED);
      const putRefused = await refusal(driver.put(rw(), world.tenant.otherBucket, 'denied.txt', smallFile));
      expect(putRefused).toMatchObject(BUCKET_DENIED);
      if (driver.showsStatus) expect([listRefused.status, putRefused.status]).toEqual([403, 403]);
      expect(await storedEtag(world, world.tenant.otherBucket, 'denied.txt')).toBeNull();
    });

    step('revoked key → InvalidAccessKeyId', async () => {
      const key = await world.tenant.owner.createCredential(uniqueName('soon revoked'), {
        buckets: [world.tenant.bucket],
        level: 'read-only',
      });
      const connection: Connection = { key, addressing: 'path' };
      expect(
        (await driver.list(connection, world.tenant.bucket, 'docs/')).map((object) => object.key),
      ).toEqual([smallKey]);
      await world.tenant.owner.revokeCredential(key.accessKeyId);
      const refused = await refusal(driver.list(connection, world.tenant.bucket, 'docs/'));
      expect(refused).toMatchObject(KEY_UNKNOWN);
      if (driver.showsStatus) expect(refused.status).toBe(403);
    });

    step('suspended organisation → AccountProblem', async () => {
      const { bucket, organisationId, key } = world.suspendable;
      const connection: Connection = { key, addressing: 'path' };
      await driver.put(connection, bucket, 'kept.txt', smallFile);
      await world.admin.suspend(organisationId, 'e2e: unpaid invoice');
      try {
        const listRefused = await refusal(driver.list(connection, bucket, ''));
        expect(listRefused).toMatchObject(ACCOUNT_SUSPENDED);
        const putRefused = await refusal(driver.put(connection, bucket, 'while-suspended.txt', smallFile));
        expect(putRefused).toMatchObject(ACCOUNT_SUSPENDED);
        if (driver.showsStatus) expect([listRefused.status, putRefused.status]).toEqual([403, 403]);
        expect(await storedEtag(world, bucket, 'while-suspended.txt')).toBeNull();
      } finally {
        await world.admin.reinstate(organisationId);
      }
      // Nothing was deleted: after reinstatement the same key reads the object again.
      await driver.get(connection, bucket, 'kept.txt', path.join(environment.workDir, 'kept.down'));
      expect(download('kept.down').equals(small)).toBe(true);
    });

    step('create or delete a bucket → MethodNotAllowed', async () => {
      const fresh = uniqueName(`e2e-${name.replace(/[^a-z0-9]+/g, '')}-new`);
      const created = await refusal(driver.createBucket(rw(), fresh));
      const deleted = await refusal(driver.deleteBucket(rw(), world.tenant.bucket));
      expect([created.code, deleted.code]).toEqual(['MethodNotAllowed', 'MethodNotAllowed']);
      if (driver.showsStatus) expect([created.status, deleted.status]).toEqual([405, 405]);
      // neither reached RGW: no new bucket, and the tenant's bucket still holds its objects
      await expect(world.observer.send(new HeadBucketCommand({ Bucket: fresh }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 404 },
      });
      expect(await storedEtag(world, world.tenant.bucket, smallKey)).not.toBeNull();
    });

    step('virtual-hosted addressing', async () => {
      const virtual: Connection = { key: world.tenant.readWrite, addressing: 'virtual' };
      const key = 'virtual/hosted ü.txt';
      const before = world.accessLog().length;
      const resolver = driver.virtualHostResolver;
      resolver?.dropIdleConnections();
      const resolvedBefore = resolver?.resolved.length ?? 0;
      const relayedBefore = world.proxy.hosts.length;
      await driver.put(virtual, world.tenant.bucket, key, smallFile);
      expect(await driver.list(virtual, world.tenant.bucket, 'virtual/')).toEqual([
        { key, size: small.length },
      ]);
      await driver.get(virtual, world.tenant.bucket, key, path.join(environment.workDir, 'virtual.down'));
      expect(download('virtual.down').equals(small)).toBe(true);
      await driver.remove(virtual, world.tenant.bucket, key);
      expect(await storedEtag(world, world.tenant.bucket, key)).toBeNull();
      // The gateway saw these requests addressed by Host (the path holds only the key), never path-style.
      const seen = world.accessLog().slice(before);
      expect(seen.length).toBeGreaterThanOrEqual(4);
      for (const entry of seen) {
        expect(entry.bucket).toBe(world.tenant.bucket);
        expect(entry.target.startsWith(`/${world.tenant.bucket}`)).toBe(false);
      }
      // ...and they got there by the bucket's own host name, through the client's resolver or the proxy.
      const host = `${world.tenant.bucket}.${world.domain}`;
      const relayed = world.proxy.hosts.slice(relayedBefore);
      if (resolver !== undefined) {
        const resolved = resolver.resolved.slice(resolvedBefore);
        expect(resolved.length).toBeGreaterThanOrEqual(1);
        expect(new Set(resolved)).toEqual(new Set([host]));
        expect(relayed).toEqual([]);
      } else {
        // every request the gateway saw was relayed, each with the bucket's own Host header
        expect(new Set(relayed)).toEqual(new Set([`${host}:${world.s3Port}`]));
        expect(relayed.length).toBeGreaterThanOrEqual(seen.length);
      }
    });

    step('delete', async () => {
      for (const key of [smallKey, largeKey, 'copies/small copy.txt', 'copies/large copy.bin']) {
        await driver.remove(rw(), world.tenant.bucket, key);
        expect(await storedEtag(world, world.tenant.bucket, key)).toBeNull();
      }
      expect(await driver.list(rw(), world.tenant.bucket, '')).toEqual([]);
    });

    options.extra?.(suite);
  });
}
