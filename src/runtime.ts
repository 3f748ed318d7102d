import type http from 'node:http';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddedS3 } from './backend/embedded-s3.js';
import { openBackend } from './backend/open-backend.js';
import { bootstrap, type BootstrapResult } from './bootstrap.js';
import { buildCommit } from './build-commit.js';
import { resolveSecrets } from './config/local-secrets.js';
import { storageRunsInWorkers, storageWorkerCount, type GatewayConfig } from './config/schema.js';
import { StorageWorkers } from './cluster/supervisor.js';
import type { GatewayContext } from './control/context.js';
import { createControlApp } from './control/app.js';
import { answerControlClientError, answerControlConnect } from './control/http/client-error.js';
import { accessLogThrough, createAccessLog } from './observability/access-log.js';
import { createLogger, type Logger } from './observability/logger.js';
import { GatewayMetrics } from './observability/metrics.js';
import { drainDelay, Lifecycle } from './server/lifecycle.js';
import { closeServer, createServer, listen, urlOf } from './server/listen.js';
import { createMetricsListener } from './server/metrics-server.js';
import { startStorageEndpoint, type StorageEndpoint } from './server/storage-endpoint.js';
import { openStore, storeOptions, type Store } from './store/index.js';

export interface RunningGateway {
  readonly context: GatewayContext;
  readonly bootstrap: BootstrapResult;
  readonly urls: { s3: string; control: string; metrics: string };
  /**
   * Graceful: readiness answers 503 at once, the listeners keep serving for the drain delay
   * (shutdownDrainSeconds) so load balancers can stop sending traffic, then they stop accepting and
   * in-flight requests finish within the grace period (shutdownGraceSeconds); then the pool closes.
   */
  stop(): Promise<void>;
}

function readVersion(): GatewayContext['version'] {
  const packageFile = new URL('../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string };
  // The checkout is where package.json is, whether this runs from src/ or dist/.
  const checkout = path.dirname(fileURLToPath(packageFile));
  return { product: pkg.version, commit: buildCommit(process.env.GATEWAY_BUILD_COMMIT, checkout), api: 'v1' };
}

/**
 * Assembles and starts the whole gateway from a validated configuration: the control plane and
 * the metrics listener in this process; the storage endpoint in GATEWAY_WORKERS worker processes
 * (cluster/) that this one supervises, or, in development with one worker, here too.
 */
export async function startGateway(
  config: GatewayConfig,
  options: {
    logger?: Logger;
    accessLog?: Logger;
    metrics?: GatewayMetrics;
    /** How shutdown waits out the drain delay (a test holds the drain open until it is done). */
    drainDelay?: (ms: number) => Promise<void>;
  } = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics =
    options.metrics ?? new GatewayMetrics({ maxOrganisationLabels: config.metrics.maxOrganisationLabels });
  const accessLog =
    options.accessLog === undefined
      ? createAccessLog(config.logLevel, { onDrop: (lines) => metrics.accessLogDropped.inc(lines) })
      : accessLogThrough(options.accessLog);
  const secrets = resolveSecrets(config);
  for (const file of secrets.generated)
    logger.warn({ file }, 'generated a development secret; set it in production');
  const workerCount = storageWorkerCount(config, os.availableParallelism());
  const lifecycle = new Lifecycle();

  const store: Store = await openStore(
    config,
    storeOptions(config, secrets.masterKey, metrics.cacheEventRecorder, (error, invalidation) =>
      logger.warn(
        { err: error, kind: invalidation.kind },
        'could not notify the other instances of a change; their caches catch up within the cache TTL',
      ),
    ),
    workerCount + 1,
  );
  let embedded: EmbeddedS3 | null = null;
  let storage: StorageEndpoint | null = null;
  let workers: StorageWorkers | null = null;
  const servers: http.Server[] = [];
  try {
    const opened = await openBackend(config);
    embedded = opened.embedded;
    const backend = opened.backend;

    if (!storageRunsInWorkers(config, workerCount)) {
      storage = await startStorageEndpoint({ config, store, backend, metrics, logger, accessLog });
      metrics.storageWorkers.set(1);
    } else {
      workers = await StorageWorkers.start({
        count: workerCount,
        assignment: {
          config,
          masterKey: secrets.masterKey.toString('base64'),
          database: store.db.shared,
          backend: {
            endpoint: backend.endpoint.toString(),
            region: backend.region,
            credentials: backend.credentials,
          },
        },
        logger,
        metrics,
      });
      // On PostgreSQL each worker LISTENs itself; the embedded database cannot carry NOTIFY.
      const relay = workers;
      if (!store.db.supportsListen) store.bus.subscribe((invalidation) => relay.relay(invalidation));
    }
    const s3Url = storage?.url ?? workers?.url ?? '';

    const controlServer = createServer(() => undefined, {
      certFile: config.control.tlsCertFile,
      keyFile: config.control.tlsKeyFile,
    });
    const metricsServer = createServer(
      createMetricsListener(workers?.metricsSource(metrics.registry) ?? metrics.registry),
      { certFile: null, keyFile: null },
    );
    servers.push(controlServer, metricsServer);

    // The control plane's process reports the tenant limits, read from the database at each scrape.
    metrics.reportTenantLimits(async () =>
      (await store.storageUsage.limitedOrganisations()).map(({ name, ...figures }) => ({
        organisation: name,
        ...figures,
      })),
    );

    const context: GatewayContext = {
      config,
      store,
      backend,
      metrics,
      logger,
      jwtSecret: secrets.jwtSecret,
      s3PublicUrl: config.s3.publicUrl ?? s3Url,
      version: readVersion(),
      lifecycle,
    };
    controlServer.on('request', createControlApp(context));
    controlServer.on('clientError', answerControlClientError);
    controlServer.on('connect', answerControlConnect);
    const controlUrl = urlOf(
      await listen(controlServer, config.listen.control, 'GATEWAY_CONTROL_LISTEN'),
      config.control.tlsCertFile !== null,
    );
    const metricsUrl = urlOf(
      await listen(metricsServer, config.listen.metrics, 'GATEWAY_METRICS_LISTEN'),
      false,
    );
    // Only once every listener is bound: a start that fails before (a port in use) must not
    // create the first admin and key, whose generated secrets would be shown by no later start.
    const bootstrapped = await bootstrap(store, config);

    logger.info(
      {
        mode: config.mode,
        database: store.db.description,
        backend: backend.description,
        s3: s3Url,
        storageWorkers: workerCount,
        control: controlUrl,
        metrics: `${metricsUrl}/metrics`,
      },
      store.db.kind === 'embedded' || embedded !== null
        ? 'gateway started in local mode (embedded services under the data directory)'
        : 'gateway started against external PostgreSQL and object store',
    );

    let stopping: Promise<void> | null = null;
    const running = { storage, workers };
    return {
      context,
      bootstrap: bootstrapped,
      urls: { s3: s3Url, control: controlUrl, metrics: metricsUrl },
      stop: () => {
        stopping ??= (async () => {
          lifecycle.startDraining();
          if (config.shutdownDrainSeconds > 0) {
            logger.info(
              { drainSeconds: config.shutdownDrainSeconds },
              'draining: readiness answers 503, still serving until the drain delay ends',
            );
          }
          await (options.drainDelay ?? drainDelay)(config.shutdownDrainSeconds * 1000);
          const graceMs = config.shutdownGraceSeconds * 1000;
          logger.info(
            { graceSeconds: config.shutdownGraceSeconds },
            'no new connections; waiting for in-flight requests',
          );
          await Promise.all([
            ...servers.map((server) => closeServer(server, graceMs)),
            running.storage?.close(graceMs),
            running.workers?.stop(graceMs),
          ]);
          await backend.close();
          await store.close();
          await embedded?.stop();
          accessLog.flush();
          logger.info('gateway stopped');
        })();
        return stopping;
      },
    };
  } catch (error) {
    await Promise.all([
      ...servers.map((server) => closeServer(server, 0)),
      storage?.close(0),
      workers?.stop(0),
    ]);
    await store.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
