/**
 * scripts/ceph-rgw/up.sh on a directory whose daemons died: it restarts them on the data they left
 * (buckets and objects survive a kill -9), and rebuilds an empty cluster only when that data cannot
 * be used, saying so on stderr. A cluster of its own (GATEWAY_E2E_RESTART_RGW_DIR, default
 * /tmp/gateway-rgw-e2e-restart, on RGW port 7482 and monitor port 3302), so the suite's shared one
 * is never killed; skipped when the suite runs against an external backend (no local Ceph).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import type { E2eBackend } from './global-setup.js';
import { sdkClient } from './support/rgw.js';

const rgw = inject('rgw');
const scripts = fileURLToPath(new URL('../../scripts/ceph-rgw/', import.meta.url));
const directory = path
  .resolve(process.env.GATEWAY_E2E_RESTART_RGW_DIR ?? '/tmp/gateway-rgw-e2e-restart')
  .replace(/\/+$/, '');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  RGW_PORT: process.env.GATEWAY_E2E_RESTART_RGW_PORT ?? '7482',
  CEPH_MON_PORT: process.env.GATEWAY_E2E_RESTART_MON_PORT ?? '3302',
  CEPH_NO_INSTALL: '1',
};
const DAEMONS = ['mon.a', 'osd.0', 'rgw'];

function script(name: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(scripts, name), directory], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The backend up.sh's exports describe. */
function backendOf(stdout: string): E2eBackend {
  const value = (name: string) => new RegExp(`^export ${name}=(.*)$`, 'm').exec(stdout)?.[1] ?? '';
  return {
    url: value('GATEWAY_BACKEND_URL'),
    accessKeyId: value('GATEWAY_BACKEND_ACCESS_KEY_ID'),
    secretAccessKey: value('GATEWAY_BACKEND_SECRET_ACCESS_KEY'),
    region: value('GATEWAY_BACKEND_REGION'),
    rgwPid: null,
    directory,
  };
}

/** Whether pid still runs this cluster's daemon (up.sh's own check: its command line names our ceph.conf). */
function runsOurDaemon(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .replaceAll('\0', ' ')
      .includes(`-c ${directory}/ceph.conf `);
  } catch {
    return false;
  }
}

/** kill -9 of every daemon up.sh recorded, as a crash or an OOM kill would; resolves once all are gone. */
async function killDaemons(): Promise<void> {
  const pids = DAEMONS.map((name) => Number(readFileSync(path.join(directory, 'pids', name), 'utf8')));
  for (const pid of pids) {
    expect(runsOurDaemon(pid), `pid ${pid} is one of the cluster's daemons`).toBe(true);
    process.kill(pid, 'SIGKILL');
  }
  await eventually('the killed daemons are gone', () => !pids.some(runsOurDaemon));
}

const fsidOf = (stderr: string): string | undefined =>
  /(?:new cluster|restarting cluster) ([0-9a-f-]{36}) /.exec(stderr)?.[1];

describe.skipIf(rgw.directory === null)('scripts/ceph-rgw/up.sh after its daemons died', () => {
  const bucket = `restart-${randomBytes(3).toString('hex')}`;
  const body = `survives kill -9 ${randomBytes(8).toString('hex')}`;
  let fsid: string | undefined;

  beforeAll(async () => {
    await script('down.sh'); // a cluster left by an interrupted run: this test wants a new one
    const first = await script('up.sh');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`new cluster `);
    fsid = fsidOf(first.stderr);
    const s3 = sdkClient(backendOf(first.stdout));
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'kept.txt', Body: body }));
    s3.destroy();
  }, 180_000);

  afterAll(async () => {
    await script('down.sh');
  }, 60_000);

  it('restarts the monitor, OSD and radosgw on their data: the bucket and its object are still there', async () => {
    await killDaemons();
    const again = await script('up.sh');
    expect(again.code, again.stderr).toBe(0);
    const s3 = sdkClient(backendOf(again.stdout));
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'kept.txt' }));
    expect(await object.Body?.transformToString()).toBe(body);
    expect(again.stderr).toContain(`restarting cluster ${fsid} in ${directory} on its data`);
    expect(again.stderr).not.toContain('new cluster');
    expect(again.stderr).not.toContain('REBUILDING');
    s3.destroy();
  });

  it('rebuilds an empty cluster when the data is unusable, and says what was wrong', async () => {
    await killDaemons();
    const store = path.join(directory, 'mon.a', 'store.db');
    for (const file of readdirSync(store).filter((name) => name.startsWith('MANIFEST-')))
      writeFileSync(path.join(store, file), randomBytes(4096));
    const rebuilt = await script('up.sh');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toMatch(
      new RegExp(
        `the cluster in ${directory} is unusable: mon\\.a died while waiting for monitor quorum: .*error opening mon data directory`,
      ),
    );
    expect(rebuilt.stderr).toContain(
      `REBUILDING: a new, empty cluster replaces it in ${directory}; its buckets and objects are lost`,
    );
    expect(fsidOf(rebuilt.stderr.slice(rebuilt.stderr.indexOf('REBUILDING')))).not.toBe(fsid);
    const s3 = sdkClient(backendOf(rebuilt.stdout));
    expect((await s3.send(new ListBucketsCommand({}))).Buckets ?? []).toEqual([]);
    await expect(s3.send(new HeadBucketCommand({ Bucket: bucket }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    s3.destroy();
  });
});
