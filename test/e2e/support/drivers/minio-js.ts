/**
 * The MinIO JavaScript client (`minio` as installed), in-process, with its 5 MiB minimum part size
 * (the 17 MiB object goes up in 4 parts). The region is given so it never probes bucket locations.
 * Virtual-hosted addressing: `pathStyle: false` with the storage domain as endPoint, and an agent
 * that resolves `*.s3.localhost` to loopback.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Client, CopyDestinationOptions, CopySourceOptions, S3Error } from 'minio';
import {
  ClientRefusal,
  MiB,
  type ClientEnvironment,
  type Connection,
  type S3ClientDriver,
} from '../client-suite.js';
import { REGION } from '../world.js';
import { loopbackResolver, type LoopbackResolver } from './loopback-agent.js';

const PART_SIZE = 5 * MiB;
/** Longest silence on a request's socket (sending, waiting, or reading the response) before it is cut. */
const IDLE_TIMEOUT_MS = 60_000;

export interface MinioJsDriver extends S3ClientDriver {
  readonly virtualHostResolver: LoopbackResolver;
}

/**
 * node:http as minio's transport, with a bound the client itself lacks: a request whose socket stays
 * silent for IDLE_TIMEOUT_MS is destroyed, so minio reports an error instead of waiting forever.
 */
const timedTransport = {
  request: (options: http.RequestOptions, callback?: (response: http.IncomingMessage) => void) => {
    const request = http.request(options, callback);
    request.setTimeout(IDLE_TIMEOUT_MS, () =>
      request.destroy(new Error(`minio-js: no data on the connection for ${IDLE_TIMEOUT_MS} ms`)),
    );
    return request;
  },
} as Pick<typeof http, 'request'>;

async function refusals<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof S3Error && error.code !== undefined) {
      throw new ClientRefusal(error.code, error.message, null, String(error));
    }
    throw error;
  }
}

export function minioJsDriver({ world }: ClientEnvironment): MinioJsDriver {
  const resolver = loopbackResolver(world.domain);
  const clients = new Map<string, Client>();

  function client(connection: Connection): Client {
    const id = `${connection.key.accessKeyId}/${connection.addressing}`;
    let existing = clients.get(id);
    if (existing === undefined) {
      const virtual = connection.addressing === 'virtual';
      existing = new Client({
        endPoint: virtual ? world.domain : '127.0.0.1',
        port: world.s3Port,
        useSSL: false,
        pathStyle: !virtual,
        region: REGION,
        partSize: PART_SIZE,
        accessKey: connection.key.accessKeyId,
        secretKey: connection.key.secret,
        transport: timedTransport,
        ...(virtual ? { transportAgent: resolver.agent } : {}),
      });
      clients.set(id, existing);
    }
    return existing;
  }

  return {
    name: 'minio-js',
    partSize: PART_SIZE,
    showsStatus: false,
    virtualHostResolver: resolver,
    async version() {
      const manifest = new URL('../../../../node_modules/minio/package.json', import.meta.url);
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    },
    async put(connection, bucket, key, file) {
      await refusals(client(connection).fPutObject(bucket, key, file, {}));
    },
    async get(connection, bucket, key, file) {
      await refusals(client(connection).fGetObject(bucket, key, file));
    },
    async list(connection, bucket, prefix) {
      const listed: { key: string; size: number }[] = [];
      const stream = client(connection).listObjectsV2(bucket, prefix, true);
      await refusals(
        (async () => {
          for await (const item of stream as AsyncIterable<{ name?: string; size: number }>) {
            if (item.name !== undefined) listed.push({ key: item.name, size: item.size });
          }
        })(),
      );
      return listed;
    },
    async copy(connection, bucket, sourceKey, key) {
      await refusals(
        client(connection).copyObject(
          new CopySourceOptions({ Bucket: bucket, Object: sourceKey }),
          new CopyDestinationOptions({ Bucket: bucket, Object: key }),
        ),
      );
    },
    async remove(connection, bucket, key) {
      await refusals(client(connection).removeObject(bucket, key));
    },
    async createBucket(connection, bucket) {
      await refusals(client(connection).makeBucket(bucket, REGION));
    },
    async deleteBucket(connection, bucket) {
      await refusals(client(connection).removeBucket(bucket));
    },
    async presignGet(connection, bucket, key, expiresSeconds) {
      return client(connection).presignedGetObject(bucket, key, expiresSeconds);
    },
    async close() {
      resolver.agent.destroy();
    },
  };
}
