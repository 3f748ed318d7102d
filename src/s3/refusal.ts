import type { RefusalReason } from '../observability/metrics.js';
import { S3Error, type S3ErrorKey } from './errors.js';

/**
 * A request refused at the edge for a reason its S3 code does not tell: SignatureDoesNotMatch is
 * both a wrong secret and a dot-segment key. It renders like any other {@link S3Error}.
 */
export class Refusal extends S3Error {
  readonly reason: RefusalReason;

  constructor(key: S3ErrorKey, reason: RefusalReason, details: Record<string, string> = {}) {
    super(key, details);
    this.name = 'Refusal';
    this.reason = reason;
  }
}

const REASONS: Partial<Record<S3ErrorKey, RefusalReason>> = {
  SignatureDoesNotMatch: 'signature',
  InvalidAccessKeyId: 'unknown_key',
  ExpiredAccessKey: 'expired',
  BucketAccessDenied: 'scope',
  AccountProblem: 'suspended',
  RequestTimeTooSkewed: 'skew',
  PresignedUrlExpired: 'presign_expired',
  PresignedLifetimeTooLong: 'presign_expired',
  IncompleteSignature: 'malformed',
  AuthorizationHeaderMalformedRegion: 'malformed',
  AuthorizationHeaderMalformedService: 'malformed',
  AuthorizationQueryParametersRegion: 'malformed',
  AuthorizationQueryParametersService: 'malformed',
  AuthorizationQueryParametersMalformed: 'malformed',
  MissingDateHeader: 'malformed',
  MissingContentSha256: 'malformed',
  InvalidContentSha256: 'malformed',
  AnonymousAccessDenied: 'anonymous',
  BadDigest: 'checksum',
  XAmzContentSHA256Mismatch: 'checksum',
  InvalidDigest: 'checksum',
  IncompleteBody: 'checksum',
  InvalidChunkedEncoding: 'checksum',
  MultipleChecksums: 'checksum',
  MissingTrailer: 'checksum',
  UnsupportedChecksumAlgorithm: 'checksum',
  ConditionalReadRefused: 'ban',
  StorageClassNotImplemented: 'ban',
  SignedStreamingNotImplemented: 'ban',
  AclNotImplemented: 'ban',
  InvalidCopySource: 'ban',
  UploadPartCopyPercentKey: 'ban',
};

/** The refusals-metric reason of an error, or null when the error is not an edge refusal. */
export function refusalReasonOf(error: S3Error): RefusalReason | null {
  if (error instanceof Refusal) return error.reason;
  return REASONS[error.key] ?? null;
}
