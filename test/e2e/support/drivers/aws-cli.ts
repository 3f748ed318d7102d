/**
 * aws-cli v2 from Debian (/usr/bin/aws; a pyenv aws v1 may come first on PATH and is never used),
 * always with --endpoint-url. Configuration lives in the client's scratch HOME; keys come from
 * the environment. `s3 cp` uses 8 MiB parts above 8 MiB, so the large object takes 3 parts and its
 * server-side copy goes through UploadPartCopy.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ClientRefusal,
  MiB,
  type ClientEnvironment,
  type Connection,
  type S3ClientDriver,
} from '../client-suite.js';
import { describeProcess, isolatedEnv, runProcess } from '../subprocess.js';
import { REGION } from '../world.js';

const AWS = '/usr/bin/aws';

/** "An error occurred (AccessDenied) when calling the PutObject operation: Access to this bucket is denied." */
const ERROR_LINE = /An error occurred \(([A-Za-z]+)\) when calling the [A-Za-z0-9]+ operation: ?(.*)/;

export function awsCliDriver({ world, workDir }: ClientEnvironment): S3ClientDriver {
  const configDir = path.join(workDir, '.aws');
  mkdirSync(configDir, { recursive: true });
  const transfer = ['s3 =', '  multipart_threshold = 8MB', '  multipart_chunksize = 8MB'];
  writeFileSync(
    path.join(configDir, 'config'),
    [
      '[default]',
      `region = ${REGION}`,
      ...transfer,
      '  addressing_style = path',
      '',
      '[profile virtual]',
      `region = ${REGION}`,
      ...transfer,
      '  addressing_style = virtual',
      '',
    ].join('\n'),
  );

  async function aws(connection: Connection, args: string[]): Promise<string> {
    const virtual = connection.addressing === 'virtual';
    const fullArgs = ['--endpoint-url', virtual ? world.virtualEndpoint : world.s3Url, ...args];
    const result = await runProcess(AWS, fullArgs, {
      cwd: workDir,
      env: isolatedEnv(workDir, {
        AWS_CONFIG_FILE: path.join(configDir, 'config'),
        AWS_SHARED_CREDENTIALS_FILE: path.join(configDir, 'credentials'),
        AWS_ACCESS_KEY_ID: connection.key.accessKeyId,
        AWS_SECRET_ACCESS_KEY: connection.key.secret,
        AWS_PAGER: '',
        ...(virtual ? { AWS_PROFILE: 'virtual', HTTP_PROXY: world.proxy.url } : {}),
      }),
    });
    if (result.code === 0) return result.stdout;
    const match = ERROR_LINE.exec(result.stderr);
    if (match !== null) throw new ClientRefusal(match[1]!, match[2]!.trim(), null, result.stderr);
    throw new Error(describeProcess(AWS, fullArgs, result));
  }

  return {
    name: 'aws-cli',
    partSize: 8 * MiB,
    showsStatus: false,
    async version() {
      const result = await runProcess(AWS, ['--version'], { env: isolatedEnv(workDir) });
      return result.stdout.trim().split(' ')[0]!.replace('aws-cli/', '');
    },
    async put(connection, bucket, key, file) {
      await aws(connection, ['s3', 'cp', '--no-progress', file, `s3://${bucket}/${key}`]);
    },
    async get(connection, bucket, key, file) {
      await aws(connection, ['s3', 'cp', '--no-progress', `s3://${bucket}/${key}`, file]);
    },
    async list(connection, bucket, prefix) {
      const out = await aws(connection, [
        's3api',
        'list-objects-v2',
        '--bucket',
        bucket,
        '--prefix',
        prefix,
        '--output',
        'json',
      ]);
      if (out.trim() === '') return [];
      const listing = JSON.parse(out) as { Contents?: { Key: string; Size: number }[] };
      return (listing.Contents ?? []).map((object) => ({ key: object.Key, size: object.Size }));
    },
    async copy(connection, bucket, sourceKey, key) {
      await aws(connection, [
        's3',
        'cp',
        '--no-progress',
        `s3://${bucket}/${sourceKey}`,
        `s3://${bucket}/${key}`,
      ]);
    },
    async remove(connection, bucket, key) {
      await aws(connection, ['s3', 'rm', `s3://${bucket}/${key}`]);
    },
    async createBucket(connection, bucket) {
      await aws(connection, ['s3', 'mb', `s3://${bucket}`]);
    },
    async deleteBucket(connection, bucket) {
      await aws(connection, ['s3', 'rb', `s3://${bucket}`]);
    },
    async presignGet(connection, bucket, key, expiresSeconds) {
      const out = await aws(connection, [
        's3',
        'presign',
        `s3://${bucket}/${key}`,
        '--expires-in',
        String(expiresSeconds),
      ]);
      return out.trim();
    },
  };
}
