export interface CorsSummary {
  ruleCount: number;
  allowedOrigins: string[];
}

/** The bucket's own storage quota, within its organisation's; null: no limit of its own. */
export interface BucketQuota {
  maxBytes: number | null;
  maxObjects: number | null;
}

export interface BucketView {
  name: string;
  public: boolean;
  createdAt: Date;
  updatedAt: Date;
  cors: CorsSummary;
  quota: BucketQuota;
}

export interface BucketListItem {
  name: string;
  public: boolean;
  createdAt: Date;
}

export interface BucketPage {
  items: BucketListItem[];
  nextCursor: string | null;
}

export interface CreateBucketRequest {
  /**
   * A DNS-compatible S3 bucket name: 3-63 lower-case letters, digits, dots and hyphens; global.
   * @example "team-photos"
   */
  name: string;
  /**
   * Public buckets allow unsigned reads. Default false.
   * @example false
   */
  public?: boolean;
}

/**
 * Changes to the bucket's quota (owners and admins): a field left out stays, null removes it. A
 * limit may not exceed the organisation's. Uploads over it are refused with QuotaExceeded (403).
 */
export interface BucketQuotaUpdate {
  /**
   * @isLong
   * @minimum 0
   * @maximum 9007199254740991
   * @example 10737418240
   */
  maxBytes?: number | null;
  /**
   * @isLong
   * @minimum 0
   * @maximum 9007199254740991
   * @example 100000
   */
  maxObjects?: number | null;
}

/** Give `public`, `quota` or both. */
export interface UpdateBucketRequest {
  /** @example false */
  public?: boolean;
  /** @example {"maxBytes": 10737418240, "maxObjects": 100000} */
  quota?: BucketQuotaUpdate;
}

export interface CorsRuleBody {
  /**
   * Origins such as "https://app.example.com"; one "*" wildcard allowed per origin.
   * @example ["https://app.example.com"]
   * @minItems 1
   * @maxItems 100
   */
  allowedOrigins: string[];
  /**
   * Of GET, PUT, POST, DELETE, HEAD.
   * @example ["GET", "PUT"]
   * @minItems 1
   * @maxItems 5
   */
  allowedMethods: string[];
  /**
   * Request headers the browser may send ("*" for any).
   * @example ["*"]
   * @maxItems 100
   */
  allowedHeaders?: string[];
  /**
   * Response headers scripts may read.
   * @example ["ETag"]
   * @maxItems 100
   */
  exposeHeaders?: string[];
  /**
   * How long browsers may cache the preflight answer.
   * @example 3600
   * @isInt
   * @minimum 0
   * @maximum 86400
   */
  maxAgeSeconds?: number;
}

export interface CorsRules {
  /** @maxItems 100 */
  rules: CorsRuleBody[];
}

export interface CorsRulesUpdate {
  /**
   * Replaces every rule; DELETE removes them all.
   * @minItems 1
   * @maxItems 100
   */
  rules: CorsRuleBody[];
}

export interface ObjectView {
  key: string;
  size: number;
  etag: string;
  lastModified: Date | null;
}

export interface ObjectListingView {
  objects: ObjectView[];
  /** With a delimiter: the "folders" at this level. */
  commonPrefixes: string[];
  nextCursor: string | null;
}

export interface DeleteObjectsRequest {
  /**
   * @example ["photos/old.jpg"]
   * @minItems 1
   * @maxItems 1000
   */
  keys: string[];
}

export interface DeleteObjectResult {
  key: string;
  deleted: boolean;
  errorCode?: string;
  errorMessage?: string;
}

export interface DeleteObjectsResponse {
  results: DeleteObjectResult[];
}

export interface PresignRequest {
  /**
   * @example "photos/cat.jpg"
   * @minLength 1
   * @maxLength 1024
   */
  key: string;
  /**
   * POST presigns a browser form upload: the answer's `url` and `fields` go into an HTML form (or a
   * FormData), the file last. Its key may end with `${filename}`, replaced by the uploaded file's
   * name. The credential must allow PUT.
   */
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE' | 'POST';
  /**
   * Lifetime in seconds; default 3600, at most 604800 (7 days).
   * @example 3600
   * @isInt
   * @minimum 1
   * @maximum 604800
   */
  expiresIn?: number;
  /**
   * The credential to sign with: it must be of your organisation and cover the bucket and method.
   * @example "GWK1EXAMPLEEXAMPLE23"
   */
  accessKeyId: string;
  /**
   * Signed as the Content-Type header the request must carry (useful for PUT); for POST, the
   * Content-Type field the form must send.
   * @maxLength 256
   */
  contentType?: string;
  /**
   * POST only: the largest file the form may upload, in bytes (its policy's content-length-range).
   * @isInt
   * @minimum 0
   * @maximum 5368709120
   */
  maxSizeBytes?: number;
  /**
   * POST only: where the browser goes once the form's upload is stored (S3's
   * success_action_redirect), with bucket, key and etag added to the query.
   * @example "https://app.example/uploaded"
   * @maxLength 2048
   */
  successActionRedirect?: string;
}

export interface PresignResponse {
  url: string;
  method: string;
  /** Headers the request must send exactly as given (they are signed). */
  headers: { [name: string]: string };
  /** POST only: the form fields to send before the file, exactly as given (the policy signs them). */
  fields?: { [name: string]: string };
  expiresAt: Date;
}
