/**
 * What the gateway needs from the object store beside proxying: bucket lifecycle for the control
 * plane, listing and batch deletes, object sizes (storage quotas), and health.
 */
export interface ObjectSummary {
  key: string;
  size: number;
  etag: string;
  lastModified: Date | null;
}

export interface ObjectListing {
  objects: ObjectSummary[];
  commonPrefixes: string[];
  nextCursor: string | null;
}

/** A multipart upload under way, as the store lists it, with the size of each of its parts. */
export interface UploadSummary {
  uploadId: string;
  key: string;
  parts: { partNumber: number; bytes: number }[];
}

export interface DeleteResult {
  key: string;
  deleted: boolean;
  errorCode?: string;
  errorMessage?: string;
}

export type BackendErrorKind =
  'bucket-exists' | 'bucket-not-empty' | 'no-such-bucket' | 'unavailable' | 'other';

export class BackendError extends Error {
  readonly kind: BackendErrorKind;
  readonly s3Code: string | undefined;
  constructor(kind: BackendErrorKind, message: string, s3Code?: string) {
    super(message);
    this.name = 'BackendError';
    this.kind = kind;
    this.s3Code = s3Code;
  }
}

export interface ObjectStoreBackend {
  /** Where requests are forwarded, e.g. http://127.0.0.1:7480 */
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** For the start-up log, without secrets. */
  readonly description: string;

  createBucket(name: string): Promise<void>;
  deleteBucket(name: string): Promise<void>;
  listObjects(
    bucket: string,
    options: { prefix?: string; delimiter?: string; cursor?: string; limit: number },
  ): Promise<ObjectListing>;
  deleteObjects(bucket: string, keys: string[]): Promise<DeleteResult[]>;
  /** The object's size, or null when the store does not hold it. */
  objectSize(bucket: string, key: string): Promise<number | null>;
  /** The multipart uploads under way in `bucket` and their parts; null when the store cannot list them. */
  listUploads(bucket: string): Promise<UploadSummary[] | null>;
  /** Resolves when the store answers; rejects with the reason otherwise. */
  checkHealth(): Promise<void>;
  close(): Promise<void>;
}
