/**
 * boto3 from Debian's python3-boto3, run by /usr/bin/python3 in isolated mode (-I: no PYTHON*
 * variables, no user site; a pyenv python3 first on PATH is never used), one process per
 * operation through boto3-driver.py. Transfers use the managed transfer manager with 8 MiB parts.
 */
import { fileURLToPath } from 'node:url';
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

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../boto3-driver.py', import.meta.url));

export interface Boto3Driver extends S3ClientDriver {
  /** A presigned GET URL with boto3's default signer (SigV2 in boto3 1.26). */
  presignGetWithDefaults(
    connection: Connection,
    bucket: string,
    key: string,
    expiresSeconds: number,
  ): Promise<string>;
}

export function boto3Driver({ world, workDir }: ClientEnvironment): Boto3Driver {
  async function boto3(
    connection: Connection,
    operation: string,
    args: Record<string, unknown>,
  ): Promise<unknown> {
    const virtual = connection.addressing === 'virtual';
    const fullArgs = ['-I', SCRIPT, operation, JSON.stringify(args)];
    const result = await runProcess(PYTHON, fullArgs, {
      cwd: workDir,
      env: isolatedEnv(workDir, {
        AWS_CONFIG_FILE: path.join(workDir, '.aws', 'config'),
        AWS_SHARED_CREDENTIALS_FILE: path.join(workDir, '.aws', 'credentials'),
        AWS_ACCESS_KEY_ID: connection.key.accessKeyId,
        AWS_SECRET_ACCESS_KEY: connection.key.secret,
        AWS_DEFAULT_REGION: REGION,
        E2E_ENDPOINT: virtual ? world.virtualEndpoint : world.s3Url,
        E2E_ADDRESSING: connection.addressing,
        ...(virtual ? { HTTP_PROXY: world.proxy.url } : {}),
      }),
    });
    const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
    let answer: { ok?: unknown; error?: { code: string; message: string | null; status: number | null } };
    try {
      answer = JSON.parse(lastLine) as typeof answer;
    } catch {
      throw new Error(describeProcess(PYTHON, fullArgs, result));
    }
    if (result.code === 3 && answer.error !== undefined) {
      const { code, message, status } = answer.error;
      throw new ClientRefusal(code, message, status, result.stdout);
    }
    if (result.code !== 0) throw new Error(describeProcess(PYTHON, fullArgs, result));
    return answer.ok;
  }

  const anyKey: Connection = { key: world.tenant.readWrite, addressing: 'path' };
  return {
    name: 'boto3',
    partSize: 8 * MiB,
    showsStatus: true,
    async version() {
      const versions = (await boto3(anyKey, 'version', {})) as { boto3: string; botocore: string };
      return `${versions.boto3} (botocore ${versions.botocore})`;
    },
    async put(connection, bucket, key, file) {
      await boto3(connection, 'put', { bucket, key, file });
    },
    async get(connection, bucket, key, file) {
      await boto3(connection, 'get', { bucket, key, file });
    },
    async list(connection, bucket, prefix) {
      return (await boto3(connection, 'list', { bucket, prefix })) as { key: string; size: number }[];
    },
    async copy(connection, bucket, sourceKey, key) {
      await boto3(connection, 'copy', { bucket, source: sourceKey, key });
    },
    async remove(connection, bucket, key) {
      await boto3(connection, 'delete', { bucket, key });
    },
    async createBucket(connection, bucket) {
      await boto3(connection, 'create-bucket', { bucket });
    },
    async deleteBucket(connection, bucket) {
      await boto3(connection, 'delete-bucket', { bucket });
    },
    async presignGet(connection, bucket, key, expiresSeconds) {
      return (await boto3(connection, 'presign', { bucket, key, expires: expiresSeconds })) as string;
    },
    async presignGetWithDefaults(connection, bucket, key, expiresSeconds) {
      return (await boto3(connection, 'presign-default', { bucket, key, expires: expiresSeconds })) as string;
    },
  };
}
