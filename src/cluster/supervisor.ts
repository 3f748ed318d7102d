/**
 * The main process's side of the storage workers: forks them with node:cluster, each listening
 * on the storage port with a socket of its own (SO_REUSEPORT: the kernel spreads connections over
 * them, and a worker that closes its socket takes no new ones while the others go on; cluster's
 * own sharing would queue connections in this process, where one arriving as the last worker
 * stops waits until shutdown ends). It hands each its assignment, collects
 * their metrics for the scrape, relays invalidations when the database cannot, replaces a worker
 * that dies (after a pause that grows while replacements keep dying young), and drains them all
 * on shutdown.
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { MetricsSource } from '../server/metrics-server.js';
import type { Invalidation } from '../store/invalidation.js';
import {
  isMessage,
  type FromWorker,
  type ToWorker,
  type WorkerAssignment,
  type WorkerMetrics,
} from './messages.js';

/** worker-main.js next to this module once compiled; worker-main.ts when run through a TypeScript loader. */
const WORKER_ENTRY = fileURLToPath(
  new URL(`./worker-main${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/**
 * V8 flags every worker starts with, each unless the operator named it (in NODE_OPTIONS or the main
 * process's flags, which workers inherit; `--allocation-site-pretenuring` turns the second back on,
 * `--no-external-memory-accounted-in-global-limit` the third off).
 *
 * - The young generation grows to 128 MiB under a steady stream of small requests, whose objects
 *   all die young; capped at 2 × 16 MiB it costs no measurable CPU (BENCHMARKS.md) and keeps a
 *   worker's RSS growth under load to about 50 MiB.
 * - Allocation-site pretenuring: after a worker has served a while, V8 may decide (some processes
 *   do, others not) that the sites allocating each request's objects (the HTTP parsers', undici's,
 *   the pipeline's) make long-lived ones, and allocate them straight in the old generation, where
 *   they die: a full collection every 2,000 requests or so, and dearer young ones. Without it a
 *   worker spent 13-27% less CPU per 4 KiB request than one where it had set in (BENCHMARKS.md,
 *   change 28).
 * - External memory in the global limit: every socket read is a fresh buffer outside V8's heap,
 *   and by default each 64 MiB of them starts a full collection of the whole heap (18-23 for a
 *   GiB streamed through a worker), though these buffers die young. Counted in the heap's own
 *   limits, a GiB streamed costs 12, and a worker 7-16% less CPU per GiB (BENCHMARKS.md,
 *   change 30).
 */
const WORKER_V8_FLAGS: readonly { readonly flag: string; readonly named: string }[] = [
  { flag: '--max-semi-space-size=16', named: 'max-semi-space-size' },
  { flag: '--no-allocation-site-pretenuring', named: 'allocation-site-pretenuring' },
  {
    flag: '--external-memory-accounted-in-global-limit',
    named: 'external-memory-accounted-in-global-limit',
  },
];

/**
 * The flags of a worker: the main process's (`execArgv`), then each of WORKER_V8_FLAGS that neither
 * they nor `nodeOptions` name (V8 takes `_` for `-` in flag names).
 */
export function workerExecArgv(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): string[] {
  const given = [...execArgv, nodeOptions].join(' ').replaceAll('_', '-');
  return [
    ...execArgv,
    ...WORKER_V8_FLAGS.filter(({ named }) => !given.includes(named)).map(({ flag }) => flag),
  ];
}

/**
 * glibc gives each thread that allocates its own malloc arena, and a worker's V8 and libuv helper
 * threads hold memory in theirs that a busy main thread never reuses: one arena lowered a worker's
 * peak RSS under 64 connections of uploads by 15-30 MiB, at no measurable CPU (BENCHMARKS.md,
 * change 26). Ignored where the C library is not glibc. An operator's own setting wins.
 */
const ARENA_VARIABLE = 'MALLOC_ARENA_MAX';
const WORKER_ARENAS = '1';

function workerEnvironment(): Record<string, string> {
  const given =
    process.env[ARENA_VARIABLE] !== undefined || (process.env.GLIBC_TUNABLES ?? '').includes('arena_max');
  return given ? {} : { [ARENA_VARIABLE]: WORKER_ARENAS };
}

/** A worker that lived at least this long before dying is replaced at once. */
const HEALTHY_LIFETIME_MS = 10_000;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/** A shutdown that outlasts the grace period by this much ends with SIGKILL. */
const KILL_AFTER_GRACE_MS = 5_000;
/** A worker's metrics that do not arrive within this are missing from that scrape (and logged). */
const METRICS_TIMEOUT_MS = 3_000;

/** A storage worker that could not start (its own message says why, e.g. a port in use). */
export class WorkerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerStartError';
  }
}

export interface StorageWorkersOptions {
  readonly count: number;
  readonly assignment: Omit<WorkerAssignment, 'type' | 'slot' | 'port'>;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  /** How long a worker may take to start serving (default 60 s). */
  readonly startTimeoutMs?: number;
}

function exitDescription(code: number | null, signal: string | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`;
}

export class StorageWorkers {
  readonly #options: StorageWorkersOptions;
  readonly #workers = new Map<number, Worker>();
  /** Per slot: how many replacements in a row died young. */
  readonly #youngDeaths = new Map<number, number>();
  readonly #retries = new Set<NodeJS.Timeout>();
  readonly #metricsWaiters = new Map<number, (metrics: WorkerMetrics) => void>();
  #metricsRequests = 0;
  #stopping = false;
  #url = '';
  #port: number | null = null;

  private constructor(options: StorageWorkersOptions) {
    this.#options = options;
  }

  /** Forks every worker; resolves when all serve, rejects (having stopped the others) if one cannot. */
  static async start(options: StorageWorkersOptions): Promise<StorageWorkers> {
    cluster.setupPrimary({ exec: WORKER_ENTRY, execArgv: workerExecArgv() });
    const workers = new StorageWorkers(options);
    // The first binds the port (perhaps any free one); the others join it.
    const slots = Array.from({ length: options.count - 1 }, (_, index) => index + 2);
    try {
      await workers.#spawn(1);
      workers.#port = Number(new URL(workers.#url).port);
      const started = await Promise.allSettled(slots.map((slot) => workers.#spawn(slot)));
      const failed = started.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    } catch (error) {
      await workers.stop(0);
      throw error;
    }
    return workers;
  }

  /** The storage endpoint's URL, as the workers listen on it. */
  get url(): string {
    return this.#url;
  }

  /** Sends a change made through this process to every worker (see `ToWorker`). */
  relay(invalidation: Invalidation): void {
    this.#broadcast({ type: 'gateway:invalidate', invalidation });
  }

  /** Each worker's metrics, as JSON for prom-client's aggregation. */
  collectMetrics(): Promise<WorkerMetrics[]> {
    const workers = [...this.#workers.values()].filter((worker) => worker.isConnected());
    if (workers.length === 0) return Promise.resolve([]);
    const id = (this.#metricsRequests += 1);
    return new Promise((resolve) => {
      const collected: WorkerMetrics[] = [];
      const finish = (): void => {
        clearTimeout(timer);
        this.#metricsWaiters.delete(id);
        if (collected.length < workers.length) {
          this.#options.logger.warn(
            { answered: collected.length, workers: workers.length },
            'a storage worker did not report its metrics in time; this scrape lacks its series',
          );
        }
        resolve(collected);
      };
      const timer = setTimeout(finish, METRICS_TIMEOUT_MS);
      this.#metricsWaiters.set(id, (metrics) => {
        collected.push(metrics);
        if (collected.length === workers.length) finish();
      });
      for (const worker of workers) this.#send(worker, { type: 'gateway:metrics-request', id });
    });
  }

  /** One scrape: this process's registry and every worker's, summed (prom-client's aggregation). */
  metricsSource(own: Registry): MetricsSource {
    return {
      contentType: own.contentType,
      metrics: async () => {
        const [mine, theirs] = await Promise.all([own.getMetricsAsJSON(), this.collectMetrics()]);
        return AggregatorRegistry.aggregate([mine, ...theirs]).metrics();
      },
    };
  }

  /** Tells every worker to stop accepting and finish within `graceMs`; resolves when all have exited. */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    for (const retry of this.#retries) clearTimeout(retry);
    this.#retries.clear();
    await Promise.all(
      [...this.#workers.values()].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) {
              resolve();
              return;
            }
            const kill = setTimeout(() => worker.process.kill('SIGKILL'), graceMs + KILL_AFTER_GRACE_MS);
            worker.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            if (!this.#send(worker, { type: 'gateway:shutdown', graceMs })) worker.process.kill('SIGTERM');
          }),
      ),
    );
  }

  /** Forks the worker of `slot`; resolves when it serves, rejects if it stops or stalls first. */
  #spawn(slot: number): Promise<void> {
    const { assignment, metrics, logger } = this.#options;
    const worker = cluster.fork(workerEnvironment());
    this.#workers.set(slot, worker);
    const startedAt = Date.now();
    return new Promise((resolve, reject) => {
      let ready = false;
      let failure: string | null = null;
      const timeoutMs = this.#options.startTimeoutMs ?? 60_000;
      const timer = setTimeout(() => {
        failure = `not serving after ${timeoutMs} ms`;
        worker.process.kill('SIGKILL');
      }, timeoutMs);
      worker.once('online', () =>
        this.#send(worker, { type: 'gateway:assignment', slot, port: this.#port, ...assignment }),
      );
      worker.on('message', (message: unknown) => {
        if (!isMessage<FromWorker>(message)) return;
        switch (message.type) {
          case 'gateway:ready':
            ready = true;
            clearTimeout(timer);
            this.#url = message.url;
            metrics.storageWorkers.inc();
            resolve();
            break;
          case 'gateway:failed':
            failure = message.message;
            break;
          case 'gateway:metrics':
            this.#metricsWaiters.get(message.id)?.(message.metrics);
            break;
        }
      });
      worker.once('exit', (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        if (this.#workers.get(slot) === worker) this.#workers.delete(slot);
        if (!ready) {
          reject(
            new WorkerStartError(
              `storage worker ${slot} stopped while starting: ${failure ?? exitDescription(code, signal)}`,
            ),
          );
          return;
        }
        metrics.storageWorkers.dec();
        if (this.#stopping) return;
        logger.error(
          { worker: slot, pid: worker.process.pid, code, signal, livedMs: Date.now() - startedAt },
          `storage worker stopped unexpectedly (${exitDescription(code, signal)}); starting a replacement`,
        );
        metrics.storageWorkerRestarts.inc();
        this.#replace(slot, Date.now() - startedAt);
      });
    });
  }

  #replace(slot: number, livedMs: number): void {
    const young = livedMs < HEALTHY_LIFETIME_MS ? (this.#youngDeaths.get(slot) ?? 0) + 1 : 0;
    this.#youngDeaths.set(slot, young);
    const delayMs = young === 0 ? 0 : Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (young - 1));
    const retry = setTimeout(() => {
      this.#retries.delete(retry);
      if (this.#stopping) return;
      this.#spawn(slot).catch((error: unknown) => {
        if (this.#stopping) return;
        this.#options.logger.error(
          { worker: slot, err: error },
          'storage worker replacement failed to start; trying again',
        );
        this.#replace(slot, 0);
      });
    }, delayMs);
    this.#retries.add(retry);
  }

  #broadcast(message: ToWorker): void {
    for (const worker of this.#workers.values()) this.#send(worker, message);
  }

  /** False when the worker can no longer be told anything. */
  #send(worker: Worker, message: ToWorker): boolean {
    if (!worker.isConnected()) return false;
    try {
      worker.send(message);
      return true;
    } catch {
      return false;
    }
  }
}
