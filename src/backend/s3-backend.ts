import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  BackendError,
  type DeleteResult,
  type ObjectListing,
  type ObjectStoreBackend,
  type UploadSummary,
} from './object-store.js';

export interface S3BackendOptions {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Upper bound for each call, retries included. */
  timeoutMs: number;
  /** For the start-up log. */
  label: string;
}

/** S3 (and RGW's `rgw_delete_multi_obj_max_num`) caps a DeleteObjects request at 1000 keys. */
const DELETE_BATCH = 1000;

/**
 * Whether XML 1.0 can carry the key: not C0 controls other than tab, LF and CR, not U+FFFE/U+FFFF,
 * no lone surrogates; not even as character references. RGW answers a DeleteObjects body holding
 * such a key with 400 and an empty body, failing every key of the batch.
 */
function xmlSafe(key: string): boolean {
  for (let i = 0; i < key.length; i += 1) {
    const unit = key.charCodeAt(i);
    if (unit < 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) return false;
    if (unit === 0xfffe || unit === 0xffff) return false;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = key.charCodeAt(i + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
      i += 1;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function classify(error: unknown, timeoutMs: number): BackendError {
  if (error instanceof BackendError) return error;
  if (error instanceof S3ServiceException) {
    const code = error.name;
    const status = error.$metadata.httpStatusCode ?? 0;
    // Ceph RGW 16 sends an empty <Message> for most errors, and some errors with no body at all.
    const message =
      error.message && error.message !== code && error.message !== 'UnknownError'
        ? `${code}: ${error.message}`
        : `${code} (HTTP ${status})`;
    if (code === 'BucketAlreadyExists' || code === 'BucketAlreadyOwnedByYou') {
      return new BackendError('bucket-exists', message, code);
    }
    if (code === 'BucketNotEmpty') return new BackendError('bucket-not-empty', message, code);
    if (code === 'NoSuchBucket') return new BackendError('no-such-bucket', message, code);
    if (status >= 500) return new BackendError('unavailable', message, code);
    return new BackendError('other', message, code);
  }
  if (isAbort(error)) {
    return new BackendError('unavailable', `the object store did not answer within ${timeoutMs} ms`);
  }
  const message = error instanceof Error ? error.message || error.name : String(error);
  return new BackendError('unavailable', message);
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

/** Any S3-compatible store (Ceph RGW, MinIO-compatible, the embedded s3rver), path-style. */
export class S3Backend implements ObjectStoreBackend {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly description: string;
  readonly #client: S3Client;
  readonly #timeoutMs: number;

  constructor(options: S3BackendOptions) {
    this.endpoint = new URL(options.endpoint);
    this.region = options.region;
    this.credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
    this.description = `${options.label} at ${this.endpoint.origin}`;
    this.#timeoutMs = options.timeoutMs;
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

  /** Per-call options: the timeout bounds the whole call, both attempts and the back-off between. */
  #call(): { abortSignal: AbortSignal } {
    return { abortSignal: AbortSignal.timeout(this.#timeoutMs) };
  }

  async createBucket(name: string): Promise<void> {
    // Ceph RGW 16 answers 200 when the owner creates a bucket it already owns (the legacy us-east-1
    // behaviour; only a different canned ACL or another owner gets 409 BucketAlreadyExists), so the
    // bucket is looked up first. Two concurrent creations of one new name can both succeed: callers
    // must serialise names themselves (the control plane's database does).
    let status: number | undefined;
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: name }), this.#call());
      status = 200;
    } catch (error) {
      status = statusOf(error);
      if (status === undefined || status >= 500) throw classify(error, this.#timeoutMs);
    }
    if (status === 200) {
      throw new BackendError('bucket-exists', `bucket ${name} already exists`, 'BucketAlreadyOwnedByYou');
    }
    if (status === 403 || status === 301) {
      throw new BackendError(
        'bucket-exists',
        `bucket ${name} belongs to someone else`,
        'BucketAlreadyExists',
      );
    }
    try {
      await this.#client.send(new CreateBucketCommand({ Bucket: name }), this.#call());
    } catch (error) {
      throw classify(error, this.#timeoutMs);
    }
  }

  async deleteBucket(name: string): Promise<void> {
    try {
      await this.#client.send(new DeleteBucketCommand({ Bucket: name }), this.#call());
    } catch (error) {
      throw classify(error, this.#timeoutMs);
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
        this.#call(),
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
      throw classify(error, this.#timeoutMs);
    }
  }

  async deleteObjects(bucket: string, keys: string[]): Promise<DeleteResult[]> {
    const results = new Map<string, DeleteResult>();
    const batchable = keys.filter(xmlSafe);
    for (let start = 0; start < batchable.length; start += DELETE_BATCH) {
      for (const result of await this.#deleteBatch(bucket, batchable.slice(start, start + DELETE_BATCH))) {
        results.set(result.key, result);
      }
    }
    for (const key of keys) {
      if (!xmlSafe(key) && !results.has(key)) results.set(key, await this.#deleteOne(bucket, key));
    }
    return keys.map((key) => results.get(key)!);
  }

  async objectSize(bucket: string, key: string): Promise<number | null> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), this.#call());
      return head.ContentLength ?? null;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw classify(error, this.#timeoutMs);
    }
  }

  async listUploads(bucket: string): Promise<UploadSummary[] | null> {
    const uploads: UploadSummary[] = [];
    try {
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      do {
        const page = await this.#client.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
          this.#call(),
        );
        for (const upload of page.Uploads ?? []) {
          if (upload.UploadId === undefined || upload.Key === undefined) continue;
          uploads.push({ uploadId: upload.UploadId, key: upload.Key, parts: [] });
        }
        keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
        uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
      } while (keyMarker !== undefined);
    } catch (error) {
      // A store without ListMultipartUploads cannot say.
      if (statusOf(error) === 501) return null;
      throw classify(error, this.#timeoutMs);
    }
    const listed: UploadSummary[] = [];
    for (const upload of uploads) {
      const parts = await this.#parts(bucket, upload.key, upload.uploadId);
      // An upload completed or aborted since it was listed holds no parts any more.
      if (parts !== null) listed.push({ ...upload, parts });
    }
    return listed;
  }

  /** The parts of an upload under way; null when the store no longer knows it. */
  async #parts(bucket: string, key: string, uploadId: string): Promise<UploadSummary['parts'] | null> {
    const parts: UploadSummary['parts'] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.#client.send(
          new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
          this.#call(),
        );
        for (const part of page.Parts ?? []) {
          if (part.PartNumber !== undefined)
            parts.push({ partNumber: part.PartNumber, bytes: part.Size ?? 0 });
        }
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker !== undefined);
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw classify(error, this.#timeoutMs);
    }
    return parts;
  }

  /** One key that a DeleteObjects XML body cannot carry: a plain DELETE, whose key is in the URL. */
  async #deleteOne(bucket: string, key: string): Promise<DeleteResult> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), this.#call());
      return { key, deleted: true };
    } catch (error) {
      const failure = classify(error, this.#timeoutMs);
      if (failure.kind !== 'other') throw failure;
      return { key, deleted: false, errorCode: failure.s3Code, errorMessage: failure.message };
    }
  }

  async #deleteBatch(bucket: string, keys: string[]): Promise<DeleteResult[]> {
    try {
      const result = await this.#client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: false },
        }),
        this.#call(),
      );
      const failed = new Map((result.Errors ?? []).map((error) => [error.Key ?? '', error]));
      return keys.map((key) => {
        const error = failed.get(key);
        return error === undefined
          ? { key, deleted: true }
          : { key, deleted: false, errorCode: error.Code, errorMessage: error.Message };
      });
    } catch (error) {
      throw classify(error, this.#timeoutMs);
    }
  }

  async checkHealth(): Promise<void> {
    try {
      await this.#client.send(new ListBucketsCommand({}), this.#call());
    } catch (error) {
      throw classify(error, this.#timeoutMs);
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
