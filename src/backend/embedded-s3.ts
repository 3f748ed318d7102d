import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

export interface EmbeddedS3 {
  readonly url: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly directory: string;
  stop(): Promise<void>;
}

/**
 * s3rver keeps objects as files under the data directory and accepts only its fixed key pair; it is
 * for trying the gateway out, not for production.
 */
export async function startEmbeddedS3(directory: string): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const address = (await server.run()) as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    directory,
    stop: () => server.close(),
  };
}
