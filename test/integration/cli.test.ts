/**
 * s3gw, the admin command line, as a person and their scripts use it: `bin/s3gw.js` (what `npx s3gw`
 * runs) as a separate process against a gateway in local mode (embedded object store). The gateway
 * issues access tokens for 2 seconds, so the commands keep meeting expired tokens and must refresh
 * them with the rotating refresh cookie. The settings `--print` writes are handed to the clients
 * people use: aws-cli (every one installed: the one on PATH and Debian's), rclone and s3cmd, and
 * the AWS SDK for JavaScript. Under CI a missing client fails its test (.ci/run installs them
 * before `npm test`); elsewhere its tests are skipped, named with the reason.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import {
  CliUser,
  describeCli,
  describeRun,
  installedAwsClis,
  installedClient,
  runClient,
  underCi,
  type InstalledClient,
} from '../support/cli.js';
import { ControlClient } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';

const ACCESS_TOKEN_SECONDS = 2;
const BUCKET = 'cli-first-bucket';
const GREETING = 'hello from s3gw';
const ONE_ERROR_LINE = /^s3gw: [^\n]+\n$/;
const ACCESS_DENIED = 'Access to this bucket is denied.';

let gateway: TestGateway;
const admin = new CliUser();
const scratch = mkdtempSync(path.join(tmpdir(), 's3gw-cli-test-'));

beforeAll(async () => {
  // The tests log in far more often than a person would; the login rate limit has tests of its own.
  gateway = await startTestGateway({
    GATEWAY_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_SECONDS),
    GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  admin.remove();
  rmSync(scratch, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function loginArgs(email = TEST_ADMIN_EMAIL, url = gateway.controlUrl): string[] {
  return ['login', '--url', url, '--storage-url', gateway.s3Url, '--email', email, '--password-stdin'];
}

/** The `export NAME=value` lines of `--print env`. */
function exportsOf(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) {
    variables[match[1]!] = match[2]!.replace(/^'(.*)'$/, '$1');
  }
  return variables;
}

/** Resolves once the gateway itself refuses the profile's stored access token as expired. */
async function storedTokenExpired(user: CliUser, profile = 'default'): Promise<void> {
  const token = user.readProfile(profile).session.accessToken as string;
  await eventually('the gateway refuses the stored access token as expired', async () => {
    const answer = await new ControlClient(gateway.controlUrl, token).get('/v1/me');
    return answer.status === 401 && answer.body.code === 'token_expired';
  });
}

/** A file in the scratch directory with these contents; its path. */
function scratchFile(name: string, contents: string): string {
  const file = path.join(scratch, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, contents);
  return file;
}

/**
 * A test of a real client: run when it is installed; under CI a failing test when it is not;
 * elsewhere a skipped one that says why.
 */
function withClient(
  client: InstalledClient | null,
  name: string,
  title: string,
  test: (client: InstalledClient) => Promise<void>,
): void {
  if (client !== null) it(`${client.label}: ${title}`, () => test(client));
  else if (underCi()) {
    it(`${name}: ${title}`, () => {
      expect.fail(
        `CI is set but ${name} is not installed: scripts/e2e/install-clients.sh clients installs it`,
      );
    });
  } else it.skip(`${name}: ${title} (${name} is not installed)`, () => undefined);
}

describe('the first five minutes', () => {
  /** `--print env` of a read-write key, and `--print aws-profile` of a read-only one. */
  let writerEnv: Record<string, string>;
  let readerProfile: string;

  it('logs in, creates a bucket, prints a read-write key for the shell and a read-only aws profile', async () => {
    const login = await admin.run(loginArgs(), { stdin: `${TEST_ADMIN_PASSWORD}\n` });
    expect(login.code, describeCli(['login'], login)).toBe(0);
    expect(login.stdout).toBe(
      `Logged in to ${gateway.controlUrl} as ${TEST_ADMIN_EMAIL} (platform admin, owner); profile "default".\n`,
    );
    // The session is as good as a password: only its owner may read it.
    expect(statSync(path.join(admin.configHome, 's3gw')).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(admin.configHome, 's3gw', 'profiles')).mode & 0o777).toBe(0o700);
    expect(statSync(admin.profilePath()).mode & 0o777).toBe(0o600);

    expect(await admin.ok(['buckets', 'create', BUCKET])).toBe(`Created bucket ${BUCKET}.\n`);
    expect(await admin.ok(['buckets', 'list'])).toMatch(
      new RegExp(`^NAME +PUBLIC +CREATED\n${BUCKET} +no +`),
    );

    const writer = await admin.run([
      'credentials',
      'create',
      'uploader',
      '--bucket',
      BUCKET,
      '--read-write',
      '--print',
      'env',
    ]);
    expect(writer.code, describeCli(['credentials', 'create'], writer)).toBe(0);
    writerEnv = exportsOf(writer.stdout);
    expect(Object.keys(writerEnv)).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_ENDPOINT_URL',
    ]);
    expect(writerEnv.AWS_ENDPOINT_URL).toBe(gateway.s3Url);
    expect(writer.stderr).toContain('The secret is shown only now.');

    const reader = await admin.run([
      'credentials',
      'create',
      'Photo reader',
      '--bucket',
      BUCKET,
      '--read-only',
      '--print',
      'aws-profile',
    ]);
    expect(reader.code, describeCli(['credentials', 'create'], reader)).toBe(0);
    expect(reader.stdout).toMatch(
      new RegExp(
        '^\\[profile photo-reader\\]\naws_access_key_id = GWK1\\w+\naws_secret_access_key = \\S{40}\n' +
          `region = us-east-1\nendpoint_url = ${gateway.s3Url}\ns3 =\n  addressing_style = path\n$`,
      ),
    );
    expect(reader.stderr).toBe(
      `Append to ~/.aws/config, then: aws --profile photo-reader s3 ls. aws-cli before 2.13 ignores endpoint_url: give --endpoint-url ${gateway.s3Url}. The secret is shown only now.\n`,
    );
    readerProfile = reader.stdout;
  });

  it('the AWS SDK for JavaScript writes with the printed environment, and with the printed profile reads and is refused a write', async () => {
    const uploader = new S3Client({
      endpoint: writerEnv.AWS_ENDPOINT_URL,
      region: writerEnv.AWS_REGION!,
      forcePathStyle: true,
      credentials: {
        accessKeyId: writerEnv.AWS_ACCESS_KEY_ID!,
        secretAccessKey: writerEnv.AWS_SECRET_ACCESS_KEY!,
      },
    });
    await uploader.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'hello.txt', Body: GREETING }));
    uploader.destroy();

    // The printed block as the whole ~/.aws/config of someone who never configured anything else.
    vi.stubEnv('AWS_CONFIG_FILE', scratchFile('sdk/config', readerProfile));
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', path.join(scratch, 'no-credentials-file'));
    vi.stubEnv('AWS_PROFILE', 'photo-reader');
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'AWS_ENDPOINT_URL'])
      vi.stubEnv(name, undefined);
    const reader = new S3Client({});
    try {
      const listed = await reader.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      expect(listed.Contents?.map((object) => object.Key)).toEqual(['hello.txt']);
      const read = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }));
      expect(await read.Body?.transformToString()).toBe(GREETING);
      const refused = await reader
        .send(new PutObjectCommand({ Bucket: BUCKET, Key: 'written.txt', Body: 'no' }))
        .then(
          () => null,
          (error: { name: string; message: string }) => error,
        );
      expect({ name: refused?.name, message: refused?.message }).toEqual({
        name: 'AccessDenied',
        message: ACCESS_DENIED,
      });
    } finally {
      reader.destroy();
    }
  });

  const awsClis = installedAwsClis();
  if (awsClis.length === 0) withClient(null, 'aws-cli', 'reads with the printed profile', async () => {});
  for (const aws of awsClis) {
    it(`${aws.label}: writes with the printed environment, reads with the printed profile and is refused a write${
      aws.readsConfiguredEndpoint ? '' : ' (with --endpoint-url, as the printed hint says)'
    }`, async () => {
      const config = scratchFile(`${aws.label.replace(/\W+/g, '-')}/config`, readerProfile);
      // What the hints say for an aws-cli that does not read the configured endpoint.
      const endpoint = aws.readsConfiguredEndpoint ? [] : ['--endpoint-url', gateway.s3Url];
      const run = async (args: string[], env: Record<string, string>) => {
        const result = await runClient(aws.path, [...endpoint, ...args], {
          AWS_SHARED_CREDENTIALS_FILE: path.join(scratch, 'no-credentials-file'),
          AWS_CONFIG_FILE: path.join(scratch, 'no-config-file'),
          AWS_PAGER: '',
          ...env,
        });
        return { ...result, describe: () => describeRun(aws.path, [...endpoint, ...args], result) };
      };
      const key = `by-${aws.label.replace(/\W+/g, '-')}.txt`;
      const file = scratchFile(`${key}.local`, `written by ${aws.label}\n`);
      const written = await run(['s3', 'cp', '--no-progress', file, `s3://${BUCKET}/${key}`], writerEnv);
      expect(written.code, written.describe()).toBe(0);

      const profile = { AWS_CONFIG_FILE: config, AWS_PROFILE: 'photo-reader' };
      const listed = await run(['s3', 'ls', `s3://${BUCKET}/`], profile);
      expect(listed.code, listed.describe()).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(` ${GREETING.length} hello\\.txt\n`));
      const read = await run(['s3', 'cp', '--no-progress', `s3://${BUCKET}/${key}`, '-'], profile);
      expect(read.code, read.describe()).toBe(0);
      expect(read.stdout).toBe(`written by ${aws.label}\n`);

      const refused = await run(['s3', 'cp', '--no-progress', file, `s3://${BUCKET}/refused.txt`], profile);
      expect(refused.code, refused.describe()).toBe(1);
      expect(refused.stderr).toContain(
        `An error occurred (AccessDenied) when calling the PutObject operation: ${ACCESS_DENIED}`,
      );
    });
  }

  withClient(
    installedClient('rclone'),
    'rclone',
    'reads with the remote `credentials rotate --print rclone` writes, and is refused a write',
    async (rclone) => {
      const created = await admin.json([
        'credentials',
        'create',
        'rclone key',
        '--bucket',
        BUCKET,
        '--read-only',
      ]);
      const rotated = await admin.run([
        'credentials',
        'rotate',
        created.accessKeyId,
        '--print',
        'rclone',
        '--as',
        'gw',
      ]);
      expect(rotated.code, describeCli(['credentials', 'rotate'], rotated)).toBe(0);
      expect(rotated.stdout).toMatch(/^\[gw\]\ntype = s3\n/);
      expect(rotated.stdout).not.toContain(created.secret);
      const config = scratchFile('rclone/rclone.conf', rotated.stdout);
      const run = async (...args: string[]) => {
        const all = ['--config', config, '--retries', '1', '--low-level-retries', '1', ...args];
        const result = await runClient(rclone.path, all);
        return { ...result, describe: () => describeRun(rclone.path, all, result) };
      };
      const read = await run('cat', `gw:${BUCKET}/hello.txt`);
      expect(read.code, read.describe()).toBe(0);
      expect(read.stdout).toBe(GREETING);
      const refused = await run('copyto', config, `gw:${BUCKET}/refused.conf`);
      expect(refused.code, refused.describe()).not.toBe(0);
      expect(refused.stderr).toContain('AccessDenied');
    },
  );

  withClient(
    installedClient('s3cmd'),
    's3cmd',
    'reads with the configuration `--print s3cmd` writes, and is refused a write',
    async (s3cmd) => {
      const printed = await admin.run([
        'credentials',
        'create',
        's3cmd key',
        '--bucket',
        BUCKET,
        '--read-only',
        '--print',
        's3cmd',
      ]);
      expect(printed.code, describeCli(['credentials', 'create'], printed)).toBe(0);
      const config = scratchFile('s3cmd/s3cfg', printed.stdout);
      const run = async (...args: string[]) => {
        const all = ['-c', config, '--no-progress', ...args];
        const result = await runClient(s3cmd.path, all);
        return { ...result, describe: () => describeRun(s3cmd.path, all, result) };
      };
      const read = await run('get', `s3://${BUCKET}/hello.txt`, '-');
      expect(read.code, read.describe()).toBe(0);
      expect(read.stdout).toBe(GREETING);
      const refused = await run('put', config, `s3://${BUCKET}/refused.cfg`);
      expect(refused.code, refused.describe()).not.toBe(0);
      expect(refused.stderr).toContain(`403 (AccessDenied): ${ACCESS_DENIED}`);
    },
  );
});

describe('the session', () => {
  it('refreshes an access token the gateway refuses as expired, storing the rotated refresh cookie each time', async () => {
    const before = admin.readProfile();
    // As with a skewed clock: the CLI believes the token is fresh, the gateway does not.
    admin.writeProfile({
      ...before,
      session: { ...before.session, accessTokenExpiresAt: '2999-01-01T00:00:00Z' },
    });
    await storedTokenExpired(admin);

    expect((await admin.json(['whoami'])).email).toBe(TEST_ADMIN_EMAIL);
    const after = admin.readProfile();
    expect(after.session.accessToken).not.toBe(before.session.accessToken);
    expect(after.session.cookies.gw_refresh.value).not.toBe(before.session.cookies.gw_refresh.value);
    expect(statSync(admin.profilePath()).mode & 0o777).toBe(0o600);

    // Once more, found expired by the CLI itself: this spends the cookie stored above (the one
    // before it would now be a reuse, which ends the whole session).
    await storedTokenExpired(admin);
    expect((await admin.json(['whoami'])).email).toBe(TEST_ADMIN_EMAIL);
    expect(admin.readProfile().session.cookies.gw_refresh.value).not.toBe(
      after.session.cookies.gw_refresh.value,
    );
  });

  it('lets several commands find the token expired at once without spending the cookie twice', async () => {
    await storedTokenExpired(admin);
    const results = await Promise.all([1, 2, 3, 4].map(() => admin.run(['whoami', '--json'])));
    for (const result of results) expect(result.code, describeCli(['whoami', '--json'], result)).toBe(0);
    expect((await admin.json(['whoami'])).email).toBe(TEST_ADMIN_EMAIL);
  });

  it('logout ends the session at the gateway and forgets it here', async () => {
    const person = new CliUser();
    try {
      await person.ok(['--profile', 'desk', ...loginArgs()], { stdin: TEST_ADMIN_PASSWORD });
      const cookie = person.readProfile('desk').session.cookies.gw_refresh.value as string;

      expect(await person.ok(['--profile', 'desk', 'logout'])).toBe('Logged out (profile desk).\n');
      const kept = person.readProfile('desk');
      expect(kept).not.toHaveProperty('session');
      expect(kept).toMatchObject({ url: gateway.controlUrl, email: TEST_ADMIN_EMAIL });
      expect(statSync(person.profilePath('desk')).mode & 0o777).toBe(0o600);
      const refresh = await new ControlClient(gateway.controlUrl).withCookie('/v1/auth/refresh', cookie);
      expect([refresh.status, refresh.body.code]).toEqual([401, 'session_ended']);

      expect(await person.ok(['--profile', 'desk', 'logout'])).toBe('Not logged in (profile desk).\n');
      const after = await person.run(['--profile', 'desk', 'whoami']);
      expect([after.code, after.stderr]).toEqual([
        3,
        's3gw: not logged in with the profile "desk": run s3gw login --profile desk\n',
      ]);
    } finally {
      person.remove();
    }
  });

  it('logging in again ends the session the profile had at the gateway', async () => {
    const person = new CliUser();
    try {
      await person.ok(loginArgs(), { stdin: TEST_ADMIN_PASSWORD });
      const first = person.readProfile().session.cookies.gw_refresh.value as string;
      const again = await person.run(loginArgs(), { stdin: TEST_ADMIN_PASSWORD });
      expect([again.code, again.stderr]).toEqual([0, '']);

      const refresh = await new ControlClient(gateway.controlUrl).withCookie('/v1/auth/refresh', first);
      expect([refresh.status, refresh.body.code]).toEqual([401, 'session_ended']);
      expect(person.readProfile().session.cookies.gw_refresh.value).not.toBe(first);
      expect((await person.json(['whoami'])).email).toBe(TEST_ADMIN_EMAIL);
    } finally {
      person.remove();
    }
  });

  it('says when the session a new login replaces could not be ended, and logs in all the same', async () => {
    const person = new CliUser();
    try {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const gone = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      mkdirSync(path.dirname(person.profilePath()), { recursive: true });
      person.writeProfile({
        url: gone,
        session: {
          accessToken: 'old',
          accessTokenExpiresAt: '2000-01-01T00:00:00.000Z',
          cookies: { gw_refresh: { value: 'old-cookie', expiresAt: '2999-01-01T00:00:00.000Z' } },
        },
      });
      const login = await person.run(loginArgs(), { stdin: TEST_ADMIN_PASSWORD });
      expect(login.code, describeCli(['login'], login)).toBe(0);
      expect(login.stderr).toBe(
        `The session this profile had before could not be ended at ${gone} (cannot reach the gateway at ${gone}: ` +
          'connection refused (is the gateway running, and is this its control-plane address?) (ECONNREFUSED)); ' +
          'it stays valid there until 2999-01-01 00:00:00Z.\n',
      );
      expect(person.readProfile().url).toBe(gateway.controlUrl);
      expect((await person.json(['whoami'])).email).toBe(TEST_ADMIN_EMAIL);
    } finally {
      person.remove();
    }
  });

  it('a session the gateway let expire: the refresh is refused, exit 3, and the profile forgets it', async () => {
    // Its own gateway, whose sessions last 2 seconds (the other tests' last the default 30 days).
    const brief = await startTestGateway({ GATEWAY_REFRESH_TOKEN_TTL_SECONDS: '2' });
    const person = new CliUser();
    try {
      await person.ok(['login', '--url', brief.controlUrl, '--email', TEST_ADMIN_EMAIL, '--password-stdin'], {
        stdin: TEST_ADMIN_PASSWORD,
      });
      const stored = person.readProfile();
      await eventually('the gateway ends the session at its expiry', async () => {
        const answer = await new ControlClient(brief.controlUrl, stored.session.accessToken).get('/v1/me');
        return answer.status === 401 && answer.body.code === 'session_ended';
      });
      // As with a clock behind the gateway's: the CLI believes the refresh cookie still good.
      stored.session.accessTokenExpiresAt = '2000-01-01T00:00:00.000Z';
      stored.session.cookies.gw_refresh.expiresAt = '2999-01-01T00:00:00.000Z';
      person.writeProfile(stored);

      const expired = await person.run(['whoami']);
      expect(expired.code).toBe(3);
      expect(expired.stdout).toBe('');
      expect(expired.stderr).toMatch(
        /^s3gw: The session of this refresh token has ended; log in again\. \(session_ended, HTTP 401, request id [\w-]+\); run s3gw login\n$/,
      );
      expect(person.readProfile()).not.toHaveProperty('session');
    } finally {
      person.remove();
      await brief.stop();
    }
  });
});

describe('errors: one line on stderr, an exit code scripts can rely on', () => {
  it('a wrong password exits 3', async () => {
    const stranger = new CliUser();
    try {
      const result = await stranger.run(loginArgs(), { stdin: 'not the password\n' });
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(ONE_ERROR_LINE);
      expect(result.stderr).toMatch(
        /^s3gw: The e-mail address or password is not correct \(invalid_credentials, HTTP 401, request id [\w-]+\)\n$/,
      );
    } finally {
      stranger.remove();
    }
  });

  it('a refused operation exits 1, naming the problem and the request id the gateway logged', async () => {
    const result = await admin.run(['buckets', 'create', BUCKET]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(ONE_ERROR_LINE);
    const requestId = /^s3gw: .+ \(bucket_name_taken, HTTP 409, request id ([\w-]+)\)\n$/.exec(
      result.stderr,
    )?.[1];
    expect(requestId, result.stderr).toBeDefined();
    expect(gateway.logs.some((line) => line.includes(`"requestId":"${requestId}"`))).toBe(true);
  });

  it('a session ended elsewhere, or expired, exits 3 and says how to log in again', async () => {
    const member = new CliUser();
    try {
      const email = 'ended@example.test';
      const invitation = await admin.json(['organisation', 'invite', email]);
      await member.ok(
        [
          'accept-invitation',
          invitation.invitation.token,
          '--name',
          'Ended',
          '--url',
          gateway.controlUrl,
          '--password-stdin',
        ],
        { stdin: 'a member password, long enough\n' },
      );
      await member.ok(['--profile', 'laptop', ...loginArgs(email)], {
        stdin: 'a member password, long enough\n',
      });
      await member.ok(['--profile', 'laptop', 'sessions', 'end', '--all']);

      const ended = await member.run(['whoami']);
      expect(ended.code).toBe(3);
      expect(ended.stderr).toMatch(ONE_ERROR_LINE);
      expect(ended.stderr).toMatch(/\(session_ended, HTTP 401, request id [\w-]+\); run s3gw login\n$/);

      const laptop = await member.run(['--profile', 'laptop', 'buckets', 'list']);
      expect(laptop.code).toBe(3);
      expect(laptop.stderr).toMatch(/; run s3gw login --profile laptop\n$/);

      // A session past its refresh cookie's expiry, with an expired access token.
      await member.ok(['--profile', 'old', ...loginArgs(email)], {
        stdin: 'a member password, long enough\n',
      });
      const old = member.readProfile('old');
      for (const cookie of Object.values(old.session.cookies) as { expiresAt: string }[])
        cookie.expiresAt = '2000-01-01T00:00:00.000Z';
      old.session.accessTokenExpiresAt = '2000-01-01T00:00:00.000Z';
      member.writeProfile(old, 'old');
      const expired = await member.run(['--profile', 'old', 'whoami']);
      expect([expired.code, expired.stderr]).toEqual([
        3,
        's3gw: the session has expired: run s3gw login --profile old\n',
      ]);

      const never = await member.run(['--profile', 'nobody', 'whoami']);
      expect([never.code, never.stderr]).toEqual([
        3,
        's3gw: not logged in with the profile "nobody": run s3gw login --profile nobody\n',
      ]);
    } finally {
      member.remove();
    }
  });

  it('a wrong command line exits 2, and a gateway that cannot be reached 4', async () => {
    const noLevel = await admin.run(['credentials', 'create', 'x', '--bucket', BUCKET]);
    expect([noLevel.code, noLevel.stderr]).toEqual([
      2,
      's3gw: give exactly one of --read-only, --read-write and --methods\n',
    ]);
    const unknownOption = await admin.run(['buckets', 'list', '--colour']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/^s3gw: unknown option '--colour'/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await admin.run(['health', '--url', `http://127.0.0.1:${port}`]);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toMatch(ONE_ERROR_LINE);
    expect(unreachable.stderr).toContain(
      `cannot reach the gateway at http://127.0.0.1:${port}: connection refused`,
    );
  });

  it('a profile s3gw cannot read exits 5 in one line; S3GW_DEBUG=1 adds where', async () => {
    const person = new CliUser();
    try {
      mkdirSync(person.profilePath(), { recursive: true });
      const unreadable = await person.run(['whoami']);
      expect([unreadable.code, unreadable.stdout, unreadable.stderr]).toEqual([
        5,
        '',
        `s3gw: cannot read the profile ${person.profilePath()}: it is a directory (EISDIR)\n`,
      ]);
      const debugged = await person.run(['whoami'], { env: { S3GW_DEBUG: '1' } });
      expect(debugged.code).toBe(5);
      const [line, ...stack] = debugged.stderr.trimEnd().split('\n');
      expect(line).toBe(`s3gw: cannot read the profile ${person.profilePath()}: it is a directory (EISDIR)`);
      expect(stack[0]).toBe(`LocalError: ${line!.slice('s3gw: '.length)}`);
      expect(stack).toContain('caused by: Error: EISDIR: illegal operation on a directory, read');
    } finally {
      person.remove();
    }
  });
});

/** The command a run of s3gw went to, e.g. "buckets cors set" for `buckets cors set photos f.yaml`. */
function commandPathOf(program: Command, args: readonly string[]): string {
  let command = program;
  const names: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--profile') index += 1;
    if (arg.startsWith('-')) continue;
    const sub = command.commands.find(
      (candidate) => candidate.name() === arg || candidate.aliases().includes(arg),
    );
    if (sub === undefined) break;
    names.push(sub.name());
    command = sub;
  }
  return names.join(' ');
}

function leafCommands(command: Command, trail: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const name = [...trail, sub.name()];
    return sub.commands.length === 0 ? [name.join(' ')] : leafCommands(sub, name);
  });
}

describe('--json', () => {
  it('prints JSON that parses for every command', { timeout: 240_000 }, async () => {
    const member = new CliUser();
    const memberPassword = 'the invited member password';
    const adminRunsBefore = admin.jsonRuns.length;
    try {
      const me = await admin.json(['whoami']);
      expect(me.platformAdmin).toBe(true);
      expect(me.organisation).toEqual({
        id: me.organisationId,
        name: 'default',
        status: 'active',
        suspensionReason: null,
        role: 'owner',
      });
      expect(await admin.ok(['whoami'])).toMatch(
        new RegExp(
          `^E-mail: +${TEST_ADMIN_EMAIL}\nName: +.+\nPlatform admin: +yes\nOrganisation: +default \\(${me.organisationId}\\)\n` +
            `Role: +owner\nStatus: +active\nGateway: +${gateway.controlUrl}\nProfile: +default\n$`,
        ),
      );
      expect((await admin.json(['sessions', 'list'])).items.some((session: any) => session.current)).toBe(
        true,
      );
      expect((await admin.json(['version'])).gateway.apiVersion).toBe('v1');
      expect((await admin.json(['health'])).status).toBe('ready');
      const served: any = await (await fetch(`${gateway.controlUrl}/v1/openapi.json`)).json();
      expect(await admin.json(['openapi'])).toEqual(served);
      const documentFile = path.join(scratch, 'openapi.json');
      const written = await admin.json(['openapi', '--output', documentFile]);
      expect(JSON.parse(readFileSync(documentFile, 'utf8'))).toEqual(served);
      expect(written).toEqual({
        output: documentFile,
        openapi: served.openapi,
        operations: expect.any(Number),
      });
      expect(written.operations).toBeGreaterThanOrEqual(46);
      expect((await admin.json(['account', 'rename', 'The Admin'])).name).toBe('The Admin');

      // Organisation
      expect((await admin.json(['organisation', 'show'])).name).toBe('default');
      expect((await admin.json(['organisation', 'rename', 'renamed-by-cli'])).name).toBe('renamed-by-cli');
      expect((await admin.json(['organisation', 'rename', 'default'])).name).toBe('default');
      expect(await admin.json(['organisation', 'settings', 'retention_days=30', 'contact=ops'])).toEqual({
        retention_days: 30,
        contact: 'ops',
      });
      expect(await admin.json(['organisation', 'settings', 'contact='])).toEqual({ retention_days: 30 });
      expect(await admin.json(['organisation', 'settings'])).toEqual({ retention_days: 30 });
      expect(
        await admin.json([
          'organisation',
          'limits',
          'requestsPerSecond=500',
          'credentialRequestsPerSecond=50',
        ]),
      ).toMatchObject({ requestsPerSecond: 500, credentialRequestsPerSecond: 50 });
      expect(await admin.json(['organisation', 'limits'])).toMatchObject({
        requestsPerSecond: 500,
        credentialRequestsPerSecond: 50,
      });
      expect(
        await admin.json([
          'organisation',
          'limits',
          'requestsPerSecond=none',
          'credentialRequestsPerSecond=none',
        ]),
      ).toMatchObject({
        requestsPerSecond: null,
        credentialRequestsPerSecond: null,
      });
      const invited = await admin.json(['organisation', 'invite', 'member@example.test', '--role', 'member']);
      const joined = await member.json(
        [
          'accept-invitation',
          invited.invitation.token,
          '--name',
          'Member',
          '--url',
          gateway.controlUrl,
          '--password-stdin',
        ],
        { stdin: `${memberPassword}\n` },
      );
      expect(joined.user.email).toBe('member@example.test');
      const members = await admin.json(['organisation', 'members']);
      expect(members.items.map((item: any) => item.email)).toContain('member@example.test');
      expect((await admin.json(['organisation', 'role', 'member@example.test', 'admin'])).role).toBe('admin');
      const reset = await admin.json(['organisation', 'password-reset', 'member@example.test']);
      const newPassword = 'the member password after the reset';
      expect(
        await member.json(['reset-password', reset.token, '--url', gateway.controlUrl, '--password-stdin'], {
          stdin: `${newPassword}\n`,
        }),
      ).toEqual({ passwordChanged: true });
      await member.json(
        ['login', '--url', gateway.controlUrl, '--email', 'member@example.test', '--password-stdin'],
        { stdin: newPassword },
      );
      expect(
        await member.json(['account', 'password', '--password-stdin'], {
          stdin: `${newPassword}\n${memberPassword}\n`,
        }),
      ).toEqual({ passwordChanged: true });
      await member.json(
        [
          '--profile',
          'second',
          'login',
          '--url',
          gateway.controlUrl,
          '--email',
          'member@example.test',
          '--password-stdin',
        ],
        { stdin: memberPassword },
      );
      const other = (await member.json(['sessions', 'list'])).items.find((session: any) => !session.current);
      expect(await member.json(['sessions', 'end', other.id])).toEqual({ ended: other.id });
      await member.json(
        [
          '--profile',
          'third',
          'login',
          '--url',
          gateway.controlUrl,
          '--email',
          'member@example.test',
          '--password-stdin',
        ],
        { stdin: memberPassword },
      );
      expect(await member.json(['--profile', 'third', 'sessions', 'end', '--all'])).toEqual({ ended: 'all' });
      expect(await member.json(['logout'])).toEqual({ profile: 'default', loggedOut: true });
      expect(await member.json(['logout'])).toEqual({ profile: 'default', loggedOut: true });
      expect(await admin.json(['organisation', 'remove', 'member@example.test'])).toHaveProperty('removed');
      expect((await admin.json(['organisation', 'audit-log'])).items[0]).toHaveProperty('action');

      // Organisations (platform admins)
      const created = await admin.json([
        'organisations',
        'create',
        'json-org',
        '--owner',
        'owner@json-org.test',
      ]);
      expect(created.invitation.token).toEqual(expect.any(String));
      expect((await admin.json(['organisations', 'list'])).items.map((item: any) => item.name)).toContain(
        'json-org',
      );
      expect(
        await admin.json(['organisation', 'limits', 'maxObjects=1000', '--organisation', 'json-org']),
      ).toMatchObject({ maxObjects: 1000 });
      expect(
        await admin.json(['organisation', 'limits', '--organisation', created.organisation.id]),
      ).toMatchObject({ maxObjects: 1000 });
      expect((await admin.json(['organisation', 'limits'])).maxObjects).toBeNull();
      const otherUsage = await admin.json(['usage', '--organisation', 'json-org']);
      expect(otherUsage.storage.quota).toEqual({ maxBytes: null, maxObjects: 1000 });
      expect(await admin.ok(['usage', '--organisation', 'json-org'])).toMatch(
        /\n\nStorage now\nOrganisation quota: 1000 objects\nOrganisation holds: 0 B in 0 objects\n\nRequest rates\nOrganisation: +no limit\nEach credential: +no limit\nThrottled \(503 SlowDown\): 0\n$/,
      );
      const suspended = await admin.json(['organisations', 'suspend', 'json-org', '--reason', 'unpaid']);
      expect([suspended.status, suspended.suspensionReason]).toEqual(['suspended', 'unpaid']);
      expect((await admin.json(['organisations', 'reinstate', created.organisation.id])).status).toBe(
        'active',
      );

      // Buckets, CORS, objects
      const bucket = 'cli-json-bucket';
      expect((await admin.json(['buckets', 'create', bucket])).name).toBe(bucket);
      expect((await admin.json(['buckets', 'list'])).items.map((item: any) => item.name)).toContain(bucket);
      expect((await admin.json(['buckets', 'public', bucket, 'on'])).public).toBe(true);
      expect((await admin.json(['buckets', 'public', bucket, 'off'])).public).toBe(false);
      expect(await admin.json(['buckets', 'quota', bucket, 'maxBytes=10GiB', 'maxObjects=1000'])).toEqual({
        maxBytes: 10 * 2 ** 30,
        maxObjects: 1000,
      });
      expect(await admin.json(['buckets', 'quota', bucket, 'maxObjects=none'])).toEqual({
        maxBytes: 10 * 2 ** 30,
        maxObjects: null,
      });
      expect((await admin.json(['buckets', 'quota', bucket])).maxBytes).toBe(10 * 2 ** 30);
      const yamlFile = scratchFile(
        'cors.yaml',
        'rules:\n  - allowedOrigins: [https://app.example.test]\n    allowedMethods: [GET, PUT]\n    maxAgeSeconds: 600\n',
      );
      expect((await admin.json(['buckets', 'cors', 'set', bucket, yamlFile])).rules).toHaveLength(1);
      const jsonFile = scratchFile(
        'cors.json',
        JSON.stringify([{ allowedOrigins: ['https://a.test'], allowedMethods: ['GET'] }]),
      );
      expect(
        (await admin.json(['buckets', 'cors', 'set', bucket, jsonFile])).rules[0].allowedOrigins,
      ).toEqual(['https://a.test']);
      expect((await admin.json(['buckets', 'cors', 'get', bucket])).rules).toHaveLength(1);
      expect((await admin.json(['buckets', 'show', bucket])).cors.ruleCount).toBe(1);
      expect(await admin.json(['buckets', 'cors', 'delete', bucket])).toEqual({ bucket, rules: [] });

      // Credentials
      const key = await admin.json([
        'credentials',
        'create',
        'json-key',
        '--bucket',
        bucket,
        '--read-write',
        '--expires',
        '30d',
      ]);
      expect(key.secret).toEqual(expect.any(String));
      expect(Date.parse(key.expiresAt)).toBeGreaterThan(Date.now());
      const id = key.accessKeyId as string;
      expect(
        (await admin.json(['credentials', 'list'])).items.map((item: any) => item.accessKeyId),
      ).toContain(id);
      expect((await admin.json(['credentials', 'show', id])).scope).toEqual({
        buckets: [bucket],
        level: 'read-write',
      });
      expect((await admin.json(['credentials', 'rename', id, 'renamed-key'])).name).toBe('renamed-key');
      expect((await admin.json(['credentials', 'expiry', id, 'never'])).expiresAt).toBeNull();
      expect(
        (await admin.json(['credentials', 'scope', id, '--all-buckets', '--methods', 'GET,PUT,POST'])).scope,
      ).toEqual({ buckets: ['*'], methods: ['GET', 'PUT', 'POST'] });
      const rotated = await admin.json(['credentials', 'rotate', id, '--grace', '1h']);
      expect(rotated.secret).not.toBe(key.secret);
      expect(Date.parse(rotated.previousSecretValidUntil)).toBeGreaterThan(Date.now());
      const rotatedForShell = await admin.run(['credentials', 'rotate', id, '--print', 'env']);
      expect(rotatedForShell.code, describeCli(['credentials', 'rotate'], rotatedForShell)).toBe(0);
      expect(exportsOf(rotatedForShell.stdout)).toMatchObject({
        AWS_ACCESS_KEY_ID: id,
        AWS_SECRET_ACCESS_KEY: expect.stringMatching(/^\S{40}$/),
        AWS_ENDPOINT_URL: gateway.s3Url,
      });
      expect(exportsOf(rotatedForShell.stdout).AWS_SECRET_ACCESS_KEY).not.toBe(rotated.secret);
      const both = await admin.run(['credentials', 'rotate', id, '--print', 'env', '--json']);
      expect([both.code, both.stdout, both.stderr]).toEqual([
        2,
        '',
        's3gw: --print and --json exclude each other\n',
      ]);

      // Presigning with it, and the objects it put
      const put = await admin.json([
        'presign',
        bucket,
        'from-presign.txt',
        '--credential',
        id,
        '--method',
        'PUT',
      ]);
      expect((await fetch(put.url, { method: 'PUT', body: 'presigned', headers: put.headers })).status).toBe(
        200,
      );
      const get = await admin.json(['presign', bucket, 'from-presign.txt', '--credential', id]);
      expect(await (await fetch(get.url)).text()).toBe('presigned');
      const form = await admin.json([
        'presign',
        bucket,
        'form/${filename}',
        '--credential',
        id,
        '--method',
        'POST',
        '--max-size',
        '1024',
      ]);
      const body = new FormData();
      for (const [name, value] of Object.entries(form.fields as Record<string, string>))
        body.append(name, value);
      body.append('file', new Blob(['from a form']), 'note.txt');
      expect((await fetch(form.url, { method: 'POST', body })).status).toBe(204);
      const listing = await admin.json(['buckets', 'objects', 'list', bucket]);
      expect(listing.objects.map((object: any) => object.key)).toEqual(['form/note.txt', 'from-presign.txt']);
      expect(
        await admin.json(['buckets', 'objects', 'delete', bucket, 'from-presign.txt', 'form/note.txt']),
      ).toEqual({
        results: [
          { key: 'from-presign.txt', deleted: true },
          { key: 'form/note.txt', deleted: true },
        ],
      });
      expect(await admin.json(['credentials', 'revoke', id])).toEqual({ revoked: id });
      expect(await admin.json(['buckets', 'delete', bucket])).toEqual({ deleted: bucket });

      const usage = await admin.json(['usage']);
      expect(usage.totals).toHaveProperty('requests');
      expect(usage.storage).toHaveProperty('buckets');
      expect(usage.requestRates).toHaveProperty('throttledRequests');

      // Every command of s3gw was run above with --json.
      const program = buildProgram();
      const ran = new Set(
        [...admin.jsonRuns.slice(adminRunsBefore), ...member.jsonRuns].map((args) =>
          commandPathOf(program, args),
        ),
      );
      expect(leafCommands(program).filter((name) => !ran.has(name))).toEqual([]);
    } finally {
      member.remove();
    }
  });
});
