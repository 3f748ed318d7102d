/**
 * The S3 error catalogue: every error the storage endpoint can produce, as data.
 * Nothing else in the data plane writes error XML; it throws or returns an {@link S3Error}
 * naming one of these entries and the pipeline renders it with {@link renderS3Error}.
 */
import { escapeXml } from './xml.js';

export interface S3ErrorDefinition {
  /** The S3 error code clients switch on. */
  readonly code: string;
  readonly status: number;
  readonly message: string;
}

function entry(code: string, status: number, message: string): S3ErrorDefinition {
  return { code, status, message };
}

export const S3_ERRORS = {
  // Refused at the edge: authentication.
  SignatureDoesNotMatch: entry(
    'SignatureDoesNotMatch',
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  ),
  InvalidAccessKeyId: entry(
    'InvalidAccessKeyId',
    403,
    'The AWS Access Key Id you provided does not exist in our records.',
  ),
  ExpiredAccessKey: entry('AccessDenied', 403, 'This access key has expired.'),
  BucketAccessDenied: entry('AccessDenied', 403, 'Access to this bucket is denied.'),
  PresignedUrlExpired: entry('AccessDenied', 403, 'The presigned URL has expired.'),
  PresignedLifetimeTooLong: entry(
    'AccessDenied',
    403,
    'X-Amz-Expires must be at most 604800 seconds (7 days).',
  ),
  IncompleteSignature: entry('AccessDenied', 403, 'The request signature is incomplete.'),
  AnonymousAccessDenied: entry('AccessDenied', 403, 'Access Denied'),
  AccountProblem: entry(
    'AccountProblem',
    403,
    'There is a problem with your account that prevents the operation from completing successfully.',
  ),
  RequestTimeTooSkewed: entry(
    'RequestTimeTooSkewed',
    403,
    "The difference between the request time and the server's time is too large.",
  ),
  AuthorizationHeaderMalformedRegion: entry(
    'AuthorizationHeaderMalformed',
    400,
    'The authorization header is malformed; the region in the credential scope is not accepted by this endpoint.',
  ),
  AuthorizationHeaderMalformedService: entry(
    'AuthorizationHeaderMalformed',
    400,
    "The authorization header is malformed; incorrect service in the credential scope. This endpoint belongs to 's3'.",
  ),
  AuthorizationQueryParametersRegion: entry(
    'AuthorizationQueryParametersError',
    400,
    'Error parsing the X-Amz-Credential parameter; the region in the credential scope is not accepted by this endpoint.',
  ),
  AuthorizationQueryParametersService: entry(
    'AuthorizationQueryParametersError',
    400,
    "Error parsing the X-Amz-Credential parameter; incorrect service. This endpoint belongs to 's3'.",
  ),
  AuthorizationQueryParametersMalformed: entry(
    'AuthorizationQueryParametersError',
    400,
    'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
  ),
  MissingDateHeader: entry(
    'AccessDenied',
    403,
    'AWS authentication requires a valid Date or x-amz-date header',
  ),
  MissingContentSha256: entry(
    'InvalidRequest',
    400,
    'Missing required header for this request: x-amz-content-sha256',
  ),
  InvalidContentSha256: entry(
    'InvalidArgument',
    400,
    'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a hex SHA-256 digest',
  ),

  // Wrong shape of request.
  NoSuchBucket: entry('NoSuchBucket', 404, 'The specified bucket does not exist.'),
  NoSuchKey: entry('NoSuchKey', 404, 'The specified key does not exist.'),
  MethodNotAllowed: entry(
    'MethodNotAllowed',
    405,
    'The specified method is not allowed against this resource. Bucket configuration is managed through the control plane.',
  ),
  SignedStreamingNotImplemented: entry(
    'NotImplemented',
    501,
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD is not implemented; use UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a signed payload hash.',
  ),
  StorageClassNotImplemented: entry('NotImplemented', 501, 'Only the STANDARD storage class is implemented.'),
  OperationNotImplemented: entry(
    'NotImplemented',
    501,
    'A header or query you provided implies functionality that is not implemented.',
  ),
  AclNotImplemented: entry('NotImplemented', 501, 'Only a private (owner full control) ACL is implemented.'),
  ConditionalReadRefused: entry(
    'InvalidRequest',
    400,
    'Conditional GET requests (If-Match, If-None-Match, If-Modified-Since) are not supported.',
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
  ),
  XAmzContentSHA256Mismatch: entry(
    'XAmzContentSHA256Mismatch',
    400,
    "The provided 'x-amz-content-sha256' header does not match what was computed.",
  ),
  InvalidDigest: entry(
    'InvalidDigest',
    400,
    'The Content-MD5 or checksum value that you specified is not valid.',
  ),
  InvalidChunkedEncoding: entry('InvalidRequest', 400, 'The aws-chunked body is malformed.'),
  MultipleChecksums: entry(
    'InvalidRequest',
    400,
    'Expecting a single x-amz-checksum- header or trailer; more than one checksum was sent.',
  ),
  MissingTrailer: entry(
    'InvalidRequest',
    400,
    'The x-amz-trailer checksum declared by the request was not sent.',
  ),
  UnsupportedChecksumAlgorithm: entry(
    'InvalidRequest',
    400,
    'Value for x-amz-checksum-algorithm or x-amz-trailer is not supported.',
  ),
  IncompleteBody: entry(
    'IncompleteBody',
    400,
    'You did not provide the number of bytes specified by the Content-Length HTTP header.',
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
  ),
  UploadPartCopyPercentKey: entry(
    'NotImplemented',
    501,
    'UploadPartCopy from a source key containing "%" is not supported; copy the object with CopyObject or upload the part.',
  ),
  InvalidHeaderParameter: entry(
    'InvalidArgument',
    400,
    'A query parameter that stands for a header holds characters no header can carry.',
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
  // are told by status with these (backend-answers.ts).
  BackendAccessDenied: entry('AccessDenied', 403, 'Access Denied'),
  PreconditionFailed: entry(
    'PreconditionFailed',
    412,
    'At least one of the pre-conditions you specified did not hold.',
  ),
  InvalidRange: entry('InvalidRange', 416, 'The requested range is not satisfiable.'),
  BackendRejectedRequest: entry('InvalidRequest', 400, 'The object store refused the request.'),
  ServiceUnavailable: entry(
    'ServiceUnavailable',
    503,
    'The object store behind this endpoint is unavailable. Please retry.',
  ),
  SlowDown: entry('SlowDown', 503, 'Please reduce your request rate.'),
  InternalError: entry('InternalError', 500, 'We encountered an internal error. Please try again.'),
} as const satisfies Record<string, S3ErrorDefinition>;

export type S3ErrorKey = keyof typeof S3_ERRORS;

/** Thrown by pipeline steps; the pipeline turns it into the XML response. */
export class S3Error extends Error {
  readonly key: S3ErrorKey;
  readonly definition: S3ErrorDefinition;
  /** Extra elements S3 puts in some error documents (e.g. RequestTime, ServerTime). */
  readonly details: Readonly<Record<string, string>>;

  constructor(key: S3ErrorKey, details: Record<string, string> = {}) {
    const definition = S3_ERRORS[key];
    super(`${definition.code}: ${definition.message}`);
    this.name = 'S3Error';
    this.key = key;
    this.definition = definition;
    this.details = details;
  }

  get status(): number {
    return this.definition.status;
  }

  get code(): string {
    return this.definition.code;
  }
}

export function isS3Error(value: unknown): value is S3Error {
  return value instanceof S3Error;
}

export interface RenderContext {
  requestId: string;
  /** The bucket or object the request addressed, as S3 reports it in <Resource>. */
  resource?: string;
}

/** The S3 error document for a catalogue entry. */
export function renderS3Error(
  definition: S3ErrorDefinition,
  context: RenderContext,
  details: Readonly<Record<string, string>> = {},
): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Error>',
    `<Code>${escapeXml(definition.code)}</Code>`,
    `<Message>${escapeXml(definition.message)}</Message>`,
  ];
  for (const [name, value] of Object.entries(details)) {
    parts.push(`<${name}>${escapeXml(value)}</${name}>`);
  }
  if (context.resource !== undefined) parts.push(`<Resource>${escapeXml(context.resource)}</Resource>`);
  parts.push(`<RequestId>${escapeXml(context.requestId)}</RequestId>`, '</Error>');
  return parts.join('');
}
