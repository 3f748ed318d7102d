/**
 * The AWS SDK for JavaScript v3 (@aws-sdk/client-s3 as installed, current version) with its
 * default checksum behaviour (CRC32 on every upload that supports one, checksum mode on GETs).
 * In-process: this test file's worker process gets config-file paths in the scratch directory and
 * no AWS_* variables, so nothing of the user's ~/.aws is read. Uploads above 8 MiB are multipart
 * with 8 MiB parts, made with the SDK's own commands (@aws-sdk/lib-storage is not a dependency).
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  ClientRefusal,
  MiB,
  type ClientEnvironment,
  type Connection,
  type S3ClientDriver,
} from '../client-suite.js';
import { REGION, SDK_TIMEOUTS } from '../world.js';
import { loopbackResolver, type LoopbackResolver } from './loopback-agent.js';

const PART_SIZE = 8 * MiB;

/** Removes every AWS_* variable and points the SDK's config files into the scratch directory. */
export function isolateSdkEnvironment(workDir: string): void {
  for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
  process.env.AWS_CONFIG_FILE = path.join(workDir, '.aws', 'config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(workDir, '.aws', 'credentials');
}

/** `bucket/key` for x-amz-copy-source, the key percent-encoded segment by segment. */
export function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

export interface AwsSdkJsDriver extends S3ClientDriver {
  client(connection: Connection): S3Client;
  readonly virtualHostResolver: LoopbackResolver;
}

async function refusals<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof S3ServiceException) {
      throw new ClientRefusal(
        error.name,
        error.message,
        error.$metadata.httpStatusCode ?? null,
        String(error),
      );
    }
    throw error;
  }
}

export function awsSdkJsDriver({ world, workDir }: ClientEnvironment): AwsSdkJsDriver {
  isolateSdkEnvironment(workDir);
  const resolver = loopbackResolver(world.domain);
  const clients = new Map<string, S3Client>();

  function client(connection: Connection): S3Client {
    const id = `${connection.key.accessKeyId}/${connection.addressing}`;
    let existing = clients.get(id);
    if (existing === undefined) {
      const virtual = connection.addressing === 'virtual';
      existing = new S3Client({
        region: REGION,
        endpoint: virtual ? world.virtualEndpoint : world.s3Url,
        forcePathStyle: !virtual,
        credentials: { accessKeyId: connection.key.accessKeyId, secretAccessKey: connection.key.secret },
        requestHandler: { ...SDK_TIMEOUTS, ...(virtual ? { httpAgent: resolver.agent } : {}) },
      });
      clients.set(id, existing);
    }
    return existing;
  }

  async function multipartUpload(s3: S3Client, bucket: string, key: string, file: string): Promise<void> {
    const data = readFileSync(file);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    try {
      const parts = [];
      for (let offset = 0, PartNumber = 1; offset < data.length; offset += PART_SIZE, PartNumber += 1) {
        const part = await s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId,
            PartNumber,
            Body: data.subarray(offset, offset + PART_SIZE),
          }),
        );
        parts.push({ PartNumber, ETag: part.ETag });
      }
      await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw error;
    }
  }

  return {
    name: 'aws-sdk-js',
    partSize: PART_SIZE,
    showsStatus: true,
    virtualHostResolver: resolver,
    client,
    async version() {
      const manifest = new URL('../../../../node_modules/@aws-sdk/client-s3/package.json', import.meta.url);
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    },
    async put(connection, bucket, key, file) {
      const size = statSync(file).size;
      const s3 = client(connection);
      if (size > PART_SIZE) return refusals(multipartUpload(s3, bucket, key, file));
      // a stream of known length: the SDK sends it aws-chunked with a trailing CRC32 by default
      await refusals(
        s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: createReadStream(file),
            ContentLength: size,
          }),
        ),
      );
    },
    async get(connection, bucket, key, file) {
      const object = await refusals(
        client(connection).send(new GetObjectCommand({ Bucket: bucket, Key: key })),
      );
      await pipeline(object.Body as Readable, createWriteStream(file));
    },
    async list(connection, bucket, prefix) {
      const listed = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await refusals(
          client(connection).send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }),
          ),
        );
        listed.push(...(page.Contents ?? []).map((object) => ({ key: object.Key!, size: object.Size! })));
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken !== undefined);
      return listed;
    },
    async copy(connection, bucket, sourceKey, key) {
      await refusals(
        client(connection).send(
          new CopyObjectCommand({ Bucket: bucket, Key: key, CopySource: copySource(bucket, sourceKey) }),
        ),
      );
    },
    async remove(connection, bucket, key) {
      await refusals(client(connection).send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
    },
    async createBucket(connection, bucket) {
      await refusals(client(connection).send(new CreateBucketCommand({ Bucket: bucket })));
    },
    async deleteBucket(connection, bucket) {
      await refusals(client(connection).send(new DeleteBucketCommand({ Bucket: bucket })));
    },
    async presignGet(connection, bucket, key, expiresSeconds) {
      return getSignedUrl(client(connection), new GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: expiresSeconds,
      });
    },
    async close() {
      for (const s3 of clients.values()) s3.destroy();
      resolver.agent.destroy();
    },
  };
}
