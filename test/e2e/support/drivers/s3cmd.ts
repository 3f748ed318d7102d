/**
 * s3cmd from Debian (/usr/bin/s3cmd), SigV4, one configuration file per key and addressing style
 * in the scratch HOME (`-c`, never ~/.s3cfg). 8 MiB multipart chunks. Virtual-hosted buckets go
 * through the loopback forward proxy (s3cmd's own proxy_host/proxy_port settings).
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

const S3CMD = '/usr/bin/s3cmd';

/** "ERROR: S3 error: 403 (AccessDenied): Access to this bucket is denied." */
const ERROR_LINE = /S3 error: (\d{3}) \(([A-Za-z]+)\): ?(.*)/;

export interface S3cmdDriver extends S3ClientDriver {
  /** `s3cmd signurl`: the URL s3cmd makes (it signs with SigV2 only). */
  signurl(connection: Connection, bucket: string, key: string, expiresSeconds: number): Promise<string>;
}

export function s3cmdDriver({ world, workDir }: ClientEnvironment): S3cmdDriver {
  const proxy = new URL(world.proxy.url);
  const host = `127.0.0.1:${world.s3Port}`;
  const virtualHost = `${world.domain}:${world.s3Port}`;

  function configFile(connection: Connection): string {
    const virtual = connection.addressing === 'virtual';
    const file = path.join(workDir, `s3cmd-${connection.key.accessKeyId}-${connection.addressing}.cfg`);
    writeFileSync(
      file,
      [
        '[default]',
        `access_key = ${connection.key.accessKeyId}`,
        `secret_key = ${connection.key.secret}`,
        `host_base = ${virtual ? virtualHost : host}`,
        // a host_bucket without %(bucket)s makes s3cmd address buckets path-style
        `host_bucket = ${virtual ? `%(bucket)s.${virtualHost}` : host}`,
        `bucket_location = ${REGION}`,
        'use_https = False',
        'signature_v2 = False',
        'multipart_chunk_size_mb = 8',
        'progress_meter = False',
        ...(virtual ? [`proxy_host = ${proxy.hostname}`, `proxy_port = ${proxy.port}`] : []),
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    return file;
  }

  async function s3cmd(connection: Connection, args: string[]): Promise<string> {
    const fullArgs = ['-c', configFile(connection), ...args];
    const result = await runProcess(S3CMD, fullArgs, { cwd: workDir, env: isolatedEnv(workDir) });
    if (result.code === 0) return result.stdout;
    const match = ERROR_LINE.exec(result.stderr);
    if (match !== null) throw new ClientRefusal(match[2]!, match[3]!.trim(), Number(match[1]), result.stderr);
    throw new Error(describeProcess(S3CMD, fullArgs, result));
  }

  return {
    name: 's3cmd',
    partSize: 8 * MiB,
    showsStatus: true,
    async version() {
      const result = await runProcess(S3CMD, ['--version'], { env: isolatedEnv(workDir) });
      return result.stdout.trim().replace('s3cmd version ', '');
    },
    async put(connection, bucket, key, file) {
      await s3cmd(connection, ['put', file, `s3://${bucket}/${key}`]);
    },
    async get(connection, bucket, key, file) {
      await s3cmd(connection, ['get', '--force', `s3://${bucket}/${key}`, file]);
    },
    async list(connection, bucket, prefix) {
      const out = await s3cmd(connection, ['ls', '--recursive', `s3://${bucket}/${prefix}`]);
      // "2026-11-21 14:22     17825792  s3://bucket/big/large object.bin"
      const objectPrefix = `s3://${bucket}/`;
      return out
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const match = /^\S+ \S+\s+(\d+)\s+(s3:\/\/.*)$/.exec(line);
          if (match === null || !match[2]!.startsWith(objectPrefix))
            throw new Error(`unexpected s3cmd ls line: ${line}`);
          return { key: match[2]!.slice(objectPrefix.length), size: Number(match[1]) };
        });
    },
    async copy(connection, bucket, sourceKey, key) {
      await s3cmd(connection, ['cp', `s3://${bucket}/${sourceKey}`, `s3://${bucket}/${key}`]);
    },
    async remove(connection, bucket, key) {
      await s3cmd(connection, ['del', `s3://${bucket}/${key}`]);
    },
    async createBucket(connection, bucket) {
      await s3cmd(connection, ['mb', `s3://${bucket}`]);
    },
    async deleteBucket(connection, bucket) {
      await s3cmd(connection, ['rb', `s3://${bucket}`]);
    },
    async signurl(connection, bucket, key, expiresSeconds) {
      return (await s3cmd(connection, ['signurl', `s3://${bucket}/${key}`, `+${expiresSeconds}`])).trim();
    },
  };
}
