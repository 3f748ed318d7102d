/**
 * GATEWAY_WORKERS: the storage endpoint served by several processes, as production runs it (the
 * compiled build, a separate process, configured by its environment).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, type ControlClient, type StorageKey } from '../support/control-plane.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import {
  buildGateway,
  childProcesses,
  startGatewayProcess,
  type GatewayProcess,
  type LogLine,
} from '../support/gateway-process.js';
import { answersOnNewConnection } from '../support/listener.js';

const ADMIN_EMAIL = 'admin@example.test';
const ADMIN_PASSWORD = 'correct horse battery staple';
const BUCKET = 'workers';
const WORKER_MARKER = 'worker-main';
const OPERATOR_V8_FLAG = '--heap-growing-percent=50';

/** A client that opens a new connection for every request, so node:cluster spreads them over the workers. */
function freshConnectionClient(s3Url: string, key: StorageKey): S3Client {
  return new S3Client({
    endpoint: s3Url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secret },
    maxAttempts: 1,
    requestHandler: { httpAgent: new http.Agent({ keepAlive: false }) },
  });
}

function accessLines(gateway: GatewayProcess): LogLine[] {
  return gateway.logs().filter((line) => line.msg === 's3 request');
}

/** The sum of every series of a counter in one scrape of the metrics listener. */
async function scrapeTotal(gateway: GatewayProcess, name: string): Promise<number> {
  const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.split(' ').at(-1));
  }
  return total;
}

/*
 * On PostgreSQL each worker LISTENs for changes itself; the embedded database cannot carry NOTIFY,
 * so there the main process relays them: both ways are run when a real PostgreSQL is at hand.
 */
const DATABASES = realPostgresFor('the storage workers on PostgreSQL')
  ? (['embedded', 'postgres'] as const)
  : (['embedded'] as const);

/** Built once for both runs. */
let build: Promise<string> | null = null;

describe.each(DATABASES)('storage workers (GATEWAY_WORKERS=2, compiled build, %s database)', (kind) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-workers-'));
  let database: TestDatabase | null = null;
  let gateway: GatewayProcess;
  let control: ControlClient;
  let key: StorageKey;

  beforeAll(async () => {
    build ??= buildGateway('.test-dist-workers');
    const entry = await build;
    database = kind === 'postgres' ? await createTestDatabase() : null;
    gateway = await startGatewayProcess(
      entry,
      {
        GATEWAY_WORKERS: '2',
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_S3_LISTEN: '127.0.0.1:0',
        GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
        GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
        GATEWAY_ADMIN_EMAIL: ADMIN_EMAIL,
        GATEWAY_ADMIN_PASSWORD: ADMIN_PASSWORD,
        GATEWAY_SHUTDOWN_GRACE_SECONDS: '10',
        GATEWAY_LOG_LEVEL: 'info',
        // No glibc tunable of the operator's: the workers' own arena setting applies.
        GLIBC_TUNABLES: '',
        ...(database === null ? {} : { DATABASE_URL: database.url }),
      },
      undefined,
      // An operator's V8 flag on the main process (README, production): every worker runs with it.
      [OPERATOR_V8_FLAG],
    );
    control = await login(gateway.controlUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await control.createBucket(BUCKET);
    key = await control.createCredential('workers', { buckets: [BUCKET], level: 'read-write' });
  }, 120_000);

  afterAll(async () => {
    if (gateway !== undefined && gateway.child.exitCode === null) {
      gateway.child.kill('SIGKILL');
      await gateway.exited();
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the storage endpoint from two worker processes beside the main one', async () => {
    const workers = childProcesses(gateway.child.pid ?? 0, WORKER_MARKER);
    expect(workers).toHaveLength(2);
    // Each worker caps its young generation, allocates nothing pretenured, counts external memory
    // in the heap's limits, and keeps the flags the main process was started with.
    for (const pid of workers) {
      const flags = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(flags).toEqual(
        expect.arrayContaining([
          '--max-semi-space-size=16',
          '--no-allocation-site-pretenuring',
          '--external-memory-accounted-in-global-limit',
          OPERATOR_V8_FLAG,
        ]),
      );
      // One malloc arena, unless the environment the gateway started in already named a number.
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environment).toContain(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '1'}`);
    }
    const s3 = freshConnectionClient(gateway.s3Url, key);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'hello.txt', Body: 'hello workers' }));
    // The kernel spreads new connections over the workers' sockets: a few reach both.
    await eventually('both workers answered', async () => {
      const answer = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }));
      expect(await answer.Body?.transformToString()).toBe('hello workers');
      return new Set(accessLines(gateway).map((line) => line.worker)).size === 2;
    });
    expect([...new Set(accessLines(gateway).map((line) => line.worker))].sort()).toEqual([1, 2]);
  });

  it('shows every worker in one scrape of the metrics listener', async () => {
    // Every answered request is counted once, by whichever worker answered it; the access log
    // lines (written asynchronously) and one scrape agree once both have caught up.
    await eventually(
      'one scrape counts every logged request',
      async () => (await scrapeTotal(gateway, 'gateway_s3_requests_total')) === accessLines(gateway).length,
    );
    expect(accessLines(gateway).length).toBeGreaterThan(2);
    expect(await scrapeTotal(gateway, 'gateway_storage_workers')).toBe(2);
  });

  it('a revoked key is refused by every worker at once', async () => {
    const doomed = await control.createCredential('doomed', { buckets: [BUCKET], level: 'read-only' });
    const s3 = freshConnectionClient(gateway.s3Url, doomed);
    // Both workers load and cache the key.
    const before = accessLines(gateway).length;
    await eventually('both workers served the key', async () => {
      await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }));
      const served = accessLines(gateway)
        .slice(before)
        .filter((line) => line.accessKeyId === doomed.accessKeyId && line.status === 200);
      return new Set(served.map((line) => line.worker)).size === 2;
    });

    await control.revokeCredential(doomed.accessKeyId);
    const afterRevoke = accessLines(gateway).length;
    // Each worker learns of the revocation on its own (NOTIFY, or the main process's relay); a
    // request is sent until both have refused the key.
    await eventually('both workers refused the revoked key', async () => {
      const refused = await s3
        .send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }))
        .then(() => null)
        .catch((error: { name?: string }) => error.name);
      if (refused === null) return false;
      expect(refused).toBe('InvalidAccessKeyId');
      const refusals = accessLines(gateway)
        .slice(afterRevoke)
        .filter((line) => line.code === 'InvalidAccessKeyId');
      return new Set(refusals.map((line) => line.worker)).size === 2;
    });
  });

  it('logs and replaces a worker that dies', async () => {
    const [victim, survivor] = childProcesses(gateway.child.pid ?? 0, WORKER_MARKER);
    process.kill(victim as number, 'SIGKILL');
    const logged = await gateway.waitForLog((line) => line.pid === victim);
    expect(logged.level).toBe(50);
    expect(logged.msg).toBe('storage worker stopped unexpectedly (signal SIGKILL); starting a replacement');
    await eventually('a replacement worker runs', () => {
      const now = childProcesses(gateway.child.pid ?? 0, WORKER_MARKER);
      return now.length === 2 && now.includes(survivor as number) && !now.includes(victim as number);
    });
    await eventually(
      'the replacement serves',
      async () => (await scrapeTotal(gateway, 'gateway_storage_workers')) === 2,
    );
    expect(await scrapeTotal(gateway, 'gateway_storage_worker_restarts_total')).toBe(1);
    const s3 = freshConnectionClient(gateway.s3Url, key);
    for (let i = 0; i < 4; i += 1) {
      const answer = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }));
      expect(await answer.Body?.transformToString()).toBe('hello workers');
    }
  });

  it('drains every worker on SIGTERM: a download in flight completes, then all processes exit', async () => {
    const s3 = freshConnectionClient(gateway.s3Url, key);
    const size = 8 * 1024 * 1024;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'big.bin', Body: Buffer.alloc(size, 7) }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'big.bin' }), {
      expiresIn: 300,
    });
    const workers = childProcesses(gateway.child.pid ?? 0, WORKER_MARKER);

    // The download starts, then waits (paused) while the gateway shuts down around it.
    const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(url, { agent: false }, resolve).on('error', reject),
    );
    expect(response.statusCode).toBe(200);
    response.pause();
    gateway.child.kill('SIGTERM');
    await eventually(
      'the storage listener stops accepting',
      async () => !(await answersOnNewConnection(`${gateway.s3Url}/_gateway/live`)),
    );

    let received = 0;
    response.on('data', (chunk: Buffer) => (received += chunk.length));
    response.resume();
    await new Promise((resolve, reject) => response.on('end', resolve).on('error', reject));
    expect(received).toBe(size);

    expect(await gateway.exited()).toEqual({ code: 0, signal: null });
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    expect(gateway.logs().at(-1)?.msg).toBe('gateway stopped');
  });
});
