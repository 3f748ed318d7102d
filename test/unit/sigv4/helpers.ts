import { readFileSync } from 'node:fs';
import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';

import { isS3Error } from '../../../src/protocol/errors.js';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

/** Reads a JSON fixture from test/fixtures/sigv4. */
export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/sigv4/${name}`, import.meta.url), 'utf8')) as T;
}

/** Header lines as a client sends them, grouped the way Node's `req.headersDistinct` groups them. */
export function headersFromLines(lines: readonly (readonly [string, string])[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    // Node trims optional whitespace around field values.
    (headers[key] ??= []).push(value.trim());
  }
  return headers;
}

export interface SmithySignInput {
  readonly method: string;
  readonly host: string;
  /** Already percent-encoded path, as an S3 client puts it on the wire. */
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly accessKeyId: string;
  readonly secret: string;
  readonly region?: string;
  readonly service?: string;
  readonly signingDate: Date;
}

/** Encodes a query component the way the AWS SDK's HTTP layer does (RFC 3986 unreserved only). */
export function sdkEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function rawTargetOf(
  path: string,
  query: Record<string, string | string[] | null | undefined>,
): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (value === null) pairs.push(sdkEncode(name));
    else
      for (const one of Array.isArray(value) ? value : [value])
        pairs.push(`${sdkEncode(name)}=${sdkEncode(one)}`);
  }
  return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
}

function smithySigner(input: SmithySignInput): SignatureV4 {
  return new SignatureV4({
    service: input.service ?? 's3',
    region: input.region ?? 'us-east-1',
    credentials: { accessKeyId: input.accessKeyId, secretAccessKey: input.secret },
    sha256: Sha256Hash,
    // S3 signs the already-encoded path as is.
    uriEscapePath: false,
    applyChecksum: false,
  });
}

function smithyRequest(input: SmithySignInput) {
  const headers: Record<string, string> = { host: input.host, ...input.headers };
  return {
    method: input.method,
    protocol: 'https:',
    hostname: input.host,
    path: input.path,
    query: input.query ?? {},
    headers,
  };
}

/** Signs with the AWS SDK's own signer and returns what would arrive on the wire. */
export async function signWithSmithy(
  input: SmithySignInput,
): Promise<{ rawTarget: string; headers: Record<string, string> }> {
  const signed = await smithySigner(input).sign(smithyRequest(input), { signingDate: input.signingDate });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name.toLowerCase()] = String(value);
  return { rawTarget: rawTargetOf(signed.path, signed.query ?? {}), headers };
}

/** Presigns with the AWS SDK's own signer (UNSIGNED-PAYLOAD, as the S3 presigner does). */
export async function presignWithSmithy(
  input: SmithySignInput & { readonly expiresIn: number },
): Promise<{ rawTarget: string; headers: Record<string, string> }> {
  const request = smithyRequest(input);
  request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  const signed = await smithySigner(input).presign(request, {
    signingDate: input.signingDate,
    expiresIn: input.expiresIn,
  });
  return { rawTarget: rawTargetOf(signed.path, signed.query ?? {}), headers: { host: input.host } };
}

export interface StreamOutcome {
  /** Everything the last stream emitted, in order. */
  readonly output: Buffer;
  /** Each chunk as emitted by the last stream. */
  readonly chunks: readonly Buffer[];
  /** The S3ErrorKey the chain failed with, if it failed with an S3Error. */
  readonly errorKey?: string;
  readonly error?: unknown;
}

/**
 * Feeds `inputs` through `stream` (straight to the sink when null) into a collecting sink. A
 * `slowSink` takes each chunk only on a later turn of the event loop, so the stream's output queues
 * up behind it (back-pressure), the same on any machine.
 */
export async function runThrough(
  stream: Transform | null,
  inputs: readonly Buffer[],
  { slowSink = false }: { slowSink?: boolean } = {},
): Promise<StreamOutcome> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      if (slowSink) setImmediate(callback);
      else callback();
    },
  });
  try {
    const source = Readable.from(inputs, { objectMode: false });
    await (stream === null ? pipeline(source, sink) : pipeline(source, stream, sink));
    return { output: Buffer.concat(chunks), chunks };
  } catch (error) {
    return {
      output: Buffer.concat(chunks),
      chunks,
      error,
      ...(isS3Error(error) ? { errorKey: error.key } : {}),
    };
  }
}

/** Splits a buffer into pieces of the given sizes (cycled), covering all of it. */
export function splitBySizes(data: Buffer, sizes: readonly number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let offset = 0;
  let index = 0;
  while (offset < data.length) {
    const size = Math.max(1, sizes[index % sizes.length] ?? 1);
    pieces.push(data.subarray(offset, offset + size));
    offset += size;
    index += 1;
  }
  return pieces;
}

/** A deterministic pseudo-random generator so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 0x1_0000_0000;
  };
}

export function randomSplits(data: Buffer, seed: number, maxPiece: number): Buffer[] {
  const random = seededRandom(seed);
  const pieces: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const size = 1 + Math.floor(random() * maxPiece);
    pieces.push(data.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

export function bytewise(data: Buffer): Buffer[] {
  return splitBySizes(data, [1]);
}

/** Deterministic test data of the given length. */
export function testData(length: number, seed = 7): Buffer {
  const random = seededRandom(seed);
  return Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
}
