/**
 * s3gw, the admin command line, as a person and their scripts use it: `bin/s3gw.js` (what `npx s3gw`
 * runs) as a separate process against a gateway in local mode (embedded object store). The gateway
 * issues access tokens for 2 seconds, so the commands keep meeting expired tokens and must refresh
 * them with the rotating refresh cookie. What a client does with the printed settings is checked
 * with the AWS SDK for JavaScript; test/e2e/cli-first-five-minutes.test.ts does it with aws-cli.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliUser, describeCli } from '../support/cli.js';
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
const ONE_ERROR_LINE = /^s3gw: [^\n]+\n$/;

let gateway: TestGateway;
const admin = new CliUser();
const scratch = mkdtempSync(path.join(tmpdir(), 's3gw-cli-test-'));

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_SECONDS) });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  admin.remove();
  rmSync(scratch, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function loginArgs(email = TEST_ADMIN_EMAIL): string[] {
  return [
    'login',
    '--url',
    gateway.controlUrl,
    '--storage-url',
    gateway.s3Url,
    '--email',
    email,
    '--password-stdin',
  ];
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

describe('the first five minutes', () => {
  it('logs in, creates a bucket and a read-only credential whose printed aws profile reads and is refused a write', async () => {
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

    // Something to read: uploaded with a read-write key printed for the shell.
    const writer = exportsOf(
      await admin.ok([
        'credentials',
        'create',
        'uploader',
        '--bucket',
        BUCKET,
        '--read-write',
        '--print',
        'env',
      ]),
    );
    expect(writer.AWS_ENDPOINT_URL).toBe(gateway.s3Url);
    const uploader = new S3Client({
      endpoint: writer.AWS_ENDPOINT_URL,
      region: writer.AWS_REGION!,
      forcePathStyle: true,
      credentials: { accessKeyId: writer.AWS_ACCESS_KEY_ID!, secretAccessKey: writer.AWS_SECRET_ACCESS_KEY! },
    });
    await uploader.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'hello.txt', Body: 'hello from s3gw' }));
    uploader.destroy();

    const printed = await admin.run([
      'credentials',
      'create',
      'Photo reader',
      '--bucket',
      BUCKET,
      '--read-only',
      '--print',
      'aws-profile',
    ]);
    expect(printed.code, describeCli(['credentials', 'create'], printed)).toBe(0);
    expect(printed.stdout).toMatch(
      new RegExp(
        '^\\[profile photo-reader\\]\naws_access_key_id = GWK1\\w+\naws_secret_access_key = \\S{40}\n' +
          `region = us-east-1\nendpoint_url = ${gateway.s3Url}\n`,
      ),
    );
    expect(printed.stderr).toContain('aws --profile photo-reader');

    // The printed block as the whole ~/.aws/config of someone who never configured anything else.
    const config = path.join(scratch, 'aws-config');
    writeFileSync(config, printed.stdout);
    vi.stubEnv('AWS_CONFIG_FILE', config);
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', path.join(scratch, 'no-credentials-file'));
    vi.stubEnv('AWS_PROFILE', 'photo-reader');
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'AWS_ENDPOINT_URL'])
      vi.stubEnv(name, undefined);
    const reader = new S3Client({});
    try {
      const listed = await reader.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      expect(listed.Contents?.map((object) => object.Key)).toEqual(['hello.txt']);
      const read = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'hello.txt' }));
      expect(await read.Body?.transformToString()).toBe('hello from s3gw');
      const refused = await reader
        .send(new PutObjectCommand({ Bucket: BUCKET, Key: 'written.txt', Body: 'no' }))
        .then(
          () => null,
          (error: { name: string; message: string }) => error,
        );
      expect({ name: refused?.name, message: refused?.message }).toEqual({
        name: 'AccessDenied',
        message: 'Access to this bucket is denied.',
      });
    } finally {
      reader.destroy();
    }
  });
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
});

describe('--json', () => {
  it('prints JSON that parses for every command', { timeout: 180_000 }, async () => {
    const member = new CliUser();
    const memberPassword = 'the invited member password';
    try {
      expect((await admin.json(['whoami'])).platformAdmin).toBe(true);
      expect((await admin.json(['sessions', 'list'])).items.some((session: any) => session.current)).toBe(
        true,
      );
      expect((await admin.json(['version'])).gateway.apiVersion).toBe('v1');
      expect((await admin.json(['health'])).status).toBe('ready');
      expect((await admin.json(['account', 'rename', 'The Admin'])).name).toBe('The Admin');

      // Organisation
      expect((await admin.json(['organisation', 'show'])).name).toBe('default');
      expect(await admin.json(['organisation', 'settings', 'retention_days=30', 'contact=ops'])).toEqual({
        retention_days: 30,
        contact: 'ops',
      });
      expect(await admin.json(['organisation', 'settings', 'contact='])).toEqual({ retention_days: 30 });
      expect(
        await admin.json([
          'organisation',
          'limits',
          'requestsPerSecond=500',
          'credentialRequestsPerSecond=50',
        ]),
      ).toMatchObject({ requestsPerSecond: 500, credentialRequestsPerSecond: 50 });
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
      const yamlFile = path.join(scratch, 'cors.yaml');
      writeFileSync(
        yamlFile,
        'rules:\n  - allowedOrigins: [https://app.example.test]\n    allowedMethods: [GET, PUT]\n    maxAgeSeconds: 600\n',
      );
      expect((await admin.json(['buckets', 'cors', 'set', bucket, yamlFile])).rules).toHaveLength(1);
      const jsonFile = path.join(scratch, 'cors.json');
      writeFileSync(
        jsonFile,
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
        (await admin.json(['credentials', 'scope', id, '--all-buckets', '--methods', 'GET,PUT'])).scope,
      ).toEqual({ buckets: ['*'], methods: ['GET', 'PUT'] });
      const rotated = await admin.json(['credentials', 'rotate', id, '--grace', '1h']);
      expect(rotated.secret).not.toBe(key.secret);
      expect(Date.parse(rotated.previousSecretValidUntil)).toBeGreaterThan(Date.now());

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
      const listing = await admin.json(['buckets', 'objects', 'list', bucket]);
      expect(listing.objects.map((object: any) => object.key)).toEqual(['from-presign.txt']);
      expect(await admin.json(['buckets', 'objects', 'delete', bucket, 'from-presign.txt'])).toEqual({
        results: [{ key: 'from-presign.txt', deleted: true }],
      });
      expect(await admin.json(['credentials', 'revoke', id])).toEqual({ revoked: id });
      expect(await admin.json(['buckets', 'delete', bucket])).toEqual({ deleted: bucket });

      expect((await admin.json(['usage'])).totals).toHaveProperty('requests');
    } finally {
      member.remove();
    }
  });
});
