/** Starts the gateway; loaded by main.ts once the Node release is known to be one it runs on. */
import { ConfigError, loadConfig } from './config/load.js';
import { createLogger, createReadableLogger, wantsReadableLogs } from './observability/logger.js';
import { startGateway } from './runtime.js';
import { WorkerStartError } from './cluster/supervisor.js';
import { ListenError } from './server/listen.js';
import { DirectoryInUseError } from './store/directory-lock.js';
import { printWelcome } from './welcome.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const readable = wantsReadableLogs(config.mode);
  const logger = readable ? createReadableLogger(config.logLevel) : createLogger(config.logLevel);
  // Readable access lines come from the same logger; the JSON access log keeps its own writer.
  const gateway = await startGateway(config, readable ? { logger, accessLog: logger } : { logger });
  printWelcome(gateway);

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(1);
    logger.info(
      { signal, drainSeconds: config.shutdownDrainSeconds, graceSeconds: config.shutdownGraceSeconds },
      'shutting down: readiness answers 503, then no new connections, then in-flight requests finish',
    );
    gateway.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  // An expected refusal says what to do; anything else needs its stack.
  const detail =
    error instanceof DirectoryInUseError || error instanceof ListenError || error instanceof WorkerStartError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`gateway failed to start: ${detail}\n`);
  process.exit(1);
});
