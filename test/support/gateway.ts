import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/observability/logger.js';
import { startGateway, type RunningGateway } from '../../src/runtime.js';
import { realPostgresUrl, createTestDatabase, type TestDatabase } from './database.js';
import { findSecretsInLogs } from './log-audit.js';

export const TEST_ADMIN_EMAIL = 'admin@example.test';
export const TEST_ADMIN_PASSWORD = 'correct horse battery staple';

export interface TestGateway {
  gateway: RunningGateway;
  config: GatewayConfig;
  database: TestDatabase | null;
  /** Every structured log line the gateway wrote. */
  logs: string[];
  /** The bootstrap storage credential (read-write on every bucket of the first organisation). */
  credential: { accessKeyId: string; secret: string };
  s3Url: string;
  controlUrl: string;
  metricsUrl: string;
  stop(): Promise<void>;
}

/**
 * A whole gateway on ephemeral loopback ports with the embedded object store and a fresh database
 * (real PostgreSQL when reachable, PGlite otherwise). `env` overrides configuration like the real
 * environment does; `drainDelay` replaces the wait of shutdown's drain (runtime.ts).
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  options: { drainDelay?: (ms: number) => Promise<void> } = {},
): Promise<TestGateway> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
  const database = realPostgresUrl() === null ? null : await createTestDatabase();
  const config = loadConfig({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_S3_LISTEN: '127.0.0.1:0',
    GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
    GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
    GATEWAY_ADMIN_EMAIL: TEST_ADMIN_EMAIL,
    GATEWAY_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    GATEWAY_LOG_LEVEL: 'debug',
    GATEWAY_SHUTDOWN_GRACE_SECONDS: '2',
    ...(database === null ? {} : { DATABASE_URL: database.url }),
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.length > 0),
      );
      callback();
    },
  });
  // Access lines go to the same sink, so tests read (and audit) them with the rest.
  const logger = createLogger(config.logLevel, sink);
  const gateway = await startGateway(config, { logger, accessLog: logger, drainDelay: options.drainDelay });
  const created = gateway.bootstrap.created;
  if (created === null) throw new Error('expected a first start');
  return {
    gateway,
    config,
    database,
    logs,
    credential: created.credential,
    s3Url: gateway.urls.s3,
    controlUrl: gateway.urls.control,
    metricsUrl: gateway.urls.metrics,
    stop: async () => {
      // Every test gateway audits its own logs: no secret, password, token or signature may be in them.
      const findings = await findSecretsInLogs(logs, gateway.context.store, [
        TEST_ADMIN_PASSWORD,
        created.credential.secret,
        gateway.context.jwtSecret,
      ]);
      await gateway.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      if (findings.length > 0) throw new Error(`secrets leaked into the logs:\n${findings.join('\n')}`);
    },
  };
}
