/**
 * The first start, as operators meet it (the compiled build, a separate process): a listener that
 * cannot bind stops the start before anything is created and says which setting to change; a
 * production first start never prints a secret but leaves the credentials in a private file; a
 * lost admin password is reset from the command line.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUser } from '../support/cli.js';
import { ControlClient } from '../support/control-plane.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../support/database.js';
import { buildGateway, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { startRecordingBackend, type RecordingBackend } from '../support/s3/recording-backend.js';

const BUILD = '.test-dist-first-start';
let entry: string;

beforeAll(async () => {
  entry = await buildGateway(BUILD);
}, 120_000);

/** Runs a compiled program to its end; its whole output. */
function run(
  script: string,
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** The banner's s3gw commands, run as printed: log in with the password it shows, a bucket, a key. */
async function runBannerCommands(banner: string, gateway: GatewayProcess): Promise<void> {
  const password = /admin +: admin@localhost, password (\S+)/.exec(banner)?.[1] ?? '';
  const printed = (label: string) => {
    const command = new RegExp(`${label} +: npx s3gw (.+)$`, 'm').exec(banner)?.[1] ?? '';
    // What a shell would pass: the words before any redirection.
    return command.split(' >> ')[0]!.split(' ');
  };
  expect(printed('log in')).toEqual(
    `login --url ${gateway.controlUrl} --storage-url ${gateway.s3Url} --email admin@localhost`.split(' '),
  );
  const person = new CliUser();
  try {
    await person.ok([...printed('log in'), '--password-stdin'], { stdin: password });
    expect(await person.ok(printed('first bucket'))).toBe('Created bucket my-bucket.\n');
    expect(await person.ok(printed('first key'))).toMatch(
      new RegExp(`^\\[profile my-laptop\\]\n[^]*endpoint_url = ${gateway.s3Url}\n`),
    );
  } finally {
    person.remove();
  }
}

async function login(controlUrl: string, email: string, password: string): Promise<number> {
  return (await new ControlClient(controlUrl).post('/v1/auth/login', { email, password })).status;
}

// A failed start and a first start of the compiled gateway with its embedded database and object
// store: near 30 s (the suite's default timeout) on a loaded 2-core machine. The bound is for a hang.
describe('a listener that cannot bind', { timeout: 120_000 }, () => {
  it('stops the start before the admin and key are created, naming the setting in one line', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-first-'));
    const env = {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
      GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
    };
    try {
      const failed = await run(entry, [], { ...env, GATEWAY_S3_LISTEN: `127.0.0.1:${port}` });
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toBe(
        `gateway failed to start: cannot listen on GATEWAY_S3_LISTEN=127.0.0.1:${port}: the address is in use ` +
          '(another gateway, or another program, listens there); set GATEWAY_S3_LISTEN to a free host:port',
      );
      // The next start is the first start: it creates (and shows) the admin and key.
      const gateway = await startGatewayProcess(entry, { ...env, GATEWAY_S3_LISTEN: '127.0.0.1:0' });
      try {
        const banner = await gateway.banner();
        expect(banner).toContain('First start: a platform admin');
        expect(banner).toMatch(/export AWS_SECRET_ACCESS_KEY=\S{40}/);
        await runBannerCommands(banner, gateway);
      } finally {
        gateway.child.kill('SIGTERM');
        await gateway.exited();
      }
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const postgres = realPostgresFor('the production first start tests');

/** A TCP port something else listens on, until `close`. */
async function takenPort(): Promise<{ port: number; close: () => void }> {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  return { port: (taken.address() as net.AddressInfo).port, close: () => taken.close() };
}

/** The one line a start that could not bind `setting` to `address` ends with. */
function bindFailure(setting: string, address: string, prefix = ''): string {
  return (
    `gateway failed to start: ${prefix}cannot listen on ${setting}=${address}: the address is in use ` +
    `(another gateway, or another program, listens there); set ${setting} to a free host:port`
  );
}

describe('a control-plane or metrics listener that cannot bind', { timeout: 120_000 }, () => {
  it('stops the start in one line naming its setting, creating nothing', async () => {
    const taken = await takenPort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-first-'));
    const free = {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_S3_LISTEN: '127.0.0.1:0',
      GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
      GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
    };
    try {
      for (const setting of ['GATEWAY_CONTROL_LISTEN', 'GATEWAY_METRICS_LISTEN']) {
        const address = `127.0.0.1:${taken.port}`;
        const failed = await run(entry, [], { ...free, [setting]: address });
        expect({ code: failed.code, stderr: failed.stderr.trim() }).toEqual({
          code: 1,
          stderr: bindFailure(setting, address),
        });
      }
      // Neither created the admin and key: the next start is the first start.
      const gateway = await startGatewayProcess(entry, free);
      try {
        expect(await gateway.banner()).toContain('First start: a platform admin');
      } finally {
        gateway.child.kill('SIGTERM');
        await gateway.exited();
      }
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(postgres)('a production start whose storage workers cannot bind (PostgreSQL)', () => {
  it('stops in one line naming GATEWAY_S3_LISTEN, creating no admin and writing no credentials', async () => {
    const taken = await takenPort();
    const database = await createTestDatabase();
    const backend = await startRecordingBackend();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-first-prod-'));
    const address = `127.0.0.1:${taken.port}`;
    try {
      const failed = await run(entry, [], {
        ...backend.env,
        GATEWAY_MODE: 'production',
        DATABASE_URL: database.url,
        GATEWAY_MASTER_KEY: 'b2'.repeat(32),
        GATEWAY_JWT_SECRET: 'bind-failure-token-secret-of-enough-length',
        GATEWAY_WORKERS: '1',
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_S3_LISTEN: address,
        GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
        GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
      });
      expect({ code: failed.code, stderr: failed.stderr.trim() }).toEqual({
        code: 1,
        stderr: bindFailure('GATEWAY_S3_LISTEN', address, 'storage worker 1 stopped while starting: '),
      });
      const db = database.connect(1);
      try {
        const [users] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM users`;
        expect(users?.count).toBe(0);
      } finally {
        await db.close();
      }
      expect(existsSync(path.join(dataDir, 'first-start-credentials.json'))).toBe(false);
    } finally {
      taken.close();
      await backend.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.runIf(postgres)('a production first start (PostgreSQL)', () => {
  let database: TestDatabase;
  let backend: RecordingBackend;
  let dataDir: string;
  let env: Record<string, string>;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    backend = await startRecordingBackend();
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-first-prod-'));
    env = {
      ...backend.env,
      GATEWAY_MODE: 'production',
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: 'a1'.repeat(32),
      GATEWAY_JWT_SECRET: 'first-start-token-secret-of-enough-length',
      GATEWAY_WORKERS: '1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_S3_LISTEN: '127.0.0.1:0',
      GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
      GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
      GATEWAY_ADMIN_EMAIL: 'ops@example.test',
    };
    gateway = await startGatewayProcess(entry, env);
  }, 120_000);
  afterAll(async () => {
    if (gateway !== undefined && gateway.child.exitCode === null) {
      gateway.child.kill('SIGTERM');
      await gateway.exited();
    }
    await backend?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints no secret, and leaves the credentials once in a file only its user may read', async () => {
    const file = path.join(dataDir, 'first-start-credentials.json');
    const banner = await gateway.banner();
    expect(banner).toContain(
      `their credentials are in ${file} (readable by this user only); delete it once read.`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      admin: { email: string; password: string };
      storageCredential: { accessKeyId: string; secretAccessKey: string };
    };
    expect(written.admin.email).toBe('ops@example.test');
    expect(written.storageCredential.secretAccessKey).toMatch(/^\S{40}$/);
    const everything = banner + JSON.stringify(gateway.logs());
    expect(everything).not.toContain(written.admin.password);
    expect(everything).not.toContain(written.storageCredential.secretAccessKey);
    expect(await login(gateway.controlUrl, 'ops@example.test', written.admin.password)).toBe(200);
  });

  it('resets a lost admin password from the command line, ending its sessions', async () => {
    const cli = path.join(path.dirname(entry), 'admin-cli.js');
    const generated = await run(cli, ['reset-password'], env);
    expect(generated.code, generated.stderr).toBe(0);
    const password = /new password for ops@example\.test: (\S+)/.exec(generated.stdout)?.[1] ?? '';
    expect(password).toMatch(/^\S{20}$/);
    expect(await login(gateway.controlUrl, 'ops@example.test', password)).toBe(200);

    const chosen = await run(cli, ['reset-password', '--password-stdin'], env, 'a chosen long password\n');
    expect(chosen.stdout).toMatch(/^password of ops@example\.test set; \d+ session\(s\) ended$/m);
    expect(await login(gateway.controlUrl, 'ops@example.test', password)).toBe(401);
    expect(await login(gateway.controlUrl, 'ops@example.test', 'a chosen long password')).toBe(200);

    const unknown = await run(cli, ['reset-password', '--email', 'nobody@example.test'], env);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([
      2,
      'no user with the e-mail address nobody@example.test',
    ]);
  });
});
