import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/observability/logger.js';
import { startGateway, type RunningGateway } from '../../../src/runtime.js';
import { realPostgresFor } from '../../support/database.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { ControlClient } from '../../support/control-plane.js';
import { expectProblem, expectRateLimited } from '../../support/problems.js';

// Two gateways on one database need a real PostgreSQL server (the embedded one belongs to one process).
const postgres = realPostgresFor('the shared login rate limit tests');

describe.runIf(postgres)('login rate limit, two gateways on one database', () => {
  let first: TestGateway;
  let second: RunningGateway;
  let secondDataDir: string;

  beforeAll(async () => {
    first = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '3' });
    // The second instance: its own data directory (with the first one's secrets), the same database.
    secondDataDir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
    cpSync(path.join(first.config.dataDir, 'secrets'), path.join(secondDataDir, 'secrets'), {
      recursive: true,
    });
    const config = loadConfig({
      GATEWAY_DATA_DIR: secondDataDir,
      GATEWAY_S3_LISTEN: '127.0.0.1:0',
      GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
      GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
      GATEWAY_ADMIN_EMAIL: TEST_ADMIN_EMAIL,
      GATEWAY_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      GATEWAY_SHUTDOWN_GRACE_SECONDS: '2',
      GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '3',
      DATABASE_URL: first.database?.url as string,
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

  it('counts the attempts made through one gateway against the other', async () => {
    const viaFirst = new ControlClient(first.controlUrl);
    const viaSecond = new ControlClient(second.urls.control);
    expect(second.bootstrap.created).toBeNull();

    // Three attempts from this address: two through the first gateway, one through the second.
    for (const client of [viaFirst, viaFirst, viaSecond]) {
      const response = await client.post('/v1/auth/login', {
        email: TEST_ADMIN_EMAIL,
        password: 'wrong password',
      });
      expectProblem(response, 401, 'invalid_credentials');
    }
    // Each gateway alone has seen fewer than three, yet both refuse now, even the right password.
    for (const client of [viaSecond, viaFirst]) {
      const limited = await client.post('/v1/auth/login', {
        email: TEST_ADMIN_EMAIL,
        password: TEST_ADMIN_PASSWORD,
      });
      expectRateLimited(limited);
    }

    const metrics = await (await fetch(`${second.urls.metrics}/metrics`)).text();
    expect(metrics).toMatch(/gateway_logins_total\{outcome="rate_limited"\} 1/);
    expect(metrics).toMatch(/gateway_logins_total\{outcome="failed"\} 1/);
  });
});
