/** Names and literal values SigV4 and S3 define; kept in one place so spelling never drifts. */

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
export const SCOPE_TERMINATOR = 'aws4_request';
export const S3_SERVICE = 's3';

/** x-amz-content-sha256 values that are not a hex digest. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_UNSIGNED_PAYLOAD_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const STREAMING_SIGNED_PAYLOAD = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_PAYLOAD_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';

/** A hex SHA-256 digest or SigV4 signature, either case (normalise to lower case before comparing). */
export const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** SHA-256 of zero bytes, the payload hash of every bodiless request. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Presigned-URL query parameters (names are case-sensitive, as clients send them). */
export const PRESIGN_PARAMS = {
  algorithm: 'X-Amz-Algorithm',
  credential: 'X-Amz-Credential',
  date: 'X-Amz-Date',
  expires: 'X-Amz-Expires',
  signedHeaders: 'X-Amz-SignedHeaders',
  signature: 'X-Amz-Signature',
  securityToken: 'X-Amz-Security-Token',
  /** Optional; the AWS SDK presigner adds it with UNSIGNED-PAYLOAD. */
  contentSha256: 'X-Amz-Content-Sha256',
} as const;

/** S3's limit on X-Amz-Expires: seven days. */
export const MAX_PRESIGN_SECONDS = 604_800;
/** S3's allowed clock difference between signer and server. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
