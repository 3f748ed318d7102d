import type { ControlDependencies } from '../dependencies.js';
import type { HealthCheck, HealthReport, VersionInfo } from '../models/system.js';

const CHECK_TIMEOUT_MS = 5_000;

class CheckTimedOut extends Error {
  constructor() {
    super(`no answer within ${CHECK_TIMEOUT_MS} ms`);
  }
}

async function check(run: () => Promise<unknown>, onFailure: (error: unknown) => void): Promise<HealthCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimedOut()), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([run(), timeout]);
    return { status: 'ok' };
  } catch (error) {
    onFailure(error);
    // Unauthenticated callers see the kind of failure, not connection strings or host names.
    return {
      status: 'failing',
      error: error instanceof CheckTimedOut ? 'timed out' : 'unreachable or failing',
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Readiness and version, for load balancers and operators. */
export class SystemService {
  readonly #deps: ControlDependencies;

  constructor(deps: ControlDependencies) {
    this.#deps = deps;
  }

  async health(): Promise<HealthReport> {
    const { store, backend, logger } = this.#deps.context;
    const [database, backendCheck] = await Promise.all([
      check(
        () => store.db.sql`SELECT 1`,
        (error) => logger.warn({ err: error }, 'health check: database failing'),
      ),
      check(
        () => backend.checkHealth(),
        (error) => logger.warn({ err: error }, 'health check: object store failing'),
      ),
    ]);
    const checks: HealthReport['checks'] = { database, backend: backendCheck };
    if (this.#deps.context.lifecycle.draining) {
      checks.shutdown = { status: 'failing', error: 'the instance is shutting down' };
    }
    const ready = Object.values(checks).every((result) => result.status === 'ok');
    return { status: ready ? 'ready' : 'unavailable', checks };
  }

  version(): VersionInfo {
    const { version } = this.#deps.context;
    return {
      product: 's3-gateway',
      version: version.product,
      commit: version.commit,
      apiVersion: version.api,
    };
  }
}
