import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/observability/logger.js';
import { startGateway, type RunningGateway } from '../../../src/runtime.js';
import { realPostgresFor } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { parseS3Error } from '../../support/s3/raw-requests.js';
import type { TestCredential } from '../../support/s3/fixtures.js';
import { addOrganisation, login } from '../../support/control-plane.js';

const postgres = realPostgresFor('the shared request rate limit test');

/** The organisation's burst: each of the two gateways admits its half of it at once. */
const BURST = 20;
/**
 * The organisation's rate: a request every 500 s, so every 1,000 s for each gateway's half. No
 * token comes back while the test runs, however slowly a loaded machine runs it: what each gateway
 * admits is exactly its half of the burst, and the Retry-After of its refusal (the time its next
 * token takes, ceil((1 - refilled) / its rate)) shows which share of the rate it applies.
 */
const RATE = 0.002;
const SLOW_DOWN = {
  code: 'SlowDown',
  message: 'Please reduce your request rate: the organisation is over its requests-per-second limit.',
};

/**
 * Two gateways on one PostgreSQL, in front of one object store, share an organisation's request
 * rate: each takes half of it (store/instances.ts counts them), so the two together admit the
 * organisation's burst and no more, and each refills at half the rate. Token arithmetic over time
 * is unit-tested with an injected clock (test/unit/s3/request-rates.test.ts); this test holds no
 * wall-clock threshold.
 */
describe.runIf(postgres)('request rate limit, two gateways on one database', () => {
  let first: TestGateway;
  let second: RunningGateway;
  let secondDataDir: string;

  beforeAll(async () => {
    first = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
    secondDataDir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
    cpSync(path.join(first.config.dataDir, 'secrets'), path.join(secondDataDir, 'secrets'), {
      recursive: true,
    });
    const store = first.gateway.context.backend;
    const config = loadConfig({
      GATEWAY_DATA_DIR: secondDataDir,
      GATEWAY_S3_LISTEN: '127.0.0.1:0',
      GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
      GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
      GATEWAY_ADMIN_EMAIL: TEST_ADMIN_EMAIL,
      GATEWAY_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      GATEWAY_SHUTDOWN_GRACE_SECONDS: '2',
      DATABASE_URL: first.database?.url as string,
      // The same object store as the first gateway (its embedded one).
      GATEWAY_BACKEND_URL: store.endpoint.toString(),
      GATEWAY_BACKEND_ACCESS_KEY_ID: store.credentials.accessKeyId,
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: store.credentials.secretAccessKey,
    });
    const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const logger = createLogger('info', quiet);
    second = await startGateway(config, { logger, accessLog: logger });
  });
  afterAll(async () => {
    await second?.stop();
    if (secondDataDir !== undefined) rmSync(secondDataDir, { recursive: true, force: true });
    await first?.stop();
  });

  /** What a gateway's last count of the processes sharing each limit is. */
  async function sharingProcesses(metricsUrl: string): Promise<number> {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    const line = text.split('\n').find((candidate) => candidate.startsWith('gateway_rate_limit_processes '));
    return Number(line?.split(' ')[1] ?? 0);
  }

  it('gives each gateway half of the burst and half of the rate, the two together no more than the limit', async () => {
    const admin = await login(first.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const tenant = await addOrganisation(admin, 'shared-rate');
    expect((await tenant.owner.post('/v1/buckets', { name: 'shared-rate' })).status).toBe(201);
    const created = await tenant.owner.post('/v1/credentials', {
      name: 'reader',
      scope: { buckets: ['shared-rate'], level: 'read-write' },
    });
    const key: TestCredential = { accessKeyId: created.body.accessKeyId, secret: created.body.secret };
    const client = pathStyleClient(first, key);
    await client.send(new PutObjectCommand({ Bucket: 'shared-rate', Key: 'a.txt', Body: 'shared' }));
    // Through the first gateway's control plane: its own cache drops the organisation at once, and
    // the second has never loaded it.
    const limited = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { requestsPerSecond: RATE, requestBurst: BURST },
    });
    expect(limited.status, limited.text).toBe(200);

    // Each gateway must have seen the other before it takes half of the rate.
    await eventually('both gateways count two processes sharing the limit', async () => {
      const counts = await Promise.all([first.metricsUrl, second.urls.metrics].map(sharingProcesses));
      return counts.every((count) => count === 2);
    });

    const [firstUrl, secondUrl] = await Promise.all(
      [first.s3Url, second.urls.s3].map((endpoint) =>
        getSignedUrl(
          pathStyleClient({ ...first, s3Url: endpoint }, key),
          new GetObjectCommand({ Bucket: 'shared-rate', Key: 'a.txt' }),
          { expiresIn: 3600 },
        ),
      ),
    );
    /** GETs through one gateway until its first refusal: the statuses, and the refusal. */
    const untilRefused = async (url: string) => {
      const statuses: number[] = [];
      for (let sent = 0; sent <= BURST; sent += 1) {
        const response = await fetch(url);
        const body = await response.text();
        statuses.push(response.status);
        if (response.status !== 200) {
          const refusal = parseS3Error(body);
          return {
            statuses,
            refusal: { code: refusal.code, message: refusal.message },
            retryAfter: Number(response.headers.get('retry-after')),
          };
        }
        expect(body).toBe('shared');
      }
      return { statuses, refusal: null, retryAfter: Number.NaN };
    };

    const half = Array.from({ length: BURST / 2 }, () => 200);
    const throughFirst = await untilRefused(firstUrl as string);
    expect(throughFirst.statuses).toEqual([...half, 503]);
    expect(throughFirst.refusal).toEqual(SLOW_DOWN);
    // Half of the rate is a token every 1,000 s: the next one is over 500 s away (it would be at
    // most 500 s away at the whole rate), less what has refilled since the first request.
    expect(throughFirst.retryAfter).toBeGreaterThan(500);
    expect(throughFirst.retryAfter).toBeLessThanOrEqual(1000);

    const throughSecond = await untilRefused(secondUrl as string);
    expect(throughSecond.statuses).toEqual([...half, 503]);
    expect(throughSecond.refusal).toEqual(SLOW_DOWN);
    expect(throughSecond.retryAfter).toBeGreaterThan(500);
    expect(throughSecond.retryAfter).toBeLessThanOrEqual(1000);

    // What the second admitted came from its own half: the first has nothing more to give.
    expect((await untilRefused(firstUrl as string)).statuses).toEqual([503]);
  });
});
