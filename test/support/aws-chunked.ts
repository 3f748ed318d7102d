/**
 * aws-chunked bodies (Content-Encoding: aws-chunked) as the AWS SDKs frame them, for the unit,
 * integration and e2e suites and the benchmark alike, so the framing every one of them sends is
 * written once: `<hex size>[;ext]\r\n<data>\r\n` per chunk, then `0[;ext]\r\n`, the trailer lines and
 * a blank line. The benchmark imports this file from test/support: it already reaches into src/, and a
 * copy of its own is exactly what let the framings drift apart.
 */
import { createHash, createHmac } from 'node:crypto';

/** Trailer lines after the last chunk, in order. */
export type Trailers = Readonly<Record<string, string>> | readonly (readonly [string, string])[];

/** What STREAMING-AWS4-HMAC-SHA256-PAYLOAD chains each chunk's signature from. */
export interface ChunkSigning {
  readonly secretAccessKey: string;
  readonly region: string;
  /** The request's x-amz-date. */
  readonly amzDate: string;
  /** The request's own signature (from its Authorization header): the first chunk signs after it. */
  readonly seedSignature: string;
}

export interface FramingOptions {
  /** Appended to every size line, e.g. a `;chunk-signature=…` that nothing checks. */
  readonly extension?: string;
  /** Sign every chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD); no trailers then. */
  readonly signing?: ChunkSigning;
  /** Leave out the blank line that ends the trailer section. */
  readonly omitFinalCrlf?: boolean;
}

/** A SHA-256 signature is 64 hex digits, whatever it signs: the length is known before signing. */
const SIGNATURE_EXTENSION_LENGTH = ';chunk-signature='.length + 64;

const CRLF = Buffer.from('\r\n', 'latin1');

function trailerLines(trailers: Trailers): (readonly [string, string])[] {
  return Array.isArray(trailers) ? [...trailers] : Object.entries(trailers);
}

/**
 * One chunk, `<hex size>[ext]\r\n<data>\r\n`: the grammar aws-chunked borrows from HTTP/1.1's
 * chunked transfer coding, so it frames a Transfer-Encoding: chunked body as well.
 */
export function chunkFrame(data: Buffer, extension = ''): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}${extension}\r\n`, 'latin1'), data, CRLF]);
}

/** The zero-length chunk that ends the body, its trailer lines and (unless left out) the blank line. */
export function lastChunk(
  trailers: Trailers = [],
  options: { extension?: string; omitFinalCrlf?: boolean } = {},
): Buffer {
  const lines = trailerLines(trailers).map(([name, value]) => `${name}:${value}\r\n`);
  const end = options.omitFinalCrlf === true ? '' : '\r\n';
  return Buffer.from(`0${options.extension ?? ''}\r\n${lines.join('')}${end}`, 'latin1');
}

function signingKey(signing: ChunkSigning): Buffer {
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const day = signing.amzDate.slice(0, 8);
  return hmac(hmac(hmac(hmac(`AWS4${signing.secretAccessKey}`, day), signing.region), 's3'), 'aws4_request');
}

/**
 * The body chunk by chunk, one chunk per piece of `pieces` (then the last chunk), without holding
 * it whole: for a body generated as it is sent.
 */
export function* awsChunkedFrames(
  pieces: Iterable<Buffer>,
  trailers: Trailers = [],
  options: FramingOptions = {},
): Generator<Buffer> {
  const { signing } = options;
  if (signing === undefined) {
    for (const piece of pieces) yield chunkFrame(piece, options.extension);
    yield lastChunk(trailers, options);
    return;
  }
  if (trailerLines(trailers).length > 0) throw new Error('signed chunks with trailers are not built here');
  const key = signingKey(signing);
  const scope = `${signing.amzDate.slice(0, 8)}/${signing.region}/s3/aws4_request`;
  const emptyHash = createHash('sha256').digest('hex');
  let previous = signing.seedSignature;
  const sign = (chunk: Buffer): string => {
    const hash = createHash('sha256').update(chunk).digest('hex');
    const toSign = ['AWS4-HMAC-SHA256-PAYLOAD', signing.amzDate, scope, previous, emptyHash, hash].join('\n');
    previous = createHmac('sha256', key).update(toSign).digest('hex');
    return `;chunk-signature=${previous}`;
  };
  for (const piece of pieces) yield chunkFrame(piece, sign(piece));
  yield lastChunk([], { ...options, extension: sign(Buffer.alloc(0)) });
}

function* piecesOf(data: Buffer, chunkSize: number): Generator<Buffer> {
  for (let offset = 0; offset < data.length; offset += chunkSize)
    yield data.subarray(offset, offset + chunkSize);
}

/** The whole body of `data` in chunks of `chunkSize` bytes (the last one shorter). */
export function awsChunkedBody(
  data: Buffer,
  chunkSize: number,
  trailers: Trailers = [],
  options: FramingOptions = {},
): Buffer {
  return Buffer.concat([...awsChunkedFrames(piecesOf(data, chunkSize), trailers, options)]);
}

/**
 * The encoded length (the Content-Length) of `decodedLength` bytes framed like {@link awsChunkedBody},
 * without building the body: `signed` counts a chunk signature on every size line, whose value the
 * request's own signature (which covers this length) decides.
 */
export function awsChunkedLength(
  decodedLength: number,
  chunkSize: number,
  trailers: Trailers = [],
  options: Omit<FramingOptions, 'signing'> & { signed?: boolean } = {},
): number {
  const extension = options.signed === true ? SIGNATURE_EXTENSION_LENGTH : (options.extension ?? '').length;
  const frame = (size: number) => size.toString(16).length + extension + 2 + size + 2;
  const fullChunks = Math.floor(decodedLength / chunkSize);
  const rest = decodedLength % chunkSize;
  const last = lastChunk(trailers, options).length - (options.extension ?? '').length + extension;
  return fullChunks * frame(chunkSize) + (rest === 0 ? 0 : frame(rest)) + last;
}

/** The headers that announce an unsigned aws-chunked body with a trailer, as the AWS SDKs send them. */
export function awsChunkedHeaders(decodedLength: number, trailer: string): Record<string, string> {
  return {
    'content-encoding': 'aws-chunked',
    'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    'x-amz-decoded-content-length': String(decodedLength),
    'x-amz-trailer': trailer,
  };
}
