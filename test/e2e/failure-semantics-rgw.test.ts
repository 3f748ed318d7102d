/**
 * Failure answers in front of a real Ceph RGW and a real PostgreSQL (issue 12, items 1, 2, 4 and 6):
 * the store's errors relayed with a message and without its identity, control characters in
 * response-* parameters refused at the edge, a stalled upload answered RequestTimeout with nothing
 * stored, and a PostgreSQL that the test stops and starts again (scripts/postgres: a cluster of
 * its own, so the run's shared database is never touched).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  CompleteMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addOrganisation, ControlClient, login } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../support/s3/clients.js';
import { createBucket, createCredential, type TestCredential } from '../support/s3/fixtures.js';
import { parseS3Error, sendRaw, signedHeaders, type RawResponse } from '../support/s3/raw-requests.js';
import { describeProcess, isolatedEnv, runProcess } from './support/subprocess.js';
import { backendEnv } from './support/rgw.js';

const rgw = inject('rgw');
const rgwEnv = backendEnv(rgw);
const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const repoRoot = path.resolve(import.meta.dirname, '../..');

async function signedGet(gateway: TestGateway, target: string, method = 'GET'): Promise<RawResponse> {
  const url = new URL(target, 'http://x');
  const headers = await signedHeaders({
    credential: gateway.credential,
    method,
    baseUrl: gateway.s3Url,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  return sendRaw(gateway.s3Url, { method, target, headers });
}

/** Headers that would tell a client which store (and which store host) answered. */
function backendIdentity(headers: http.IncomingHttpHeaders): string[] {
  return Object.keys(headers).filter(
    (name) => name.startsWith('x-rgw-') || name === 'x-amz-id-2' || name === 'server',
  );
}

describe('in front of Ceph RGW', () => {
  const bucket = `e2e-faults-${suffix}`;
  const unmade = `e2e-faults-unmade-${suffix}`;
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...rgwEnv, GATEWAY_S3_BODY_IDLE_TIMEOUT_MS: '1000' });
    await createBucket(gateway, bucket);
    // Known to the gateway, missing in the store: the store's own NoSuchBucket.
    await createBucket(gateway, unmade, { inBackend: false });
    await pathStyleClient(gateway).send(
      new PutObjectCommand({ Bucket: bucket, Key: 'small.txt', Body: 'tiny' }),
    );
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('relays the store’s NoSuchKey, NoSuchBucket and InvalidRange with a message, the gateway’s request id and no HostId or x-rgw-* header', async () => {
    const cases = [
      {
        target: `/${bucket}/missing.txt`,
        code: 'NoSuchKey',
        status: 404,
        message: 'The specified key does not exist.',
      },
      {
        target: `/${unmade}/anything.txt`,
        code: 'NoSuchBucket',
        status: 404,
        message: 'The specified bucket does not exist.',
      },
    ];
    for (const { target, code, status, message } of cases) {
      const response = await signedGet(gateway, target);
      const error = parseS3Error(response.body);
      expect({ target, status: response.status, code: error.code, message: error.message }).toEqual({
        target,
        status,
        code,
        message,
      });
      expect(error.requestId).toBe(response.headers['x-amz-request-id']);
      expect(response.body).not.toContain('<HostId>');
      expect(backendIdentity(response.headers)).toEqual([]);
    }
    const range = await (async () => {
      const path = `/${bucket}/small.txt`;
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'GET',
        baseUrl: gateway.s3Url,
        path,
        payloadHash: 'UNSIGNED-PAYLOAD',
        headers: { range: 'bytes=100-200' },
      });
      return sendRaw(gateway.s3Url, { method: 'GET', target: path, headers });
    })();
    expect(range.status).toBe(416);
    expect(parseS3Error(range.body).code).toBe('InvalidRange');
    expect(parseS3Error(range.body).message).toBe('The requested range is not satisfiable.');
    expect(range.body).not.toContain('<HostId>');
    expect(backendIdentity(range.headers)).toEqual([]);
  });

  it('answers a completion of an upload RGW does not know NoSuchUpload, and in a bucket it does not hold NoSuchBucket (it answers both completions 500)', async () => {
    const complete = (Bucket: string) =>
      pathStyleClient(gateway).send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: 'never-started.bin',
          UploadId: '2~no-such-upload-id',
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }] },
        }),
      );
    await expectS3Error(complete(bucket), {
      code: 'NoSuchUpload',
      status: 404,
      message:
        'The specified multipart upload does not exist: the upload id is wrong, or the upload was aborted or completed.',
    });
    await expectS3Error(complete(unmade), {
      code: 'NoSuchBucket',
      status: 404,
      message: 'The specified bucket does not exist.',
    });
  });

  it('gives aws-cli a readable NoSuchKey (it crashed on the store’s empty message)', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'gw-e2e-faults-'));
    try {
      const args = ['--endpoint-url', gateway.s3Url, 's3', 'cp', `s3://${bucket}/missing.txt`, '-'];
      const result = await runProcess('/usr/bin/aws', args, {
        env: isolatedEnv(home, {
          AWS_ACCESS_KEY_ID: gateway.credential.accessKeyId,
          AWS_SECRET_ACCESS_KEY: gateway.credential.secret,
          AWS_DEFAULT_REGION: rgw.region,
          AWS_PAGER: '',
        }),
      });
      expect(result.code, describeProcess('aws', args, result)).not.toBe(0);
      expect(result.stderr).toMatch(/\(404\)|NoSuchKey|Not Found/);
      expect(result.stderr).not.toContain('NoneType');
      expect(result.stderr).not.toContain('Traceback');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses CR, LF or NUL in response-* parameters at the edge, GET and HEAD alike, at once', async () => {
    for (const method of ['GET', 'HEAD']) {
      for (const value of ['text%2Fhtml%0d%0aX-Injected%3A%201', 'a%0ab', 'a%00b']) {
        const response = await signedGet(
          gateway,
          `/${bucket}/small.txt?response-content-type=${value}`,
          method,
        );
        expect({ method, value, status: response.status }).toEqual({ method, value, status: 400 });
        if (method === 'GET') expect(parseS3Error(response.body).code).toBe('InvalidArgument');
        expect(response.headers['x-injected']).toBeUndefined();
      }
    }
    // The store still answers normally afterwards: nothing reached it.
    expect((await signedGet(gateway, `/${bucket}/small.txt`)).body).toBe('tiny');
  });

  it('answers a stalled upload 400 RequestTimeout and RGW stores nothing', async () => {
    const key = 'stalled.bin';
    const target = `/${bucket}/${key}`;
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path: target,
      payloadHash: 'UNSIGNED-PAYLOAD',
      headers: { 'content-length': String(1024 * 1024) },
    });
    const url = new URL(gateway.s3Url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request({
        host: url.hostname,
        port: url.port,
        method: 'PUT',
        path: target,
        headers,
        agent: false,
      });
      request.on('error', reject);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      });
      request.write(Buffer.alloc(64 * 1024, 0x62));
    });
    expect(answer.status).toBe(400);
    expect(parseS3Error(answer.body).code).toBe('RequestTimeout');
    await expectS3Error(pathStyleClient(gateway).send(new HeadObjectCommand({ Bucket: bucket, Key: key })), {
      code: 'NotFound',
      status: 404,
    });
  });
});

const execFileAsync = promisify(execFile);

/** The scripts/postgres cluster of this file: started, stopped (data kept) and started again. */
function postgresScript(script: 'up.sh' | 'down.sh', directory: string, keep = false): Promise<string> {
  return execFileAsync(path.join(repoRoot, 'scripts', 'postgres', script), [directory], {
    env: { ...process.env, ...(keep ? { GATEWAY_PG_KEEP_DIR: '1' } : {}) },
  }).then(({ stdout }) => stdout);
}

/**
 * Expired cache entries served because the database did not answer (stale-if-error) so far, of one
 * kind of record or of all.
 */
async function staleAnswers(gateway: TestGateway, kind?: 'credential' | 'organisation'): Promise<number> {
  const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('gateway_credential_cache_events_total{') || !line.includes('event="stale"'))
      continue;
    if (kind === undefined || line.includes(`kind="${kind}"`))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** A signed GET of `bucket/key` with `credential`. */
async function getWith(
  gateway: TestGateway,
  credential: TestCredential,
  bucket: string,
  key: string,
): Promise<RawResponse> {
  const target = `/${bucket}/${key}`;
  const headers = await signedHeaders({
    credential,
    method: 'GET',
    baseUrl: gateway.s3Url,
    path: target,
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  return sendRaw(gateway.s3Url, { method: 'GET', target, headers });
}

function refusal(response: RawResponse): { status: number; code?: string; message?: string } {
  const { code, message } = parseS3Error(response.body);
  return { status: response.status, code, message };
}

const REVOKED = {
  status: 403,
  code: 'InvalidAccessKeyId',
  message: 'The AWS Access Key Id you provided does not exist in our records.',
};
const SUSPENDED = {
  status: 403,
  code: 'AccountProblem',
  message: 'There is a problem with your account that prevents the operation from completing successfully.',
};

describe('a PostgreSQL that stops and starts again', () => {
  const directory = path.join(tmpdir(), `gateway-postgres-outage-e2e-${suffix}`);
  const bucket = `e2e-pg-outage-${suffix}`;
  const suspendedBucket = `e2e-pg-suspended-${suffix}`;
  let gateway: TestGateway;
  let unseen: TestCredential;
  /** Revoked through DELETE /v1/credentials/{accessKeyId}, and refused once, before the outage. */
  let revoked: TestCredential;
  /** Of an organisation suspended through the control plane, and refused once, before the outage. */
  let suspended: TestCredential;

  beforeAll(async () => {
    const exports = await postgresScript('up.sh', directory);
    const databaseUrl = /DATABASE_URL=(\S+)/.exec(exports)?.[1];
    if (databaseUrl === undefined)
      throw new Error(`scripts/postgres/up.sh printed no DATABASE_URL: ${exports}`);
    gateway = await startTestGateway({
      ...rgwEnv,
      DATABASE_URL: databaseUrl,
      GATEWAY_CACHE_TTL_SECONDS: '1',
      GATEWAY_CACHE_STALE_IF_ERROR_SECONDS: '600',
    });
    await createBucket(gateway, bucket);
    unseen = await createCredential(gateway);
    await pathStyleClient(gateway).send(
      new PutObjectCommand({ Bucket: bucket, Key: 'kept.txt', Body: 'kept' }),
    );

    const admin = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    revoked = await admin.createCredential('revoked before the outage', {
      buckets: [bucket],
      level: 'read-only',
    });
    expect((await getWith(gateway, revoked, bucket, 'kept.txt')).status).toBe(200);
    await admin.revokeCredential(revoked.accessKeyId);
    expect(refusal(await getWith(gateway, revoked, bucket, 'kept.txt'))).toEqual(REVOKED);

    const tenant = await addOrganisation(admin, `e2e-pg-suspended-${suffix}`);
    await tenant.owner.createBucket(suspendedBucket);
    suspended = await tenant.owner.createCredential('theirs', {
      buckets: [suspendedBucket],
      level: 'read-write',
    });
    await pathStyleClient(gateway, suspended).send(
      new PutObjectCommand({ Bucket: suspendedBucket, Key: 'theirs.txt', Body: 'theirs' }),
    );
    await admin.suspend(tenant.organisationId, 'suspended before the outage');
    expect(refusal(await getWith(gateway, suspended, suspendedBucket, 'theirs.txt'))).toEqual(SUSPENDED);

    await postgresScript('down.sh', directory, true);
  }, 180_000);
  afterAll(async () => {
    await postgresScript('up.sh', directory).catch(() => undefined);
    await gateway?.stop();
    await postgresScript('down.sh', directory).catch(() => undefined);
  });

  it('answers a key it never held 503 ServiceUnavailable, and login 503 problem+json, both with Retry-After', async () => {
    const refused = await getWith(gateway, unseen, bucket, 'kept.txt');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refusal(refused)).toEqual({
      status: 503,
      code: 'ServiceUnavailable',
      message: 'The gateway cannot reach its database to check this request. Please retry.',
    });
    const login = await new ControlClient(gateway.controlUrl).post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(login.status).toBe(503);
    expect(login.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(login.headers.get('retry-after')).toBe('5');
    expect(login.body).toMatchObject({
      status: 503,
      code: 'database_unavailable',
      detail: 'The gateway cannot reach its database. Retry after a few seconds.',
    });
  });

  it('keeps serving the key it verified before, from RGW, past the cache TTL', async () => {
    const s3 = pathStyleClient(gateway);
    const before = await staleAnswers(gateway);
    // Reads until one is answered from an expired entry: past the TTL, the database still down.
    await eventually(
      'a read answered from an expired cache entry while the database is down',
      async () => {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'kept.txt' }));
        expect(await object.Body?.transformToString()).toBe('kept');
        return (await staleAnswers(gateway)) > before;
      },
      { intervalMs: 200 },
    );
  });

  it('keeps the revocation and the suspension made through the control plane before the outage', async () => {
    const before = await Promise.all([
      staleAnswers(gateway, 'credential'),
      staleAnswers(gateway, 'organisation'),
    ]);
    await eventually(
      'the revoked key and the suspended organisation refused from expired cache entries',
      async () => {
        expect(refusal(await getWith(gateway, revoked, bucket, 'kept.txt'))).toEqual(REVOKED);
        expect(refusal(await getWith(gateway, suspended, suspendedBucket, 'theirs.txt'))).toEqual(SUSPENDED);
        const now = await Promise.all([
          staleAnswers(gateway, 'credential'),
          staleAnswers(gateway, 'organisation'),
        ]);
        // Only the suspended organisation's entry is read here.
        return now[0] > before[0] && now[1] > before[1];
      },
      { intervalMs: 200 },
    );
  });

  it('recovers by itself once PostgreSQL is back, the revocation and the suspension still in force', async () => {
    await postgresScript('up.sh', directory);
    await eventually(
      'the key it never held served after the restart',
      async () => {
        const response = await getWith(gateway, unseen, bucket, 'kept.txt');
        return response.status === 200 && response.body === 'kept';
      },
      { intervalMs: 200 },
    );
    expect(refusal(await getWith(gateway, revoked, bucket, 'kept.txt'))).toEqual(REVOKED);
    expect(refusal(await getWith(gateway, suspended, suspendedBucket, 'theirs.txt'))).toEqual(SUSPENDED);
  });
});
