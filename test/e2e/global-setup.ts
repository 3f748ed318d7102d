import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';

/** What the e2e test files get through `inject('rgw')`. */
export interface E2eBackend {
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Pid of the radosgw process when this run manages the cluster (null for an external backend). */
  rgwPid: number | null;
  /** Scratch directory of the cluster (null for an external backend). */
  directory: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    rgw: E2eBackend;
  }
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cephScripts = path.join(repoRoot, 'scripts', 'ceph-rgw');
const postgresScripts = path.join(repoRoot, 'scripts', 'postgres');

function run(scripts: string, script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(scripts, script), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(scripts)}/${script} exited with ${code}`));
    });
  });
}

function parseExports(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z0-9_]+)=(.*)$/gm)) values[match[1]!] = match[2]!;
  return values;
}

/**
 * Whether the process recorded in `pidFile` runs and its command line contains `marker`, as
 * scripts/ceph-rgw/common.sh and scripts/postgres/common.sh check it: a recycled pid (another
 * program now) or a zombie (empty command line) does not count.
 */
function recordedPidIsOurs(pidFile: string, marker: string): boolean {
  if (!existsSync(pidFile)) return false;
  const pid = readFileSync(pidFile, 'utf8').trim();
  if (!/^[0-9]+$/.test(pid)) return false;
  try {
    // the scripts compare the NUL-separated arguments joined by spaces, with a trailing space
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker);
  } catch {
    return false;
  }
}

/** The scripts' own normalisation of a scratch directory: absolute, no trailing slash. */
function scratchDirectory(directory: string): string {
  return path.resolve(directory).replace(/\/+$/, '');
}

function allRecordedAlive(directory: string): boolean {
  const conf = `-c ${directory}/ceph.conf `;
  return ['mon.a', 'osd.0', 'rgw'].every((name) =>
    recordedPidIsOurs(path.join(directory, 'pids', name), conf),
  );
}

/** host:port of a postgres:// URL, for messages (never its password). */
function hostOf(url: string): string {
  try {
    const { hostname, port } = new URL(url);
    return `${hostname}:${port || 5432}`;
  } catch {
    return 'an unparsable URL';
  }
}

async function postgresAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * Chooses the PostgreSQL the run's gateways use (each gets a fresh database on it), and returns
 * its teardown:
 * - DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres, when it answers;
 * - otherwise a throw-away server from scripts/postgres/up.sh in GATEWAY_E2E_PG_DIR (default
 *   /tmp/gateway-postgres-e2e), stopped by down.sh at the end unless it was already running there or
 *   GATEWAY_E2E_KEEP_PG=1. GATEWAY_E2E_POSTGRES=scratch uses that server even when another answers.
 * If neither can be had the gateways fall back to an embedded PGlite, except with CI=true: then
 * the run fails here.
 * The choice reaches the test files as GATEWAY_TEST_POSTGRES_URL (read by test/support/database.ts;
 * '' = PGlite) and DATABASE_URL, both set before the test workers start.
 */
async function providePostgres(): Promise<() => Promise<void>> {
  const use = (url: string, origin: string): void => {
    process.env.DATABASE_URL = url;
    process.env.GATEWAY_TEST_POSTGRES_URL = url;
    process.env.GATEWAY_E2E_POSTGRES_ORIGIN = origin;
    console.log(`postgres: ${origin} at ${hostOf(url)}`);
  };
  const existing = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (process.env.GATEWAY_E2E_POSTGRES !== 'scratch' && (await postgresAnswers(existing))) {
    use(existing, process.env.DATABASE_URL === undefined ? 'the running server' : 'DATABASE_URL');
    return async () => undefined;
  }

  const directory = scratchDirectory(process.env.GATEWAY_E2E_PG_DIR ?? '/tmp/gateway-postgres-e2e');
  let started = false;
  try {
    const reused = recordedPidIsOurs(path.join(directory, 'pid'), `-D ${directory}/data `);
    const began = Date.now();
    const exports = parseExports(await run(postgresScripts, 'up.sh', [directory], process.env));
    started = !reused;
    const url = exports.DATABASE_URL;
    if (url === undefined) throw new Error('scripts/postgres/up.sh printed no DATABASE_URL');
    if (!(await postgresAnswers(url)))
      throw new Error(`the server scripts/postgres/up.sh started does not answer on ${url}`);
    use(
      url,
      `scratch server of scripts/postgres/up.sh, ${reused ? 'reused' : `started in ${Date.now() - began} ms`}`,
    );
  } catch (error) {
    if (started) await run(postgresScripts, 'down.sh', [directory], process.env).catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') {
      throw new Error(
        `CI=true: no PostgreSQL answers on ${hostOf(existing)} and none could be started (${reason}); ` +
          'the e2e suite does not fall back to PGlite in CI. Install it with scripts/e2e/install-clients.sh postgres.',
        { cause: error },
      );
    }
    console.warn(
      `postgres: none answers and none could be started (${reason}); the gateways use an embedded PGlite`,
    );
    process.env.GATEWAY_TEST_POSTGRES_URL = '';
    process.env.GATEWAY_E2E_POSTGRES_ORIGIN = '';
    return async () => undefined;
  }
  return async () => {
    if (!started || process.env.GATEWAY_E2E_KEEP_PG === '1') return;
    await run(postgresScripts, 'down.sh', [directory], process.env);
  };
}

/**
 * Provides the RGW the e2e tests use, and returns its teardown:
 * - GATEWAY_E2E_BACKEND_URL (+ _ACCESS_KEY_ID, _SECRET_ACCESS_KEY, optional _REGION): an S3 backend
 *   that is already running; nothing is started or stopped, and the checks that pause radosgw skip.
 * - otherwise scripts/ceph-rgw/up.sh in GATEWAY_E2E_RGW_DIR (default /tmp/gateway-rgw-e2e) on
 *   GATEWAY_E2E_RGW_PORT (7481) with monitor port GATEWAY_E2E_MON_PORT (3301), so that it does not
 *   collide with a development cluster on the defaults.  A cluster found already running there is
 *   reused and left running; one started here is stopped by down.sh at the end unless
 *   GATEWAY_E2E_KEEP_RGW=1.
 */
async function provideRgw(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.GATEWAY_E2E_BACKEND_URL;
  if (external) {
    project.provide('rgw', {
      url: external,
      accessKeyId: process.env.GATEWAY_E2E_BACKEND_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.GATEWAY_E2E_BACKEND_SECRET_ACCESS_KEY ?? '',
      region: process.env.GATEWAY_E2E_BACKEND_REGION ?? 'us-east-1',
      rgwPid: null,
      directory: null,
    });
    return async () => undefined;
  }

  const directory = scratchDirectory(process.env.GATEWAY_E2E_RGW_DIR ?? '/tmp/gateway-rgw-e2e');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RGW_PORT: process.env.GATEWAY_E2E_RGW_PORT ?? '7481',
    CEPH_MON_PORT: process.env.GATEWAY_E2E_MON_PORT ?? '3301',
  };
  const reused = allRecordedAlive(directory);
  const started = Date.now();
  const exports = parseExports(await run(cephScripts, 'up.sh', [directory], env));
  console.log(`ceph-rgw: ${reused ? 'reused' : 'started'} in ${Date.now() - started} ms (${directory})`);
  const rgwPid = Number(readFileSync(path.join(directory, 'pids', 'rgw'), 'utf8').trim());
  project.provide('rgw', {
    url: exports.GATEWAY_BACKEND_URL!,
    accessKeyId: exports.GATEWAY_BACKEND_ACCESS_KEY_ID!,
    secretAccessKey: exports.GATEWAY_BACKEND_SECRET_ACCESS_KEY!,
    region: exports.GATEWAY_BACKEND_REGION!,
    rgwPid,
    directory,
  });

  return async () => {
    if (reused || process.env.GATEWAY_E2E_KEEP_RGW === '1') return;
    // a test that paused radosgw and failed before resuming it must not leave it stopped
    try {
      process.kill(rgwPid, 'SIGCONT');
    } catch {
      // already gone
    }
    await run(cephScripts, 'down.sh', [directory], env);
  };
}

/** PostgreSQL first (its URL must be in the environment before the workers start), then RGW. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stopPostgres = await providePostgres();
  let stopRgw: () => Promise<void>;
  try {
    stopRgw = await provideRgw(project);
  } catch (error) {
    await stopPostgres().catch(() => undefined);
    throw error;
  }
  return async () => {
    try {
      await stopRgw();
    } finally {
      await stopPostgres();
    }
  };
}
