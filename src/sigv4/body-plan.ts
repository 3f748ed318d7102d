/**
 * Decides, from the request headers alone, how a request body must be decoded and verified before
 * it reaches the backend, and which headers the forwarded request must change. The plan is data;
 * {@link openBody} builds the streams when a body is actually read, so planning costs next to
 * nothing for the many requests whose body is never forwarded.
 *
 * Refusals that need no body are part of the plan (the caller raises them where the order of its
 * checks says, after authorisation):
 * - more than one x-amz-checksum-* value header, or one together with x-amz-trailer → MultipleChecksums
 * - a checksum algorithm we cannot compute (header, trailer or *-checksum-algorithm) → UnsupportedChecksumAlgorithm
 * - a checksum or Content-MD5 value of the wrong shape → InvalidDigest
 * - aws-chunked without x-amz-decoded-content-length → MissingContentLength
 * - aws-chunked framing under a hex payload hash (the hash would cover the framing) → InvalidChunkedEncoding
 * - x-amz-trailer on a body that is not aws-chunked (it has nowhere to carry one) → MissingTrailer
 *
 * A checksum that arrives in a trailer cannot be forwarded as a header (the upstream request has
 * started by then), so it is verified at the gateway and the backend receives the decoded body
 * without it; {@link BodyVerification.verifiedChecksum} holds the value for the response.
 */
import type { Transform } from 'node:stream';
import type { S3ErrorKey } from '../protocol/errors.js';
import {
  headerValue,
  HEX_SHA256,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  type HeaderMap,
} from '../protocol/headers.js';
import { AwsChunkedDecoder } from './aws-chunked.js';
import {
  checksumAlgorithmFromHeader,
  checksumAlgorithmFromName,
  isChecksumValueHeader,
  isWellFormedDigest,
  type ChecksumAlgorithm,
} from './checksums.js';
import {
  PayloadCheck,
  PayloadVerifier,
  type ExpectedChecksum,
  type VerifiedChecksum,
} from './payload-verifier.js';

export interface ForwardHeaderChanges {
  /** Headers to drop from the upstream request. */
  readonly remove: readonly string[];
  /** Headers to set (replacing any received value) on the upstream request. */
  readonly set: Readonly<Record<string, string>>;
}

/** How a body that is read must be decoded and checked. */
export interface BodyPlan {
  readonly ok: true;
  /** aws-chunked framing to strip; undefined for a plain body. */
  readonly chunked?: { readonly expectedTrailers: readonly string[] };
  /** Hex SHA-256 the signature covered (a signed payload). */
  readonly sha256Hex?: string;
  /** The checksum checked at the gateway, and where its expected value comes from. */
  readonly checksum?:
    | { readonly algorithm: ChecksumAlgorithm; readonly source: 'header'; readonly value: string }
    | { readonly algorithm: ChecksumAlgorithm; readonly source: 'trailer'; readonly trailerName: string };
  /** Base64 MD5 from Content-MD5. */
  readonly contentMd5?: string;
  /** Length of the body the backend will receive (decoded length for aws-chunked); undefined if unknown. */
  readonly decodedLength?: number;
  readonly forwardHeaders: ForwardHeaderChanges;
  /** True when the body must run through decoding or verification (else it is forwarded as it comes). */
  readonly verified: boolean;
}

export interface BodyPlanRefusal {
  readonly ok: false;
  readonly error: S3ErrorKey;
}

export type BodyPlanResult = BodyPlan | BodyPlanRefusal;

const NO_CHANGES: ForwardHeaderChanges = Object.freeze({ remove: [], set: Object.freeze({}) });

/** The plan of a request whose body is never read (nothing to decode, nothing to check). */
export const NO_BODY: BodyPlan = Object.freeze({ ok: true, forwardHeaders: NO_CHANGES, verified: false });

const AWS_CHUNKED = 'aws-chunked';

function refuse(error: S3ErrorKey): BodyPlanRefusal {
  return { ok: false, error };
}

/** A non-negative integer header such as Content-Length; undefined when absent, NaN when malformed. */
function lengthHeader(headers: HeaderMap, name: string): number | undefined {
  const text = headerValue(headers, name)?.trim();
  if (text === undefined) return undefined;
  return /^\d{1,16}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : Number.NaN;
}

function contentEncodings(headers: HeaderMap): string[] {
  const text = headerValue(headers, 'content-encoding');
  if (text === undefined) return [];
  return text
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

type ChecksumDeclaration =
  | { readonly kind: 'none' }
  | { readonly kind: 'header'; readonly algorithm: ChecksumAlgorithm; readonly value: string }
  | { readonly kind: 'trailer'; readonly algorithm: ChecksumAlgorithm; readonly trailerName: string }
  | { readonly kind: 'refused'; readonly error: S3ErrorKey };

const NO_CHECKSUM: ChecksumDeclaration = { kind: 'none' };

/** Reads x-amz-checksum-* value headers, x-amz-trailer and the *-checksum-algorithm headers. */
function checksumDeclaration(headers: HeaderMap): ChecksumDeclaration {
  for (const name of ['x-amz-checksum-algorithm', 'x-amz-sdk-checksum-algorithm']) {
    const value = headerValue(headers, name);
    if (value !== undefined && checksumAlgorithmFromName(value) === undefined) {
      return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    }
  }

  const valueHeaders: string[] = [];
  for (const name in headers) {
    if (isChecksumValueHeader(name) && headers[name] !== undefined) valueHeaders.push(name);
  }
  const trailer = headerValue(headers, 'x-amz-trailer');
  const trailerNames =
    trailer === undefined
      ? []
      : trailer
          .split(',')
          .map((name) => name.trim().toLowerCase())
          .filter((name) => name !== '');

  // S3 takes exactly one checksum per request, either as a header or as a trailer.
  if (valueHeaders.length + trailerNames.length > 1) return { kind: 'refused', error: 'MultipleChecksums' };

  const [headerName] = valueHeaders;
  if (headerName !== undefined) {
    const algorithm = checksumAlgorithmFromHeader(headerName);
    if (algorithm === undefined) return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    const value = (headerValue(headers, headerName) ?? '').trim();
    if (!isWellFormedDigest(algorithm, value)) return { kind: 'refused', error: 'InvalidDigest' };
    return { kind: 'header', algorithm, value };
  }

  const [trailerName] = trailerNames;
  if (trailerName !== undefined) {
    const algorithm = checksumAlgorithmFromHeader(trailerName);
    if (algorithm === undefined) return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    return { kind: 'trailer', algorithm, trailerName };
  }
  return NO_CHECKSUM;
}

/**
 * Plans decoding and verification of a request body. `payloadHash` is what the signature covered
 * (a hex digest, UNSIGNED-PAYLOAD or STREAMING-UNSIGNED-PAYLOAD-TRAILER; signed streaming is
 * refused by the verifier before any plan is made).
 */
export function planBody(headers: HeaderMap, payloadHash: string = UNSIGNED_PAYLOAD): BodyPlanResult {
  const signedSha256 = HEX_SHA256.test(payloadHash) ? payloadHash.toLowerCase() : undefined;

  const encodings = contentEncodings(headers);
  const declaresAwsChunked = encodings.some((token) => token.toLowerCase() === AWS_CHUNKED);
  // The payload mode implies the framing even when a client forgets Content-Encoding.
  const awsChunked = payloadHash === STREAMING_UNSIGNED_PAYLOAD_TRAILER || declaresAwsChunked;
  if (awsChunked && signedSha256 !== undefined) return refuse('InvalidChunkedEncoding');

  const declaration = checksumDeclaration(headers);
  if (declaration.kind === 'refused') return refuse(declaration.error);
  if (declaration.kind === 'trailer' && !awsChunked) return refuse('MissingTrailer');

  const contentMd5 = headerValue(headers, 'content-md5')?.trim();
  if (contentMd5 !== undefined && !isWellFormedDigest('MD5', contentMd5)) return refuse('InvalidDigest');

  let decodedLength: number | undefined;
  if (awsChunked) {
    decodedLength = lengthHeader(headers, 'x-amz-decoded-content-length');
    if (decodedLength === undefined || Number.isNaN(decodedLength)) return refuse('MissingContentLength');
  } else {
    const contentLength = lengthHeader(headers, 'content-length');
    decodedLength = contentLength === undefined || Number.isNaN(contentLength) ? undefined : contentLength;
  }

  const checksum =
    declaration.kind === 'header'
      ? ({ algorithm: declaration.algorithm, source: 'header', value: declaration.value } as const)
      : declaration.kind === 'trailer'
        ? ({
            algorithm: declaration.algorithm,
            source: 'trailer',
            trailerName: declaration.trailerName,
          } as const)
        : undefined;

  return {
    ok: true,
    ...(awsChunked
      ? { chunked: { expectedTrailers: declaration.kind === 'trailer' ? [declaration.trailerName] : [] } }
      : {}),
    ...(signedSha256 === undefined ? {} : { sha256Hex: signedSha256 }),
    ...(checksum === undefined ? {} : { checksum }),
    ...(contentMd5 === undefined ? {} : { contentMd5 }),
    ...(decodedLength === undefined ? {} : { decodedLength }),
    forwardHeaders: awsChunked ? chunkedForwardHeaders(encodings) : NO_CHANGES,
    // A bare decoder is verified too: it holds the tail back until the framing has been read
    // to its end, so a body cut off before its last chunk is never committed.
    verified: awsChunked || signedSha256 !== undefined || checksum !== undefined || contentMd5 !== undefined,
  };
}

/** The stream of one body being read: the decoder or the verifier. */
export interface BodyVerification {
  /** Pipe the client body through this; null when the plan verifies nothing. */
  readonly stream: Transform | null;
  /** The checksum that matched, once the body has been read to its end. */
  readonly verifiedChecksum: VerifiedChecksum | undefined;
}

/**
 * Builds the stream a plan asks for, for one body: the aws-chunked decoder, checking what it
 * decodes, or the verifier of a plain body. One stream, not a decoder piped into a verifier:
 * each stream a body crosses costs the gateway CPU per upload (BENCHMARKS.md, change 15).
 */
export function openBody(plan: BodyPlan): BodyVerification {
  if (!plan.verified) return { stream: null, verifiedChecksum: undefined };
  let trailers: ReadonlyMap<string, string> | undefined;
  let checksum: ExpectedChecksum | undefined;
  if (plan.checksum?.source === 'header') {
    checksum = { algorithm: plan.checksum.algorithm, expected: plan.checksum.value };
  } else if (plan.checksum?.source === 'trailer' && plan.chunked !== undefined) {
    const trailerName = plan.checksum.trailerName;
    checksum = { algorithm: plan.checksum.algorithm, expected: () => trailers?.get(trailerName) };
  }
  const check = new PayloadCheck({
    ...(plan.sha256Hex === undefined ? {} : { sha256Hex: plan.sha256Hex }),
    ...(checksum === undefined ? {} : { checksum }),
    ...(plan.contentMd5 === undefined ? {} : { contentMd5: plan.contentMd5 }),
    ...(plan.decodedLength === undefined ? {} : { expectedLength: plan.decodedLength }),
  });
  let stream: Transform;
  if (plan.chunked === undefined) stream = new PayloadVerifier(check);
  else {
    const decoder = new AwsChunkedDecoder({
      decodedContentLength: plan.decodedLength,
      expectedTrailers: plan.chunked.expectedTrailers,
      check,
    });
    trailers = decoder.trailers;
    stream = decoder;
  }
  return {
    stream,
    get verifiedChecksum() {
      return check.verifiedChecksum;
    },
  };
}

/**
 * The upstream request carries the decoded body: no aws-chunked coding (other codings such as gzip
 * describe the object and stay) and no trailer algorithm. Its length is set where the upstream
 * request is built (s3/upstream/forward.ts), and the streaming headers (x-amz-decoded-content-length,
 * x-amz-trailer, Transfer-Encoding) are not on the forwarding allowlist.
 */
function chunkedForwardHeaders(encodings: readonly string[]): ForwardHeaderChanges {
  const remaining = encodings.filter((token) => token.toLowerCase() !== AWS_CHUNKED);
  // Names the trailer's algorithm; without the trailer the backend would expect a checksum it never gets.
  const remove = ['x-amz-sdk-checksum-algorithm'];
  if (remaining.length === 0) return { remove: [...remove, 'content-encoding'], set: {} };
  return { remove, set: { 'content-encoding': remaining.join(',') } };
}
