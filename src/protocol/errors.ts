/**
 * The S3 error catalogue: every error the storage endpoint can produce, as data. Each entry names
 * the S3 code clients switch on, the HTTP status, the message, and, for a refusal at the edge, the
 * reason it is counted under (`gateway_s3_refusals_total{reason}`). Nothing else writes error
 * XML: code throws an {@link S3Error} naming an entry and the pipeline renders it.
 */
import { escapeXml } from './xml.js';

/** Why the storage endpoint refused a request at the edge; a closed set, so the metric label stays bounded. */
export const REFUSAL_REASONS = [
  'signature',
  'unknown_key',
  'expired',
  'scope',
  'suspended',
  'skew',
  'presign_expired',
  'malformed',
  'ban',
  'bot_protection',
  'anonymous',
  'checksum',
  'quota',
  'rate_limit',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface S3ErrorDefinition {
  /** The S3 error code clients switch on. */
  readonly code: string;
  readonly status: number;
  readonly message: string;
  /** Set for refusals at the edge: what the refusal metric counts it as. */
  readonly reason: RefusalReason | null;
}

function entry(
  code: string,
  status: number,
  message: string,
  reason: RefusalReason | null = null,
): S3ErrorDefinition {
  return { code, status, message, reason };
}

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.';

export const S3_ERRORS = {
  // Refused at the edge: authentication (service-spec §7).
  SignatureDoesNotMatch: entry('SignatureDoesNotMatch', 403, SIGNATURE_MISMATCH, 'signature'),
  /** Keys with `.` or `..` segments: the spec's answer, counted as the ban it is. */
  DotSegmentKey: entry('SignatureDoesNotMatch', 403, SIGNATURE_MISMATCH, 'ban'),
  InvalidAccessKeyId: entry(
    'InvalidAccessKeyId',
    403,
    'The AWS Access Key Id you provided does not exist in our records.',
    'unknown_key',
  ),
  ExpiredAccessKey: entry('AccessDenied', 403, 'This access key has expired.', 'expired'),
  BucketAccessDenied: entry('AccessDenied', 403, 'Access to this bucket is denied.', 'scope'),
  PresignedUrlExpired: entry('AccessDenied', 403, 'The presigned URL has expired.', 'presign_expired'),
  PresignedLifetimeTooLong: entry(
    'AccessDenied',
    403,
    'X-Amz-Expires must be at most 604800 seconds (7 days).',
    'presign_expired',
  ),
  IncompleteSignature: entry('AccessDenied', 403, 'The request signature is incomplete.', 'malformed'),
  AnonymousAccessDenied: entry('AccessDenied', 403, 'Access Denied', 'anonymous'),
  AccountProblem: entry(
    'AccountProblem',
    403,
    'There is a problem with your account that prevents the operation from completing successfully.',
    'suspended',
  ),
  RequestTimeTooSkewed: entry(
    'RequestTimeTooSkewed',
    403,
    "The difference between the request time and the server's time is too large.",
    'skew',
  ),
  AuthorizationHeaderMalformedRegion: entry(
    'AuthorizationHeaderMalformed',
    400,
    'The authorization header is malformed; the region in the credential scope is not accepted by this endpoint.',
    'malformed',
  ),
  AuthorizationHeaderMalformedService: entry(
    'AuthorizationHeaderMalformed',
    400,
    "The authorization header is malformed; incorrect service in the credential scope. This endpoint belongs to 's3'.",
    'malformed',
  ),
  AuthorizationQueryParametersRegion: entry(
    'AuthorizationQueryParametersError',
    400,
    'Error parsing the X-Amz-Credential parameter; the region in the credential scope is not accepted by this endpoint.',
    'malformed',
  ),
  AuthorizationQueryParametersService: entry(
    'AuthorizationQueryParametersError',
    400,
    "Error parsing the X-Amz-Credential parameter; incorrect service. This endpoint belongs to 's3'.",
    'malformed',
  ),
  AuthorizationQueryParametersMalformed: entry(
    'AuthorizationQueryParametersError',
    400,
    'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    'malformed',
  ),
  UnsupportedSignatureVersion: entry(
    'InvalidRequest',
    400,
    "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256: this endpoint accepts only Signature Version 4 (boto3: Config(signature_version='s3v4'); aws-cli: s3.signature_version = s3v4).",
    'malformed',
  ),
  MissingDateHeader: entry(
    'AccessDenied',
    403,
    'AWS authentication requires a valid Date or x-amz-date header',
    'malformed',
  ),
  MissingContentSha256: entry(
    'InvalidRequest',
    400,
    'Missing required header for this request: x-amz-content-sha256',
    'malformed',
  ),
  InvalidContentSha256: entry(
    'InvalidArgument',
    400,
    'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a hex SHA-256 digest',
    'malformed',
  ),

  // Browser form uploads (POST Object): the form's own signature and policy.
  FormAuthenticationMalformed: entry(
    'InvalidArgument',
    400,
    'A form upload must carry x-amz-algorithm (AWS4-HMAC-SHA256), x-amz-credential, x-amz-date, policy and x-amz-signature.',
    'malformed',
  ),
  InvalidPolicyDocument: entry(
    'InvalidPolicyDocument',
    400,
    'The policy is not base64-encoded JSON with an expiration and a list of conditions.',
    'malformed',
  ),
  PostPolicyExpired: entry(
    'AccessDenied',
    403,
    'Invalid according to Policy: Policy expired.',
    'presign_expired',
  ),
  PostPolicyLifetimeTooLong: entry(
    'AccessDenied',
    403,
    'Invalid according to Policy: the policy expiration must be at most 604800 seconds (7 days) after its x-amz-date.',
    'presign_expired',
  ),
  PostPolicyConditionFailed: entry(
    'AccessDenied',
    403,
    'Invalid according to Policy: Policy Condition failed.',
    'scope',
  ),
  PostPolicyExtraFields: entry(
    'AccessDenied',
    403,
    'Invalid according to Policy: Extra input fields.',
    'scope',
  ),

  // Wrong shape of request.
  NoSuchBucket: entry('NoSuchBucket', 404, 'The specified bucket does not exist.'),
  ControlCharacterInValue: entry(
    'InvalidArgument',
    400,
    'Header values and response-* parameters must not contain control characters (CR, LF, NUL and the like).',
  ),
  MalformedPOSTRequest: entry(
    'MalformedPOSTRequest',
    400,
    'The body of the POST request is not well-formed multipart/form-data ending with its file field.',
  ),
  PostFieldsTooLarge: entry(
    'MaxPostPreDataLengthExceeded',
    400,
    'The form fields before the file are larger than 64 KiB.',
  ),
  PostMissingKey: entry(
    'InvalidArgument',
    400,
    'A form upload must carry a field named key before its file.',
  ),
  PostMissingFile: entry(
    'InvalidArgument',
    400,
    'A form upload must carry exactly one file, as its last field.',
  ),
  PostEntityTooLarge: entry(
    'EntityTooLarge',
    400,
    "The file is larger than the policy's content-length-range allows.",
  ),
  PostEntityTooSmall: entry(
    'EntityTooSmall',
    400,
    "The file is smaller than the policy's content-length-range allows.",
  ),
  NoSuchKey: entry('NoSuchKey', 404, 'The specified key does not exist.'),
  NoSuchCORSConfiguration: entry('NoSuchCORSConfiguration', 404, 'The CORS configuration does not exist.'),
  NoBucketEncryptionConfiguration: entry(
    'ServerSideEncryptionConfigurationNotFoundError',
    404,
    'The server side encryption configuration was not found.',
  ),
  NoBucketOwnershipControls: entry(
    'OwnershipControlsNotFoundError',
    404,
    'The bucket ownership controls were not found.',
  ),
  NoSuchVersion: entry('NoSuchVersion', 404, 'The specified version does not exist.'),
  NoSuchUpload: entry(
    'NoSuchUpload',
    404,
    'The specified multipart upload does not exist: the upload id is wrong, or the upload was aborted or completed.',
  ),
  InvalidObjectAttributes: entry(
    'InvalidArgument',
    400,
    'x-amz-object-attributes must name one or more of ETag, Checksum, ObjectParts, StorageClass and ObjectSize.',
  ),
  MethodNotAllowed: entry(
    'MethodNotAllowed',
    405,
    'The specified method is not allowed against this resource. Buckets and their configuration are managed through the control plane: POST /v1/buckets creates a bucket, PUT /v1/buckets/{bucket}/cors sets its CORS rules.',
  ),
  SignedStreamingNotImplemented: entry(
    'NotImplemented',
    501,
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD is not implemented; use UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a signed payload hash.',
    'ban',
  ),
  StorageClassNotImplemented: entry(
    'NotImplemented',
    501,
    'Only the STANDARD storage class is implemented.',
    'ban',
  ),
  OperationNotImplemented: entry(
    'NotImplemented',
    501,
    'A header or query you provided implies functionality that is not implemented.',
  ),
  AclNotImplemented: entry(
    'NotImplemented',
    501,
    'Only a private (owner full control) ACL is implemented.',
    'ban',
  ),
  AnonymousResponseOverride: entry(
    'InvalidRequest',
    400,
    'Request specific response headers cannot be used for anonymous GET requests.',
    'anonymous',
  ),
  ConditionalReadRefused: entry(
    'InvalidRequest',
    400,
    'Conditional GET requests (If-Match, If-None-Match, If-Modified-Since) are not supported.',
    'ban',
  ),
  EntityTooSmall: entry(
    'EntityTooSmall',
    400,
    'Your proposed upload is smaller than the minimum allowed object size.',
  ),
  BadDigest: entry(
    'BadDigest',
    400,
    'The Content-MD5 or checksum value that you specified did not match what the server received.',
    'checksum',
  ),
  XAmzContentSHA256Mismatch: entry(
    'XAmzContentSHA256Mismatch',
    400,
    "The provided 'x-amz-content-sha256' header does not match what was computed.",
    'checksum',
  ),
  InvalidDigest: entry(
    'InvalidDigest',
    400,
    'The Content-MD5 or checksum value that you specified is not valid.',
    'checksum',
  ),
  InvalidChunkedEncoding: entry('InvalidRequest', 400, 'The aws-chunked body is malformed.', 'checksum'),
  MultipleChecksums: entry(
    'InvalidRequest',
    400,
    'Expecting a single x-amz-checksum- header or trailer; more than one checksum was sent.',
    'checksum',
  ),
  MissingTrailer: entry(
    'InvalidRequest',
    400,
    'The x-amz-trailer checksum declared by the request was not sent.',
    'checksum',
  ),
  UnsupportedChecksumAlgorithm: entry(
    'InvalidRequest',
    400,
    'Value for x-amz-checksum-algorithm or x-amz-trailer is not supported.',
    'checksum',
  ),
  IncompleteBody: entry(
    'IncompleteBody',
    400,
    'You did not provide the number of bytes specified by the Content-Length HTTP header.',
    'checksum',
  ),
  MissingContentLength: entry(
    'MissingContentLength',
    411,
    'You must provide the Content-Length HTTP header.',
  ),
  InvalidCopySource: entry(
    'InvalidArgument',
    400,
    'Copy Source must mention the source bucket and key: sourcebucket/sourcekey, URL-encoded, without dot segments.',
    'ban',
  ),
  UploadPartCopyPercentKey: entry(
    'NotImplemented',
    501,
    'UploadPartCopy from a source key containing "%" is not supported; copy the object with CopyObject or upload the part.',
    'ban',
  ),
  InvalidHeaderParameter: entry(
    'InvalidArgument',
    400,
    'A query parameter that stands for a header holds characters no header can carry.',
  ),
  /** The message names the parameter where it is thrown (s3/steps/address.ts). */
  RepeatedQueryParameter: entry(
    'InvalidArgument',
    400,
    'A query parameter is given more than once; give each query parameter once.',
    'malformed',
  ),
  /** S3's answer to a versionId on a write that makes a new object or part (s3/operations.ts). */
  VersionIdNotAccepted: entry('InvalidArgument', 400, 'This operation does not accept a version-id.'),
  InvalidPartNumber: entry(
    'InvalidArgument',
    400,
    'Part number must be an integer between 1 and 10000, inclusive',
  ),
  InvalidBucketName: entry('InvalidBucketName', 400, 'The specified bucket is not valid.'),
  InvalidURI: entry('InvalidURI', 400, "Couldn't parse the specified URI."),
  MissingHostHeader: entry('InvalidRequest', 400, 'Missing required header for this request: Host'),
  MalformedHttpRequest: entry('InvalidRequest', 400, 'The request is not valid HTTP/1.1.'),
  UnsupportedMethod: entry(
    'MethodNotAllowed',
    405,
    'The specified method is not allowed against this resource.',
  ),
  RequestHeaderSectionTooLarge: entry(
    'RequestHeaderSectionTooLarge',
    400,
    'Your request header section exceeds the maximum allowed size.',
  ),
  KeyTooLong: entry('KeyTooLongError', 400, 'Your key is too long.'),
  KeyWithNul: entry(
    'InvalidArgument',
    400,
    'Object keys cannot contain the NUL character (U+0000): no S3 XML document can carry it.',
  ),
  MalformedXML: entry(
    'MalformedXML',
    400,
    'The XML you provided was not well-formed or did not validate against our published schema.',
  ),
  RequestTimeout: entry(
    'RequestTimeout',
    400,
    'Your socket connection to the server was not read from or written to within the timeout period.',
  ),
  CorsPreflightRefused: entry('AccessForbidden', 403, 'CORSResponse: This CORS request is not allowed.'),
  MissingCorsHeaders: entry('BadRequest', 400, 'Insufficient information. Origin request header needed.'),
  InvalidCorsRequestMethod: entry('BadRequest', 400, 'Invalid Access-Control-Request-Method.'),
  MalformedACL: entry(
    'MalformedACLError',
    400,
    'The XML you provided was not well-formed or did not validate against our published schema.',
  ),
  MissingAcl: entry(
    'MissingSecurityHeader',
    400,
    'Your request was missing a required header: x-amz-acl, or an AccessControlPolicy body.',
  ),

  // The gateway or its backend. Backend error answers without an S3 error document of their own
  // are told by status with these (s3/upstream/outcome.ts).
  BackendAccessDenied: entry('AccessDenied', 403, 'Access Denied'),
  PreconditionFailed: entry(
    'PreconditionFailed',
    412,
    'At least one of the pre-conditions you specified did not hold.',
  ),
  InvalidRange: entry('InvalidRange', 416, 'The requested range is not satisfiable.'),
  InvalidCopySourceRange: entry(
    'InvalidArgument',
    400,
    'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy.',
  ),
  BackendRejectedRequest: entry('InvalidRequest', 400, 'The object store refused the request.'),
  ServiceUnavailable: entry(
    'ServiceUnavailable',
    503,
    'The object store behind this endpoint is unavailable. Please retry.',
  ),
  DatabaseUnavailable: entry(
    'ServiceUnavailable',
    503,
    'The gateway cannot reach its database to check this request. Please retry.',
  ),
  SlowDown: entry('SlowDown', 503, 'Please reduce your request rate.'),

  // Tenant limits (README, "Quotas and rate limits"). QuotaExceeded 403 is what Ceph RGW, the
  // reference backend, answers for its own user and bucket quotas, so clients meet one code for
  // either; MinIO's XMinioAdminBucketQuotaExceeded is specific to MinIO and no SDK knows it.
  BucketQuotaExceeded: entry(
    'QuotaExceeded',
    403,
    "The bucket's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask an owner of the organisation to raise the bucket's quota.",
    'quota',
  ),
  OrganisationQuotaExceeded: entry(
    'QuotaExceeded',
    403,
    "The organisation's storage quota does not leave room for this upload (maximum bytes or objects). Delete objects, or ask the platform's administrators to raise the quota.",
    'quota',
  ),
  /** S3's answer to a client over its request rate; Retry-After says when the next request fits. */
  CredentialRateLimited: entry(
    'SlowDown',
    503,
    'Please reduce your request rate: this access key is over its requests-per-second limit.',
    'rate_limit',
  ),
  OrganisationRateLimited: entry(
    'SlowDown',
    503,
    'Please reduce your request rate: the organisation is over its requests-per-second limit.',
    'rate_limit',
  ),
  /**
   * Two counted writes to one key take turns (s3/limits/storage-quotas.ts); one that waited too long for
   * its turn is told to retry, as S3 tells a client to slow down.
   */
  KeyWriteInProgress: entry(
    'SlowDown',
    503,
    'Another write to this key is under way; retry once it has finished.',
  ),
  /** A copy into a bucket under a storage quota whose source's size the store did not tell. */
  CopySourceSizeUnknown: entry(
    'InvalidRequest',
    400,
    "The object store did not tell the copy source's size, which the storage quota needs: check the copy source and its x-amz-copy-source-server-side-encryption-customer-* headers.",
  ),
  InternalError: entry('InternalError', 500, 'We encountered an internal error. Please try again.'),
} as const satisfies Record<string, S3ErrorDefinition>;

export type S3ErrorKey = keyof typeof S3_ERRORS;

/** Thrown by pipeline steps; the pipeline turns it into the XML response. */
/**
 * Messages for the codes the object store answers the forwarded reads with (docs/s3-compatibility.md)
 * that the gateway itself never produces: a relayed error document whose message the store left
 * empty gets these.
 */
export const STORE_ERROR_MESSAGES: Readonly<Record<string, string>> = {
  // Also the gateway's own 405 code, whose catalogue message speaks of the control plane.
  MethodNotAllowed: 'The specified method is not allowed against this resource.',
  NoSuchBucketPolicy: 'The bucket has no bucket policy.',
  NoSuchTagSet: 'The bucket has no tags.',
  NoSuchLifecycleConfiguration: 'The bucket has no lifecycle configuration.',
  NoSuchPublicAccessBlockConfiguration: 'The bucket has no public access block configuration.',
  ObjectLockConfigurationNotFoundError: 'The bucket has no object lock configuration.',
  NoSuchObjectLockConfiguration: 'The object has no retention or legal hold.',
  NoSuchWebsiteConfiguration: 'The bucket has no website configuration.',
  ReplicationConfigurationNotFoundError: 'The bucket has no replication configuration.',
};

/** MethodNotAllowed for a bucket-level write, naming where the control plane is when that is known. */
export function bucketWriteMessage(controlPlaneUrl: string | null): string {
  const message = S3_ERRORS.MethodNotAllowed.message;
  return controlPlaneUrl === null
    ? message
    : message.replace('control plane:', `control plane at ${controlPlaneUrl}:`);
}

export class S3Error extends Error {
  readonly key: S3ErrorKey;
  readonly definition: S3ErrorDefinition;
  /** Extra elements S3 puts in some error documents (e.g. RequestTime, ServerTime). */
  readonly details: Readonly<Record<string, string>>;
  /** The message the client reads: the entry's, or a more specific one said where it is thrown. */
  readonly text: string;
  /** For a 503: the seconds the client should wait before retrying (the Retry-After header). */
  retryAfterSeconds = 1;

  constructor(key: S3ErrorKey, details: Readonly<Record<string, string>> = NO_DETAILS, text?: string) {
    const definition = S3_ERRORS[key];
    super(`${definition.code}: ${text ?? definition.message}`);
    this.name = 'S3Error';
    this.key = key;
    this.definition = definition;
    this.details = details;
    this.text = text ?? definition.message;
  }

  get status(): number {
    return this.definition.status;
  }

  get code(): string {
    return this.definition.code;
  }
}

const NO_DETAILS: Readonly<Record<string, string>> = Object.freeze({});

export function isS3Error(value: unknown): value is S3Error {
  return value instanceof S3Error;
}

export interface RenderContext {
  readonly requestId: string;
  /** The bucket or object the request addressed, as S3 reports it in <Resource>. */
  readonly resource?: string | undefined;
}

/** The S3 error document for a catalogue entry. */
export function renderS3Error(
  definition: Pick<S3ErrorDefinition, 'code' | 'message'>,
  context: RenderContext,
  details: Readonly<Record<string, string>> = NO_DETAILS,
): string {
  let document = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${escapeXml(definition.code)}</Code><Message>${escapeXml(definition.message)}</Message>`;
  for (const [name, value] of Object.entries(details)) document += `<${name}>${escapeXml(value)}</${name}>`;
  if (context.resource !== undefined) document += `<Resource>${escapeXml(context.resource)}</Resource>`;
  return `${document}<RequestId>${escapeXml(context.requestId)}</RequestId></Error>`;
}
