/**
 * rclone from Debian (/usr/bin/rclone), provider "Other", one configuration file per key and
 * addressing style (`--config`, never ~/.config/rclone). `no_check_bucket = true` is required:
 * rclone otherwise sends CreateBucket before uploading, which the storage endpoint refuses (405,
 * bucket creation belongs to the control plane). 8 MiB parts for uploads and server-side copies.
 * Uploads use `--no-check-dest`: by default rclone first HEADs the destination, and a refused HEAD
 * has no body, so rclone can only say "Forbidden" (uploadDefault keeps that behaviour for the test
 * that shows it). Virtual-hosted buckets go through the loopback forward proxy (HTTP_PROXY).
 */
import { writeFileSync } from 'node:fs';
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

const RCLONE = '/usr/bin/rclone';

/**
 * "ERROR : small.txt: Failed to copy: AccessDenied: Access to this bucket is denied.\n\tstatus code: 403, …"
 * or "… error in ListJSON: AccessDenied: …": the S3 code is the first ": "-separated segment that is a
 * single CamelCase word, on the line before the status.
 */
const ERROR_LINES = /(?:^|: )([A-Z][A-Za-z0-9]+): ([^\n]*)\n\s*status code: (\d{3})/m;

export interface RcloneDriver extends S3ClientDriver {
  /** `rclone copyto` with its defaults (HEAD of the destination first). */
  putDefault(connection: Connection, bucket: string, key: string, file: string): Promise<void>;
  /** `rclone copyto` with a remote lacking `no_check_bucket` (rclone creates the bucket first). */
  putCheckingBucket(connection: Connection, bucket: string, key: string, file: string): Promise<void>;
}

export function rcloneDriver({ world, workDir }: ClientEnvironment): RcloneDriver {
  function configFile(connection: Connection, checkBucket = false): string {
    const virtual = connection.addressing === 'virtual';
    const variant = `${connection.addressing}${checkBucket ? '-check-bucket' : ''}`;
    const file = path.join(workDir, `rclone-${connection.key.accessKeyId}-${variant}.conf`);
    writeFileSync(
      file,
      [
        '[gw]',
        'type = s3',
        'provider = Other',
        `access_key_id = ${connection.key.accessKeyId}`,
        `secret_access_key = ${connection.key.secret}`,
        `endpoint = ${virtual ? world.virtualEndpoint : world.s3Url}`,
        `region = ${REGION}`,
        `force_path_style = ${virtual ? 'false' : 'true'}`,
        ...(checkBucket ? [] : ['no_check_bucket = true']),
        'upload_cutoff = 8Mi',
        'chunk_size = 8Mi',
        'copy_cutoff = 8Mi',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    return file;
  }

  async function rclone(connection: Connection, args: string[], checkBucket = false): Promise<string> {
    const fullArgs = [
      '--config',
      configFile(connection, checkBucket),
      '--retries',
      '1',
      '--low-level-retries',
      '1',
      ...args,
    ];
    const result = await runProcess(RCLONE, fullArgs, {
      cwd: workDir,
      env: isolatedEnv(workDir, connection.addressing === 'virtual' ? { HTTP_PROXY: world.proxy.url } : {}),
    });
    if (result.code === 0) return result.stdout;
    const match = ERROR_LINES.exec(result.stderr);
    if (match !== null) throw new ClientRefusal(match[1]!, match[2]!.trim(), Number(match[3]), result.stderr);
    throw new Error(describeProcess(RCLONE, fullArgs, result));
  }

  return {
    name: 'rclone',
    partSize: 8 * MiB,
    showsStatus: true,
    async version() {
      const result = await runProcess(RCLONE, ['version'], { env: isolatedEnv(workDir) });
      return result.stdout.split('\n')[0]!.replace('rclone ', '').trim();
    },
    async put(connection, bucket, key, file) {
      await rclone(connection, ['copyto', '--no-check-dest', file, `gw:${bucket}/${key}`]);
    },
    async putDefault(connection, bucket, key, file) {
      await rclone(connection, ['copyto', file, `gw:${bucket}/${key}`]);
    },
    async putCheckingBucket(connection, bucket, key, file) {
      await rclone(connection, ['copyto', '--no-check-dest', file, `gw:${bucket}/${key}`], true);
    },
    // with no_check_bucket rclone's mkdir sends nothing at all, so bucket creation uses the checking remote
    async createBucket(connection, bucket) {
      await rclone(connection, ['mkdir', `gw:${bucket}`], true);
    },
    async deleteBucket(connection, bucket) {
      await rclone(connection, ['rmdir', `gw:${bucket}`]);
    },
    async get(connection, bucket, key, file) {
      await rclone(connection, ['copyto', `gw:${bucket}/${key}`, file]);
    },
    async list(connection, bucket, prefix) {
      // rclone lists directories: the prefix must be one ('' or ending in '/'); paths come back relative to it
      if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`rclone lists directories, not ${prefix}`);
      const out = await rclone(connection, [
        'lsjson',
        '--recursive',
        '--files-only',
        '--no-mimetype',
        '--no-modtime',
        `gw:${bucket}/${prefix}`,
      ]);
      return (JSON.parse(out) as { Path: string; Size: number }[]).map((entry) => ({
        key: `${prefix}${entry.Path}`,
        size: entry.Size,
      }));
    },
    async copy(connection, bucket, sourceKey, key) {
      await rclone(connection, ['copyto', `gw:${bucket}/${sourceKey}`, `gw:${bucket}/${key}`]);
    },
    async remove(connection, bucket, key) {
      await rclone(connection, ['deletefile', `gw:${bucket}/${key}`]);
    },
    async presignGet(connection, bucket, key, expiresSeconds) {
      return (
        await rclone(connection, ['link', '--expire', `${expiresSeconds}s`, `gw:${bucket}/${key}`])
      ).trim();
    },
  };
}
