/**
 * Decides, from the request headers alone, how a request body must be decoded and verified
 * before it reaches the backend, and which headers the forwarded request must change.
 *
 * Refusals that need no body are returned up front (nothing is forwarded):
 * - signed streaming (STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]) → SignedStreamingNotImplemented
 * - more than one x-amz-checksum-* value header, or one together with x-amz-trailer → MultipleChecksums
 * - a checksum algorithm we cannot compute (header, trailer or *-checksum-algorithm) → UnsupportedChecksumAlgorithm
 * - a checksum or Content-MD5 value of the wrong shape → InvalidDigest
 * - aws-chunked without x-amz-decoded-content-length → MissingContentLength
 * - aws-chunked framing under a hex payload hash (the hash would cover the framing) → InvalidChunkedEncoding
 * - x-amz-trailer on a body that is not aws-chunked (it has nowhere to carry one) → MissingTrailer
 *
 * A checksum that arrives in a trailer cannot be forwarded as a header (the upstream request
 * has started by then), so it is verified here, at the gateway, and the backend receives the
 * decoded body without it. {@link PayloadVerifier.verifiedChecksum} holds the value for the
 * response.
 */

import type { Transform } from 'node:stream';

import type { S3ErrorKey } from '../errors.js';
import { AwsChunkedDecoder } from './aws-chunked.js';
import type { RequestHeaders } from './canonical.js';
import { headerText } from './canonical.js';
import type { ChecksumAlgorithm } from './checksums.js';
import {
  checksumAlgorithmFromHeader,
  checksumAlgorithmFromName,
  isChecksumValueHeader,
  isWellFormedDigest,
} from './checksums.js';
import {
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  HEX_SHA256,
} from './constants.js';
import type { ExpectedChecksum } from './payload-verifier.js';
import { PayloadVerifier } from './payload-verifier.js';

export interface ForwardHeaderChanges {
  /** Headers to drop from the upstream request. */
  readonly remove: readonly string[];
  /** Headers to set (replacing any received value) on the upstream request. */
  readonly set: Readonly<Record<string, string>>;
}

export interface BodyPipeline {
  readonly ok: true;
  /** Pipe the client body through these, in order, then into the upstream request. Empty: forward as is. */
  readonly transforms: readonly Transform[];
  readonly decoder?: AwsChunkedDecoder;
  /** Always last in `transforms` when present; holds back the final chunk until verified. */
  readonly verifier?: PayloadVerifier;
  /** Length of the body the backend will receive (decoded length for aws-chunked); undefined if unknown. */
  readonly decodedLength?: number;
  readonly forwardHeaders: ForwardHeaderChanges;
  /**
   * True when there is something to verify but no byte to hold back (an empty body): the
   * upstream request would be complete the moment its headers went out, so run the body
   * through the transforms to the end before forwarding anything.
   */
  readonly drainBeforeForwarding: boolean;
  /** The algorithm checked at the gateway, and where its expected value comes from. */
  readonly checksum?: { readonly algorithm: ChecksumAlgorithm; readonly source: 'header' | 'trailer' };
}

export interface BodyPipelineRefusal {
  readonly ok: false;
  readonly error: S3ErrorKey;
}

export type BodyPipelinePlan = BodyPipeline | BodyPipelineRefusal;

export interface BodyPipelineOptions {
  /**
   * The payload hash the signature covered (VerifySuccess.payloadHash). Defaults to the
   * x-amz-content-sha256 header, or UNSIGNED-PAYLOAD when absent (anonymous, presigned).
   */
  readonly payloadHash?: string;
}

const AWS_CHUNKED = 'aws-chunked';

function refuse(error: S3ErrorKey): BodyPipelineRefusal {
  return { ok: false, error };
}

/** A non-negative integer header such as Content-Length; undefined when absent, NaN when malformed. */
function lengthHeader(headers: RequestHeaders, name: string): number | undefined {
  const text = headerText(headers, name)?.trim();
  if (text === undefined) return undefined;
  return /^\d{1,16}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : Number.NaN;
}

function contentEncodings(headers: RequestHeaders): string[] {
  const text = headerText(headers, 'content-encoding') ?? '';
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

/** Reads x-amz-checksum-* value headers, x-amz-trailer and the *-checksum-algorithm headers. */
function checksumDeclaration(headers: RequestHeaders): ChecksumDeclaration {
  for (const name of ['x-amz-checksum-algorithm', 'x-amz-sdk-checksum-algorithm']) {
    const value = headerText(headers, name);
    if (value !== undefined && checksumAlgorithmFromName(value) === undefined) {
      return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    }
  }

  const valueHeaders = Object.keys(headers).filter(
    (name) => isChecksumValueHeader(name) && headers[name] !== undefined,
  );
  const trailerNames = (headerText(headers, 'x-amz-trailer') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');

  // S3 takes exactly one checksum per request, either as a header or as a trailer.
  if (valueHeaders.length + trailerNames.length > 1) return { kind: 'refused', error: 'MultipleChecksums' };

  const [headerName] = valueHeaders;
  if (headerName !== undefined) {
    const algorithm = checksumAlgorithmFromHeader(headerName);
    if (algorithm === undefined) return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    const value = (headerText(headers, headerName) ?? '').trim();
    if (!isWellFormedDigest(algorithm, value)) return { kind: 'refused', error: 'InvalidDigest' };
    return { kind: 'header', algorithm, value };
  }

  const [trailerName] = trailerNames;
  if (trailerName !== undefined) {
    const algorithm = checksumAlgorithmFromHeader(trailerName);
    if (algorithm === undefined) return { kind: 'refused', error: 'UnsupportedChecksumAlgorithm' };
    return { kind: 'trailer', algorithm, trailerName };
  }
  return { kind: 'none' };
}

/**
 * Plans decoding and verification of a request body: the request flows through
 * `plan.transforms` into the upstream request, and any failure destroys the upstream request
 * before the held-back tail is sent, so the backend stores nothing.
 */
export function createBodyPipeline(
  headers: RequestHeaders,
  options: BodyPipelineOptions = {},
): BodyPipelinePlan {
  const payloadHash =
    options.payloadHash ?? headerText(headers, 'x-amz-content-sha256')?.trim() ?? UNSIGNED_PAYLOAD;
  if (payloadHash === STREAMING_SIGNED_PAYLOAD || payloadHash === STREAMING_SIGNED_PAYLOAD_TRAILER) {
    return refuse('SignedStreamingNotImplemented');
  }
  const signedSha256 = HEX_SHA256.test(payloadHash) ? payloadHash.toLowerCase() : undefined;

  const encodings = contentEncodings(headers);
  const declaresAwsChunked = encodings.some((token) => token.toLowerCase() === AWS_CHUNKED);
  // The payload mode implies the framing even when a client forgets Content-Encoding.
  const awsChunked = payloadHash === STREAMING_UNSIGNED_PAYLOAD_TRAILER || declaresAwsChunked;
  if (awsChunked && signedSha256 !== undefined) return refuse('InvalidChunkedEncoding');

  const declaration = checksumDeclaration(headers);
  if (declaration.kind === 'refused') return refuse(declaration.error);
  if (declaration.kind === 'trailer' && !awsChunked) return refuse('MissingTrailer');

  const contentMd5 = headerText(headers, 'content-md5')?.trim();
  if (contentMd5 !== undefined && !isWellFormedDigest('MD5', contentMd5)) return refuse('InvalidDigest');

  let decodedLength: number | undefined;
  if (awsChunked) {
    decodedLength = lengthHeader(headers, 'x-amz-decoded-content-length');
    if (decodedLength === undefined || Number.isNaN(decodedLength)) return refuse('MissingContentLength');
  } else {
    const contentLength = lengthHeader(headers, 'content-length');
    decodedLength = contentLength === undefined || Number.isNaN(contentLength) ? undefined : contentLength;
  }

  const transforms: Transform[] = [];
  let decoder: AwsChunkedDecoder | undefined;
  if (awsChunked) {
    decoder = new AwsChunkedDecoder({
      decodedContentLength: decodedLength,
      expectedTrailers: declaration.kind === 'trailer' ? [declaration.trailerName] : [],
    });
    transforms.push(decoder);
  }

  let checksum: ExpectedChecksum | undefined;
  if (declaration.kind === 'header') {
    checksum = { algorithm: declaration.algorithm, expected: declaration.value };
  } else if (declaration.kind === 'trailer' && decoder !== undefined) {
    const trailers = decoder.trailers;
    const trailerName = declaration.trailerName;
    checksum = { algorithm: declaration.algorithm, expected: () => trailers.get(trailerName) };
  }

  // The verifier also guards a bare decoder: it holds the tail until the framing has
  // been read to its end, so a body cut off before its last chunk is never committed.
  const needsVerifier =
    awsChunked || signedSha256 !== undefined || checksum !== undefined || contentMd5 !== undefined;
  let verifier: PayloadVerifier | undefined;
  if (needsVerifier) {
    verifier = new PayloadVerifier({
      ...(signedSha256 === undefined ? {} : { sha256Hex: signedSha256 }),
      ...(checksum === undefined ? {} : { checksum }),
      ...(contentMd5 === undefined ? {} : { contentMd5 }),
      ...(decodedLength === undefined ? {} : { expectedLength: decodedLength }),
    });
    transforms.push(verifier);
  }

  return {
    ok: true,
    transforms,
    ...(decoder === undefined ? {} : { decoder }),
    ...(verifier === undefined ? {} : { verifier }),
    ...(decodedLength === undefined ? {} : { decodedLength }),
    forwardHeaders: awsChunked
      ? chunkedForwardHeaders(encodings, decodedLength ?? 0)
      : { remove: [], set: {} },
    drainBeforeForwarding: verifier !== undefined && decodedLength === 0,
    ...(declaration.kind === 'none'
      ? {}
      : { checksum: { algorithm: declaration.algorithm, source: declaration.kind } }),
  };
}

/**
 * The upstream request carries the decoded body: its own length, no aws-chunked coding
 * (other codings such as gzip describe the object and stay), no streaming headers.
 */
function chunkedForwardHeaders(encodings: readonly string[], decodedLength: number): ForwardHeaderChanges {
  const remaining = encodings.filter((token) => token.toLowerCase() !== AWS_CHUNKED);
  const remove = [
    'x-amz-decoded-content-length',
    'x-amz-trailer',
    // Names the trailer's algorithm; without the trailer the backend would expect a checksum it never gets.
    'x-amz-sdk-checksum-algorithm',
    'transfer-encoding',
  ];
  const set: Record<string, string> = {
    'content-length': String(decodedLength),
    // The forwarded body is plain bytes now; the gateway re-signs it as unsigned.
    'x-amz-content-sha256': UNSIGNED_PAYLOAD,
  };
  if (remaining.length === 0) remove.push('content-encoding');
  else set['content-encoding'] = remaining.join(',');
  return { remove, set };
}
