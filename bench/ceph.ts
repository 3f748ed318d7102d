/**
 * A throw-away Ceph RGW for the `rgw` section, started and stopped with the project's own
 * scripts/ceph-rgw/up.sh and down.sh (in /tmp/gateway-rgw-bench, on free ports, request logging
 * off), and the CPU pinning of its daemons with taskset.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { onCleanup } from './cleanup.js';
import type { BackendEndpoint } from './gateway.js';
import { pinThreads } from './pinning.js';
import { freePorts } from './ports.js';

const run = promisify(execFile);
const SCRIPTS = fileURLToPath(new URL('../scripts/ceph-rgw/', import.meta.url));
export const RGW_DIR = '/tmp/gateway-rgw-bench';

/** Null when radosgw can be started here, else why not. */
export function rgwUnavailable(): string | null {
  for (const command of ['radosgw', 'ceph-mon', 'ceph-osd', 'taskset']) {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    } catch {
      return `${command} is not installed (scripts/e2e/install-clients.sh ceph installs Ceph)`;
    }
  }
  return null;
}

export interface Rgw {
  readonly backend: BackendEndpoint;
  readonly version: string;
  /** Pids of the monitor, the OSD and radosgw. */
  pids(): number[];
  /** Binds every thread of every daemon to `cpus` (taskset -a -p -c). */
  pin(cpus: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startRgw(): Promise<Rgw> {
  const [rgwPort, monPort] = (await freePorts(2)) as [number, number];
  const stop = onCleanup(async () => {
    await run(`${SCRIPTS}down.sh`, [RGW_DIR], { timeout: 120_000 }).catch((error: unknown) => {
      console.error(`  scripts/ceph-rgw/down.sh failed: ${String(error)}`);
    });
  });
  let stdout: string;
  try {
    ({ stdout } = await run(`${SCRIPTS}up.sh`, [RGW_DIR], {
      env: {
        ...process.env,
        RGW_DEBUG: '0',
        RGW_PORT: String(rgwPort),
        CEPH_MON_PORT: String(monPort),
        // A benchmark never installs packages.
        CEPH_NO_INSTALL: '1',
      },
      timeout: 300_000,
    }));
  } catch (error) {
    await stop();
    const detail = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`scripts/ceph-rgw/up.sh failed:\n${detail}`, { cause: error });
  }
  const exports = new Map<string, string>();
  for (const match of stdout.matchAll(/^export (\w+)=(.*)$/gm))
    exports.set(match[1] as string, match[2] as string);
  const value = (name: string) => {
    const found = exports.get(name);
    if (found === undefined) throw new Error(`up.sh printed no ${name}`);
    return found;
  };
  const pids = () =>
    readdirSync(`${RGW_DIR}/pids`)
      .map((name) => Number(readFileSync(`${RGW_DIR}/pids/${name}`, 'utf8').trim()))
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  let version = 'unknown';
  try {
    version = execFileSync('ceph', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // only for the header
  }
  return {
    backend: {
      url: value('GATEWAY_BACKEND_URL'),
      accessKeyId: value('GATEWAY_BACKEND_ACCESS_KEY_ID'),
      secretAccessKey: value('GATEWAY_BACKEND_SECRET_ACCESS_KEY'),
      region: exports.get('GATEWAY_BACKEND_REGION') ?? 'us-east-1',
    },
    version,
    pids,
    pin: async (cpus) => {
      for (const pid of pids()) await pinThreads(pid, cpus);
    },
    stop,
  };
}
