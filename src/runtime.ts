import type http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { S3Backend } from './backend/s3-backend.js';
import { startEmbeddedS3, type EmbeddedS3 } from './backend/embedded-s3.js';
import type { ObjectStoreBackend } from './backend/object-store.js';
import { bootstrap, type BootstrapResult } from './bootstrap.js';
import { resolveSecrets } from './config/local-secrets.js';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayContext } from './context.js';
import { createControlApp } from './control/app.js';
import { createAccessLogger, createLogger, type Logger } from './observability/logger.js';
import { GatewayMetrics, type CacheRecordKind } from './observability/metrics.js';
import { answerClientError } from './s3/answers/client-error.js';
import { createS3Listener } from './s3/pipeline.js';
import { drainDelay, Lifecycle } from './server/lifecycle.js';
import { closeServer, createServer, listen, urlOf } from './server/listen.js';
import { createMetricsListener } from './server/metrics-server.js';
import { openStore, type Store } from './store/index.js';

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
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return { product: pkg.version, commit: process.env.GATEWAY_BUILD_COMMIT ?? 'unknown', api: 'v1' };
}

async function openBackend(
  config: GatewayConfig,
): Promise<{ backend: ObjectStoreBackend; embedded: EmbeddedS3 | null }> {
  const timeoutMs = config.backend.timeoutSeconds * 1000;
  if (config.backend.url === null) {
    const embedded = await startEmbeddedS3(path.join(config.dataDir, 'objects'));
    const backend = new S3Backend({
      endpoint: embedded.url,
      region: config.backend.region,
      accessKeyId: embedded.accessKeyId,
      secretAccessKey: embedded.secretAccessKey,
      timeoutMs,
      label: `embedded s3rver (${embedded.directory})`,
    });
    return { backend, embedded };
  }
  const backend = new S3Backend({
    endpoint: config.backend.url,
    region: config.backend.region,
    accessKeyId: config.backend.accessKeyId as string,
    secretAccessKey: config.backend.secretAccessKey as string,
    timeoutMs,
    label: 'object store',
  });
  return { backend, embedded: null };
}

/** Assembles and starts the whole gateway from a validated configuration. */
export async function startGateway(
  config: GatewayConfig,
  options: { logger?: Logger; accessLog?: Logger; metrics?: GatewayMetrics } = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // A logger given without an access log (tests) takes the access lines too.
  const accessLog = options.accessLog ?? options.logger ?? createAccessLogger(config.logLevel);
  const secrets = resolveSecrets(config);
  for (const file of secrets.generated)
    logger.warn({ file }, 'generated a development secret; set it in production');
  const metrics =
    options.metrics ?? new GatewayMetrics({ maxOrganisationLabels: config.metrics.maxOrganisationLabels });
  const cacheEvents = {
    onHit: (kind: CacheRecordKind) => metrics.cacheEvents.inc({ kind, event: 'hit' }),
    onMiss: (kind: CacheRecordKind) => metrics.cacheEvents.inc({ kind, event: 'miss' }),
    onInvalidate: (kind: CacheRecordKind) => metrics.cacheEvents.inc({ kind, event: 'invalidation' }),
  };
  const lifecycle = new Lifecycle();

  const store: Store = await openStore(config, secrets.masterKey, cacheEvents, (error, invalidation) =>
    logger.warn(
      { err: error, kind: invalidation.kind },
      'could not notify the other instances of a change; their caches catch up within the cache TTL',
    ),
  );
  let embedded: EmbeddedS3 | null = null;
  const servers: http.Server[] = [];
  try {
    const opened = await openBackend(config);
    embedded = opened.embedded;
    const backend = opened.backend;
    const bootstrapped = await bootstrap(store, config);

    // The storage pipeline refuses a missing Host itself, so that the answer is an S3 error document.
    const s3Server = createServer(
      () => undefined,
      { certFile: config.s3.tlsCertFile, keyFile: config.s3.tlsKeyFile },
      { requireHostHeader: false },
    );
    s3Server.on('clientError', answerClientError);
    const controlServer = createServer(() => undefined, {
      certFile: config.control.tlsCertFile,
      keyFile: config.control.tlsKeyFile,
    });
    const metricsServer = createServer(createMetricsListener(metrics), { certFile: null, keyFile: null });
    servers.push(s3Server, controlServer, metricsServer);

    const s3Address = await listen(s3Server, config.listen.s3);
    const s3Url = urlOf(s3Address, config.s3.tlsCertFile !== null);
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
    const s3Listener = createS3Listener({ config, store, backend, metrics, logger, accessLog });
    s3Server.on('request', s3Listener);
    // With a 'checkContinue' listener Node leaves `Expect: 100-continue` to the endpoint, which
    // sends 100 Continue only once the request is authenticated and authorised.
    s3Server.on('checkContinue', s3Listener);
    controlServer.on('request', createControlApp(context));
    const controlUrl = urlOf(
      await listen(controlServer, config.listen.control),
      config.control.tlsCertFile !== null,
    );
    const metricsUrl = urlOf(await listen(metricsServer, config.listen.metrics), false);

    logger.info(
      {
        mode: config.mode,
        database: store.db.description,
        backend: backend.description,
        s3: s3Url,
        control: controlUrl,
        metrics: `${metricsUrl}/metrics`,
      },
      store.db.kind === 'embedded' || embedded !== null
        ? 'gateway started in local mode (embedded services under the data directory)'
        : 'gateway started against external PostgreSQL and object store',
    );

    let stopping: Promise<void> | null = null;
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
          await drainDelay(config.shutdownDrainSeconds * 1000);
          const graceMs = config.shutdownGraceSeconds * 1000;
          logger.info(
            { graceSeconds: config.shutdownGraceSeconds },
            'no new connections; waiting for in-flight requests',
          );
          await Promise.all(servers.map((server) => closeServer(server, graceMs)));
          await s3Listener.close();
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
    await Promise.all(servers.map((server) => closeServer(server, 0)));
    await store.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
