/**
 * The README's "first five minutes" with nothing but s3gw and aws-cli (Debian's, /usr/bin/aws) in
 * front of Ceph RGW: log in, create a bucket, print an aws profile for a read-write and a read-only
 * key, then aws-cli writes with the first, reads with the second and is refused a write with it.
 * aws-cli reads the printed profile's endpoint_url from 2.13 on: a newer one is given the profile
 * alone; an older one (Debian 12 ships 2.9) also --endpoint-url, the one the printed profile
 * names, as the printed hint says.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsCli, CliUser, describeCli } from '../support/cli.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';
import { describeProcess, isolatedEnv, runProcess } from './support/subprocess.js';
import { uniqueName } from './support/world.js';
import { backendEnv } from './support/rgw.js';

const AWS = '/usr/bin/aws';
const installed = awsCli(AWS);
const rgw = inject('rgw');
const bucket = uniqueName('e2e-cli');

let gateway: TestGateway;
const person = new CliUser();
const home = mkdtempSync(path.join(tmpdir(), 'e2e-cli-home-'));
const awsConfig = path.join(home, '.aws', 'config');

beforeAll(async () => {
  gateway = await startTestGateway({
    ...backendEnv(rgw),
    GATEWAY_LOG_LEVEL: 'info',
  });
});

afterAll(async () => {
  if (gateway !== undefined) {
    await person.run(['buckets', 'objects', 'delete', bucket, 'notes.txt']);
    await person.run(['buckets', 'delete', bucket]);
    await gateway.stop();
  }
  person.remove();
  rmSync(home, { recursive: true, force: true });
});

/** aws-cli as the person runs it after pasting the printed profiles into ~/.aws/config. */
async function aws(profile: string, endpoint: string, args: string[]) {
  if (installed === null) throw new Error(`${AWS} is not installed: scripts/e2e/install-clients.sh clients`);
  const endpointOption = installed.readsConfiguredEndpoint ? [] : ['--endpoint-url', endpoint];
  const fullArgs = ['--profile', profile, ...endpointOption, ...args];
  const result = await runProcess(AWS, fullArgs, {
    cwd: home,
    env: isolatedEnv(home, { AWS_CONFIG_FILE: awsConfig, AWS_PAGER: '' }),
  });
  return { ...result, describe: () => describeProcess(AWS, fullArgs, result) };
}

describe('s3gw and aws-cli, against Ceph RGW', () => {
  it(`logs in, creates a bucket and keys, and ${installed?.label ?? 'aws-cli'} writes with one key and only reads with the other${
    installed?.readsConfiguredEndpoint === false ? ' (with --endpoint-url, as the printed hint says)' : ''
  }`, async () => {
    const login = await person.run(
      [
        'login',
        '--url',
        gateway.controlUrl,
        '--storage-url',
        gateway.s3Url,
        '--email',
        TEST_ADMIN_EMAIL,
        '--password-stdin',
      ],
      { stdin: TEST_ADMIN_PASSWORD },
    );
    expect(login.code, describeCli(['login'], login)).toBe(0);
    await person.ok(['buckets', 'create', bucket]);

    const profiles: string[] = [];
    for (const [name, level] of [
      ['writer', '--read-write'],
      ['reader', '--read-only'],
    ] as const) {
      profiles.push(
        await person.ok([
          'credentials',
          'create',
          `e2e ${name}`,
          '--bucket',
          bucket,
          level,
          '--print',
          'aws-profile',
          '--as',
          name,
        ]),
      );
    }
    mkdirSync(path.dirname(awsConfig), { recursive: true });
    writeFileSync(awsConfig, profiles.join('\n'));
    const endpoint = /^endpoint_url = (\S+)$/m.exec(profiles[1]!)?.[1] ?? '';
    expect(endpoint).toBe(gateway.s3Url);

    const file = path.join(home, 'notes.txt');
    writeFileSync(file, 'written by aws-cli\n');
    const upload = await aws('writer', endpoint, [
      's3',
      'cp',
      '--no-progress',
      file,
      `s3://${bucket}/notes.txt`,
    ]);
    expect(upload.code, upload.describe()).toBe(0);

    const read = await aws('reader', endpoint, [
      's3',
      'cp',
      '--no-progress',
      `s3://${bucket}/notes.txt`,
      '-',
    ]);
    expect(read.code, read.describe()).toBe(0);
    expect(read.stdout).toBe('written by aws-cli\n');
    const listed = await aws('reader', endpoint, ['s3', 'ls', `s3://${bucket}/`]);
    expect(listed.stdout).toMatch(/ 19 notes\.txt\n$/);

    const refused = await aws('reader', endpoint, [
      's3',
      'cp',
      '--no-progress',
      file,
      `s3://${bucket}/other.txt`,
    ]);
    expect(refused.code, refused.describe()).not.toBe(0);
    expect(refused.stderr).toContain(
      'An error occurred (AccessDenied) when calling the PutObject operation: Access to this bucket is denied.',
    );
    const stored = await person.json(['buckets', 'objects', 'list', bucket]);
    expect(stored.objects.map((object: { key: string }) => object.key)).toEqual(['notes.txt']);
  });
});
