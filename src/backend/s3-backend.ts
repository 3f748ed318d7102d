import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  BackendError,
  type DeleteResult,
  type ObjectListing,
  type ObjectStoreBackend,
} from './object-store.js';

export interface S3BackendOptions {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  timeoutMs: number;
  /** For the start-up log. */
  label: string;
}

function classify(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (error instanceof S3ServiceException) {
    const code = error.name;
    const status = error.$metadata.httpStatusCode ?? 0;
    if (code === 'BucketAlreadyExists' || code === 'BucketAlreadyOwnedByYou') {
      return new BackendError('bucket-exists', error.message, code);
    }
    if (code === 'BucketNotEmpty') return new BackendError('bucket-not-empty', error.message, code);
    if (code === 'NoSuchBucket') return new BackendError('no-such-bucket', error.message, code);
    if (status >= 500) return new BackendError('unavailable', `${code}: ${error.message}`, code);
    return new BackendError('other', `${code}: ${error.message}`, code);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError('unavailable', message);
}

/** Any S3-compatible store (Ceph RGW, MinIO-compatible, the embedded s3rver), path-style. */
export class S3Backend implements ObjectStoreBackend {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly description: string;
  readonly #client: S3Client;

  constructor(options: S3BackendOptions) {
    this.endpoint = new URL(options.endpoint);
    this.region = options.region;
    this.credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
    this.description = `${options.label} at ${this.endpoint.origin}`;
    this.#client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: true,
      credentials: this.credentials,
      // RGW 16 and s3rver reject the SDK's default trailing checksums on these small admin calls.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      requestHandler: {
        requestTimeout: options.timeoutMs,
        connectionTimeout: Math.min(options.timeoutMs, 5000),
      },
    });
  }

  async createBucket(name: string): Promise<void> {
    try {
      await this.#client.send(new CreateBucketCommand({ Bucket: name }));
    } catch (error) {
      throw classify(error);
    }
  }

  async deleteBucket(name: string): Promise<void> {
    try {
      await this.#client.send(new DeleteBucketCommand({ Bucket: name }));
    } catch (error) {
      throw classify(error);
    }
  }

  async listObjects(
    bucket: string,
    options: { prefix?: string; delimiter?: string; cursor?: string; limit: number },
  ): Promise<ObjectListing> {
    try {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: options.prefix,
          Delimiter: options.delimiter,
          ContinuationToken: options.cursor,
          MaxKeys: options.limit,
        }),
      );
      return {
        objects: (page.Contents ?? []).map((object) => ({
          key: object.Key ?? '',
          size: object.Size ?? 0,
          etag: object.ETag ?? '',
          lastModified: object.LastModified ?? null,
        })),
        commonPrefixes: (page.CommonPrefixes ?? []).map((prefix) => prefix.Prefix ?? ''),
        nextCursor: page.IsTruncated ? (page.NextContinuationToken ?? null) : null,
      };
    } catch (error) {
      throw classify(error);
    }
  }

  async deleteObjects(bucket: string, keys: string[]): Promise<DeleteResult[]> {
    if (keys.length === 0) return [];
    try {
      const result = await this.#client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: false },
        }),
      );
      const failed = new Map((result.Errors ?? []).map((error) => [error.Key ?? '', error]));
      return keys.map((key) => {
        const error = failed.get(key);
        return error === undefined
          ? { key, deleted: true }
          : { key, deleted: false, errorCode: error.Code, errorMessage: error.Message };
      });
    } catch (error) {
      throw classify(error);
    }
  }

  async objectExists(bucket: string, key: string): Promise<boolean> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch (error) {
      const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
      if (status === 404) return false;
      throw classify(error);
    }
  }

  async checkHealth(): Promise<void> {
    try {
      await this.#client.send(new ListBucketsCommand({}));
    } catch (error) {
      throw classify(error);
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
