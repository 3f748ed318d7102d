import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
const scripts = path.join(repoRoot, 'scripts', 'ceph-rgw');

function run(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
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
      else reject(new Error(`${script} exited with ${code}`));
    });
  });
}

function parseExports(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z0-9_]+)=(.*)$/gm)) values[match[1]!] = match[2]!;
  return values;
}

function allRecordedAlive(directory: string): boolean {
  return ['mon.a', 'osd.0', 'rgw'].every((name) => {
    const file = path.join(directory, 'pids', name);
    if (!existsSync(file)) return false;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && existsSync(`/proc/${pid}`);
  });
}

/**
 * Provides the RGW the e2e tests use:
 * - GATEWAY_E2E_BACKEND_URL (+ _ACCESS_KEY_ID, _SECRET_ACCESS_KEY, optional _REGION): an S3 backend
 *   that is already running; nothing is started or stopped, and the checks that pause radosgw skip.
 * - otherwise scripts/ceph-rgw/up.sh in GATEWAY_E2E_RGW_DIR (default /tmp/gateway-rgw-e2e) on
 *   GATEWAY_E2E_RGW_PORT (7481) with monitor port GATEWAY_E2E_MON_PORT (3301), so that it does not
 *   collide with a development cluster on the defaults.  A cluster found already running there is
 *   reused and left running; one started here is stopped by down.sh at the end unless
 *   GATEWAY_E2E_KEEP_RGW=1.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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

  const directory = process.env.GATEWAY_E2E_RGW_DIR ?? '/tmp/gateway-rgw-e2e';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RGW_PORT: process.env.GATEWAY_E2E_RGW_PORT ?? '7481',
    CEPH_MON_PORT: process.env.GATEWAY_E2E_MON_PORT ?? '3301',
  };
  const reused = allRecordedAlive(directory);
  const started = Date.now();
  const exports = parseExports(await run('up.sh', [directory], env));
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
    await run('down.sh', [directory], env);
  };
}
