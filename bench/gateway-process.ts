/**
 * The gateway under test, in a child process of its own so that its memory and CPU are its own.
 * Configured like `npm start` (info-level access log to stdout, which the parent discards), with
 * an embedded PGlite database in a temporary directory and the backend named by
 * BENCH_BACKEND_URL.
 *
 * IPC protocol (parent → child / child → parent):
 *   → (start-up)               ← { type: 'ready', s3Url, credential, bucket }
 *   → { type: 'memory' }       ← { type: 'memory', usage }           one process.memoryUsage()
 *   → { type: 'cpu' }          ← { type: 'cpu', usage }              process.cpuUsage() so far
 *   → { type: 'sample', everyMs } starts pushing ← { type: 'memory', usage } every everyMs
 *   → { type: 'unsample' }     stops it
 *   → { type: 'stop' }         graceful stop, then exit
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIRST_ORGANISATION_NAME } from '../src/bootstrap.js';
import { loadConfig } from '../src/config/load.js';
import { startGateway } from '../src/runtime.js';
import { createAccessLogger, createLogger } from '../src/observability/logger.js';

const BENCH_BUCKET = 'bench-bucket';

interface Message {
  type?: string;
  everyMs?: number;
}

function send(message: object): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const backendUrl = process.env.BENCH_BACKEND_URL;
  if (backendUrl === undefined) throw new Error('BENCH_BACKEND_URL is not set');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
  const config = loadConfig({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_S3_LISTEN: '127.0.0.1:0',
    GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
    GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
    GATEWAY_ADMIN_EMAIL: 'bench@example.test',
    GATEWAY_ADMIN_PASSWORD: 'benchmark admin password',
    GATEWAY_BACKEND_URL: backendUrl,
    GATEWAY_BACKEND_ACCESS_KEY_ID: 'BENCHBACKENDKEY',
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'bench-backend-secret',
    GATEWAY_SHUTDOWN_GRACE_SECONDS: '1',
    GATEWAY_LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'info',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  });
  const gateway = await startGateway(config, {
    logger: createLogger(config.logLevel),
    accessLog: createAccessLogger(config.logLevel),
  });
  const created = gateway.bootstrap.created;
  if (created === null) throw new Error('expected a first start');
  const { store } = gateway.context;
  const organisation = await store.organisations.findByName(FIRST_ORGANISATION_NAME);
  if (organisation === null) throw new Error('the bootstrap organisation is missing');
  // The minimal backend accepts any bucket; only the gateway's own record is needed.
  await store.buckets.create({
    name: BENCH_BUCKET,
    organisationId: organisation.id,
    public: false,
    createdBy: null,
  });

  let sampler: NodeJS.Timeout | null = null;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    if (sampler !== null) clearInterval(sampler);
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };

  process.on('message', (message: Message) => {
    switch (message.type) {
      case 'memory':
        send({ type: 'memory', usage: process.memoryUsage() });
        break;
      case 'cpu':
        send({ type: 'cpu', usage: process.cpuUsage() });
        break;
      case 'sample':
        if (sampler !== null) clearInterval(sampler);
        sampler = setInterval(() => send({ type: 'memory', usage: process.memoryUsage() }), message.everyMs);
        break;
      case 'unsample':
        if (sampler !== null) clearInterval(sampler);
        sampler = null;
        break;
      case 'stop':
        void stop();
        break;
    }
  });
  process.on('disconnect', () => void stop());

  send({ type: 'ready', s3Url: gateway.urls.s3, credential: created.credential, bucket: BENCH_BUCKET });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway process failed: ${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
