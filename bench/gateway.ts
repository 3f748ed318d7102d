/**
 * The gateway under test, run as in production: the compiled entry point (`npm run build` output,
 * built once per benchmark run into .bench-dist) started with `node`, configured only through its
 * environment, its info-level access log written to a stdout pipe that is read and discarded, set
 * up through the control plane as a user would, and stopped with SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';
import type { DatabaseServer } from './database.js';
import { sleep } from './measure.js';
import { boundCommand } from './pinning.js';
import { freePorts } from './ports.js';
import { commandLine, commandName, processTree } from './proc.js';
import type { Credential } from './sign.js';
import { login, type ControlClient } from '../test/support/control-plane.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD_DIR = '.bench-dist';
const START_TIMEOUT_MS = 90_000;
/** SIGTERM, then this long for the drain (GATEWAY_SHUTDOWN_GRACE_SECONDS is 1 here), then SIGKILL. */
const STOP_TIMEOUT_MS = 20_000;
const ADMIN = { email: 'bench@example.test', password: 'benchmark admin password' };

let built = false;

/** Compiles src/ into .bench-dist (scripts/build.mjs), once per benchmark run. */
export function buildGateway(): void {
  if (built) return;
  const started = Date.now();
  execFileSync(process.execPath, ['scripts/build.mjs', BUILD_DIR], { cwd: ROOT, stdio: 'inherit' });
  built = true;
  console.log(`  built the gateway into ${BUILD_DIR}/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export interface BackendEndpoint {
  readonly url: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
}

export interface GatewayOptions {
  readonly backend: BackendEndpoint;
  /** GATEWAY_WORKERS; unset: the gateway's default (one per available core in production, else 1). */
  readonly workers?: number;
  /** Start it under `taskset -c <cpus>`. */
  readonly cpus?: string;
  /** Where its fresh database goes; null: development mode with the embedded PGlite. */
  readonly database: DatabaseServer | null;
  /**
   * Another instance of the same deployment: the same database and secrets as `twinOf` (which
   * must run in production mode), as a second gateway instance of a platform is configured.
   * `database` is then not used, and the database stays with the instance that created it.
   */
  readonly twinOf?: Gateway;
  /**
   * The build to run (a folder `scripts/build.mjs` wrote, e.g. another commit's, for ab.ts); by
   * default this checkout's, built once per benchmark run.
   */
  readonly build?: string;
}

/** What the instances of one deployment share: their database and secrets (production mode). */
export interface Deployment {
  readonly databaseUrl: string;
  readonly masterKey: string;
  readonly jwtSecret: string;
}

export interface Gateway {
  /** The main process; its descendants are the storage workers. */
  readonly pid: number;
  readonly s3Url: string;
  readonly mode: 'production' | 'development';
  /** The database and secrets a twin instance starts with; null in development mode. */
  readonly deployment: Deployment | null;
  /** A bucket created through the control plane, and a read-write credential scoped to it. */
  readonly bucket: string;
  readonly credential: Credential;
  /** The control plane, logged in as its platform admin (an owner of the first organisation). */
  control(): Promise<ControlClient>;
  /** Bytes the gateway has written to stdout (its logs, the access log above all) so far. */
  logBytes(): number;
  /**
   * Resolves once stdout has been quiet for `quietMs` (at most `maxMs`), with the seconds waited:
   * the gateway writes its access log asynchronously, and lines still queued when a load ends are
   * written (and their CPU spent) afterwards.
   */
  logQuiet(quietMs: number, maxMs: number): Promise<number>;
  /** The main process and its live descendants. */
  processes(): number[];
  /** What one of its processes does (roleOf). */
  role(pid: number): GatewayRole;
  /** Whether it still runs, and the tails of its stderr and stdout: for an error message. */
  diagnose(): string;
  stop(): Promise<void>;
}

/**
 * `main (supervisor)`: the main process when storage workers (`cluster/worker-main.js` children)
 * serve the storage endpoint: always in production mode, in development mode with
 * GATEWAY_WORKERS > 1. `main (serves storage)`: a main process without workers (development mode,
 * one worker). Anything else the gateway started is shown by its command name.
 */
export type GatewayRole =
  'main (supervisor)' | 'main (serves storage)' | 'storage worker' | `child ${string}`;

const isStorageWorker = (pid: number) => commandLine(pid).includes('worker-main.js');

export function roleOf(mainPid: number, pid: number): GatewayRole {
  if (pid === mainPid) {
    return processTree(mainPid).some(isStorageWorker) ? 'main (supervisor)' : 'main (serves storage)';
  }
  return isStorageWorker(pid) ? 'storage worker' : `child ${commandName(pid)}`;
}

/** Whether processes of `role` serve the storage endpoint (the memory targets hold those). */
export function servesStorage(role: GatewayRole): boolean {
  return role === 'storage worker' || role === 'main (serves storage)';
}

/** Environment of this process without any gateway setting, so a developer's shell cannot leak in. */
function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('GATEWAY_') || name === 'DATABASE_URL') continue;
    env[name] = value;
  }
  return env;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Waits for `child` to exit; false if it did not within `timeoutMs`. */
function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  if (options.build === undefined) buildGateway();
  const [s3Port, controlPort, metricsPort] = (await freePorts(3)) as [number, number, number];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-data-'));
  const removeDataDir = onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const twin = options.twinOf?.deployment;
  if (options.twinOf !== undefined && twin == null)
    throw new Error('a twin instance needs a gateway in production mode to share a database with');
  const database = twin != null || options.database === null ? null : await options.database.create();
  const deployment: Deployment | null =
    twin ??
    (database === null
      ? null
      : {
          databaseUrl: database.url,
          masterKey: randomBytes(32).toString('hex'),
          jwtSecret: randomBytes(48).toString('base64'),
        });
  const env: Record<string, string> = {
    ...cleanEnvironment(),
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_S3_LISTEN: `127.0.0.1:${s3Port}`,
    GATEWAY_CONTROL_LISTEN: `127.0.0.1:${controlPort}`,
    GATEWAY_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
    GATEWAY_BACKEND_URL: options.backend.url,
    GATEWAY_BACKEND_ACCESS_KEY_ID: options.backend.accessKeyId,
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: options.backend.secretAccessKey,
    GATEWAY_BACKEND_REGION: options.backend.region,
    GATEWAY_ADMIN_EMAIL: ADMIN.email,
    GATEWAY_ADMIN_PASSWORD: ADMIN.password,
    GATEWAY_SHUTDOWN_GRACE_SECONDS: '1',
    ...(options.workers === undefined ? {} : { GATEWAY_WORKERS: String(options.workers) }),
    ...(deployment === null
      ? { GATEWAY_MODE: 'development' }
      : {
          GATEWAY_MODE: 'production',
          DATABASE_URL: deployment.databaseUrl,
          GATEWAY_MASTER_KEY: deployment.masterKey,
          GATEWAY_JWT_SECRET: deployment.jwtSecret,
        }),
  };
  // e.g. BENCH_GATEWAY_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the gateway.
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const command = boundCommand(
    [process.execPath, ...nodeArgs, path.join(options.build ?? path.join(ROOT, BUILD_DIR), 'main.js')],
    options.cpus,
  );
  // taskset execs node, so the child's pid is the gateway's main process either way.
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logBytes = 0;
  let lastLog = '';
  child.stdout.on('data', (chunk: Buffer) => {
    logBytes += chunk.length;
    lastLog = chunk.length > 4000 ? chunk.subarray(-4000).toString('utf8') : chunk.toString('utf8');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8000)));
  const pid = child.pid ?? 0;

  const stop = onCleanup(async () => {
    const family = processTree(pid);
    if (!exited(child)) child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
      console.error(`  gateway ${pid} did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM: SIGKILL`);
      child.kill('SIGKILL');
      await waitForExit(child, 5000);
    }
    // Workers leave with their primary; any that did not are killed by pid (they were its children).
    for (const descendant of family.slice(1)) {
      try {
        process.kill(descendant, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await database?.drop();
    await removeDataDir();
  });

  const s3Url = `http://127.0.0.1:${s3Port}`;
  const controlUrl = `http://127.0.0.1:${controlPort}`;
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!((await answers200(`${s3Url}/_gateway/live`)) && (await answers200(`${controlUrl}/v1/health`)))) {
      if (exited(child)) throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode})`);
      if (Date.now() > deadline)
        throw new Error(`the gateway was not ready within ${START_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
    // The first start creates the admin once the listeners are bound, so health can answer first.
    let control: ControlClient | null = null;
    while (control === null) {
      control = await login(controlUrl, ADMIN.email, ADMIN.password).catch((error: unknown) => {
        if (Date.now() > deadline) throw error;
        return null;
      });
      if (control === null) await sleep(100);
    }
    // What a user does before using the storage endpoint: a bucket, and a credential scoped to it.
    const bucket = `bench-${randomBytes(4).toString('hex')}`;
    await control.createBucket(bucket);
    const credential = await control.createCredential('benchmark', {
      buckets: [bucket],
      level: 'read-write',
    });
    return {
      pid,
      s3Url,
      mode: deployment === null ? 'development' : 'production',
      deployment,
      bucket,
      credential,
      control: () => login(controlUrl, ADMIN.email, ADMIN.password),
      logBytes: () => logBytes,
      logQuiet: async (quietMs, maxMs) => {
        const started = Date.now();
        let seen = logBytes;
        let quietSince = Date.now();
        while (Date.now() - quietSince < quietMs && Date.now() - started < maxMs) {
          await sleep(50);
          if (logBytes !== seen) {
            seen = logBytes;
            quietSince = Date.now();
          }
        }
        return (Date.now() - started) / 1000;
      },
      processes: () => processTree(pid),
      role: (other) => roleOf(pid, other),
      diagnose: () => {
        const state = exited(child)
          ? `exited (${child.exitCode ?? child.signalCode})`
          : `running (${processTree(pid).length} process(es))`;
        return `gateway ${pid}: ${state}\nits stderr: ${stderr.slice(-2000)}\nits last stdout: ${lastLog.slice(-2000)}`;
      },
      stop,
    };
  } catch (error) {
    await stop();
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`gateway start failed: ${detail}\nstderr: ${stderr}\nlast stdout: ${lastLog}`, {
      cause: error,
    });
  }
}
