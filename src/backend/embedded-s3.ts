import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EmbeddedS3 {
  readonly url: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly directory: string;
  stop(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./embedded-s3-child.cjs', import.meta.url));

const START_TIMEOUT_MS = 20_000;

/**
 * The local-mode object store: s3rver, keeping objects as files under the data directory and
 * accepting only its fixed key pair. It is for trying the gateway out, not for production.
 *
 * It runs in a child process because s3rver encrypts ListObjectsV2 continuation tokens with DES,
 * which Node 24's OpenSSL 3 offers only with the legacy provider; enabling that for the gateway
 * itself would widen what its own crypto accepts. The child also makes s3rver's writes atomic
 * (embedded-s3-child.cjs).
 */
export async function startEmbeddedS3(directory: string): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const s3rverEntry = createRequire(import.meta.url).resolve('s3rver');
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', CHILD_SCRIPT, s3rverEntry, path.resolve(directory)],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  const port = await waitForPort(child);
  return {
    url: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    directory,
    stop: () => stopChild(child),
  };
}

function waitForPort(child: ChildProcess): Promise<number> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the embedded object store did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.once('message', (message: { port?: number }) => {
      clearTimeout(timer);
      if (typeof message.port === 'number') resolve(message.port);
      else reject(new Error('the embedded object store reported no port'));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedded object store exited (${code}) while starting: ${stderr.trim()}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
