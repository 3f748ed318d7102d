import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
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
import type { TestCredential } from '../../support/s3/fixtures.js';
import { addOrganisation, login } from '../../support/control-plane.js';

const postgres = realPostgresFor('the shared request rate limit test');

/** The organisation's rate and burst; the test sends requests far faster than that. */
const RATE = 40;
const BURST = 10;
/** Requests the two gateways must accept beyond the burst: about four seconds' worth of the rate. */
const ACCEPTED_BEYOND_BURST = 4 * RATE;
/** Requests in flight at once, spread over both gateways. */
const SENDERS = 8;

/**
 * Two gateways on one PostgreSQL, in front of one object store, share an organisation's request
 * rate: each takes half of it (store/instances.ts counts them). Requests go to both as fast as
 * they can be sent until the two together have accepted a fixed number; the rate they accepted
 * at, measured from the first request sent to the last acceptance received, must be within 10%
 * of the set rate.
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

  it('accepts requests at the set rate over both, within 10%', async () => {
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
    const limited = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { requestsPerSecond: RATE, requestBurst: BURST },
    });
    expect(limited.status, limited.text).toBe(200);

    // Each gateway must have seen the other before it takes half of the rate.
    await eventually('both gateways count two processes sharing the limit', async () => {
      const counts = await Promise.all([first.metricsUrl, second.urls.metrics].map(sharingProcesses));
      return counts.every((count) => count === 2);
    });

    const urls = await Promise.all(
      [first.s3Url, second.urls.s3].map((endpoint) =>
        getSignedUrl(
          pathStyleClient({ ...first, s3Url: endpoint }, key),
          new GetObjectCommand({ Bucket: 'shared-rate', Key: 'a.txt' }),
          { expiresIn: 3600 },
        ),
      ),
    );
    const statuses = new Map<number, number>();
    let accepted = 0;
    let lastAcceptedAt = 0;
    let sent = 0;
    const startedAt = performance.now();
    const sender = async () => {
      while (accepted < BURST + ACCEPTED_BEYOND_BURST) {
        const url = urls[sent++ % urls.length] as string;
        const response = await fetch(url);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200) {
          accepted += 1;
          lastAcceptedAt = performance.now();
        } else expect(response.status).toBe(503);
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));

    const seconds = (lastAcceptedAt - startedAt) / 1000;
    const measuredRate = (accepted - BURST) / seconds;
    // Far more were sent than accepted: the limit, not the sending, set the pace.
    expect(statuses.get(503) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(accepted);
    expect(Math.abs(measuredRate / RATE - 1), `accepted ${accepted} in ${seconds.toFixed(2)} s`).toBeLessThan(
      0.1,
    );
  });
});
