/**
 * A storage worker: one of the GATEWAY_WORKERS processes serving the storage endpoint, forked by
 * the main process (supervisor.ts). It has its own connection pool, access cache and
 * invalidation listener (LISTEN on PostgreSQL; relayed by the main process for the embedded
 * database, which cannot carry NOTIFY), its own keep-alive pool to the object store and its own
 * metrics, which the main process collects at each scrape. The control plane stays in the main
 * process.
 */
import cluster from 'node:cluster';
import { accessLogThrough, createAccessLog, type AccessLog } from '../observability/access-log.js';
import {
  createLogger,
  createReadableLogger,
  wantsReadableLogs,
  type Logger,
} from '../observability/logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { startStorageEndpoint, type StorageEndpoint } from '../server/storage-endpoint.js';
import { connectShared } from '../store/database.js';
import { createStore, storeOptions, type Store } from '../store/index.js';
import { isMessage, type FromWorker, type ToWorker, type WorkerAssignment } from './messages.js';

function send(message: FromWorker): void {
  process.send?.(message);
}

function nextAssignment(): Promise<WorkerAssignment> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if (!isMessage<ToWorker>(message) || message.type !== 'gateway:assignment') return;
      process.off('message', onMessage);
      resolve(message);
    };
    process.on('message', onMessage);
  });
}

export async function runStorageWorker(): Promise<void> {
  if (!cluster.isWorker) throw new Error('a storage worker is started by the gateway, not directly');
  const assignment = await nextAssignment();
  const { config, slot } = assignment;
  // A worker shares the main process's stdout, terminal included.
  const readable = wantsReadableLogs(config.mode);
  const logger = readable
    ? createReadableLogger(config.logLevel, { fields: { worker: slot } })
    : createLogger(config.logLevel, undefined, { worker: slot });
  const metrics = new GatewayMetrics({ maxOrganisationLabels: config.metrics.maxOrganisationLabels });
  const accessLog = readable
    ? accessLogThrough(logger)
    : createAccessLog(config.logLevel, {
        fields: { worker: slot },
        onDrop: (lines) => metrics.accessLogDropped.inc(lines),
      });
  let store: Store | null = null;
  let endpoint: StorageEndpoint;
  try {
    const db = connectShared(assignment.database, config.database.poolSize);
    store = await createStore(db, {
      ...storeOptions(config, Buffer.from(assignment.masterKey, 'base64'), metrics.cacheEventRecorder),
      migrate: false,
    });
    const services = {
      config,
      store,
      backend: { ...assignment.backend, endpoint: new URL(assignment.backend.endpoint) },
      metrics,
      logger,
      accessLog,
    };
    const port = assignment.port === null ? {} : { port: assignment.port };
    endpoint = await startStorageEndpoint(services, { reusePort: true, ...port }).catch((error: unknown) => {
      // Where the platform has no SO_REUSEPORT, node:cluster shares the port through the main process.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTSUP') throw error;
      logger.warn('no SO_REUSEPORT here: the main process hands connections to the storage workers');
      return startStorageEndpoint(services, port);
    });
  } catch (error) {
    await store?.close().catch(() => undefined);
    send({ type: 'gateway:failed', message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  serve(endpoint, store, metrics, logger, accessLog, config.shutdownGraceSeconds * 1000);
  send({ type: 'gateway:ready', url: endpoint.url });
}

function serve(
  endpoint: StorageEndpoint,
  store: Store,
  metrics: GatewayMetrics,
  logger: Logger,
  accessLog: AccessLog,
  defaultGraceMs: number,
): void {
  let stopping = false;
  const stop = (graceMs: number): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      try {
        await endpoint.close(graceMs);
        await store.close();
      } catch (error) {
        logger.error({ err: error }, 'storage worker did not stop cleanly');
      } finally {
        accessLog.flush();
        process.exit(0);
      }
    })();
  };

  process.on('message', (message: unknown) => {
    if (!isMessage<ToWorker>(message)) return;
    switch (message.type) {
      case 'gateway:invalidate':
        store.bus.receive(message.invalidation);
        break;
      case 'gateway:metrics-request':
        void metrics.registry
          .getMetricsAsJSON()
          .then((json) => send({ type: 'gateway:metrics', id: message.id, metrics: json }));
        break;
      case 'gateway:shutdown':
        stop(message.graceMs);
        break;
    }
  });
  // Shutdown is the main process's to order (it drains first). A terminal's Ctrl-C reaches the
  // whole process group, so SIGINT is left to it; a SIGTERM sent to this worker alone stops it,
  // and the main process replaces it.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => stop(defaultGraceMs));
  // The main process is gone (killed): nothing will replace or drain this worker; stop serving.
  process.on('disconnect', () => stop(defaultGraceMs));
}
