/**
 * Request bodies generated on the fly from one repeated block, never held whole: plain bytes,
 * or aws-chunked framing with a checksum trailer (what the AWS SDKs send by default since 2025).
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { createDigest, type ChecksumAlgorithm } from '../src/sigv4/checksums.js';
import {
  awsChunkedBody,
  awsChunkedHeaders,
  awsChunkedLength,
  chunkFrame,
  lastChunk,
} from '../test/support/aws-chunked.js';

/** The AWS SDKs' aws-chunked chunk size. */
export const SDK_CHUNK_BYTES = 64 * 1024;
/** What a socket typically hands over per read; frames straddle these slices. */
const SLICE_BYTES = 64 * 1024;
const FRAMES_PER_PERIOD = 16;
const DIGEST_BYTES: Readonly<Record<ChecksumAlgorithm, number>> = {
  CRC32: 4,
  CRC32C: 4,
  CRC64NVME: 8,
  SHA1: 20,
  SHA256: 32,
};

export function randomBlock(size = SDK_CHUNK_BYTES): Buffer {
  return randomBytes(size);
}

/** `total` bytes of `block` repeated (the last copy cut short). */
export class PlainSource extends Readable {
  #left: number;

  constructor(
    total: number,
    private readonly block: Buffer,
  ) {
    super();
    this.#left = total;
  }

  override _read(): void {
    while (this.#left > 0) {
      const take = Math.min(this.block.length, this.#left);
      this.#left -= take;
      if (!this.push(take === this.block.length ? this.block : this.block.subarray(0, take))) return;
    }
    this.push(null);
  }
}

/** Base64 checksum of `block` repeated to `total` bytes (total a multiple of the block). */
export async function checksumOfRepeated(
  algorithm: ChecksumAlgorithm,
  block: Buffer,
  total: number,
): Promise<string> {
  const digest = createDigest(algorithm);
  for (let done = 0; done < total; done += block.length) digest.update(block);
  return digest.digestBase64();
}

export interface AwsChunkedOptions {
  /** Decoded length; a multiple of `block.length * 16`. */
  readonly total: number;
  /** One SDK chunk of data (64 KiB). */
  readonly block: Buffer;
  readonly algorithm: ChecksumAlgorithm;
  /** The trailer's checksum value; computed while streaming when omitted. */
  readonly expected?: string;
}

/**
 * `<hex>\r\n<data>\r\n` × n, then `0\r\n<x-amz-checksum-…>:<value>\r\n\r\n`, handed over in
 * 64 KiB slices that ignore frame boundaries, as a socket would.
 */
export class AwsChunkedSource extends Readable {
  readonly trailerName: string;
  readonly #period: Buffer;
  readonly #digest;
  readonly #options: AwsChunkedOptions;
  #periodsLeft: number;
  #offset = 0;

  constructor(options: AwsChunkedOptions) {
    super();
    const periodData = FRAMES_PER_PERIOD * options.block.length;
    if (options.total % periodData !== 0) throw new Error(`total must be a multiple of ${periodData}`);
    this.#options = options;
    this.trailerName = `x-amz-checksum-${options.algorithm.toLowerCase()}`;
    const frame = chunkFrame(options.block);
    this.#period = Buffer.concat(Array.from({ length: FRAMES_PER_PERIOD }, () => frame));
    this.#periodsLeft = options.total / periodData;
    this.#digest = options.expected === undefined ? createDigest(options.algorithm) : undefined;
  }

  /** The headers an SDK sends for this body (besides the signature). */
  headers(): Record<string, string> {
    return {
      ...awsChunkedHeaders(this.#options.total, this.trailerName),
      'content-length': String(this.encodedLength()),
    };
  }

  encodedLength(): number {
    // The checksum is computed while streaming, but its base64 length is known up front.
    const valueLength = 4 * Math.ceil(DIGEST_BYTES[this.#options.algorithm] / 3);
    const trailers = [[this.trailerName, 'x'.repeat(valueLength)]] as const;
    return awsChunkedLength(this.#options.total, this.#options.block.length, trailers);
  }

  #tail(value: string): Buffer {
    return lastChunk([[this.trailerName, value]]);
  }

  override _read(): void {
    while (this.#periodsLeft > 0) {
      if (this.#offset === 0 && this.#digest !== undefined) {
        for (let i = 0; i < FRAMES_PER_PERIOD; i += 1) this.#digest.update(this.#options.block);
      }
      const end = Math.min(this.#offset + SLICE_BYTES, this.#period.length);
      const slice = this.#period.subarray(this.#offset, end);
      this.#offset = end;
      if (end === this.#period.length) {
        this.#offset = 0;
        this.#periodsLeft -= 1;
      }
      if (!this.push(slice)) return;
    }
    if (this.#periodsLeft === 0) {
      this.#periodsLeft = -1;
      if (this.#options.expected !== undefined) {
        this.push(this.#tail(this.#options.expected));
        this.push(null);
        return;
      }
      this.#digest?.digestBase64().then(
        (value) => {
          this.push(this.#tail(value));
          this.push(null);
        },
        (error: Error) => this.destroy(error),
      );
    }
  }
}

/** Swallows whatever is written to it, counting bytes. */
export class CountingSink extends Writable {
  bytes = 0;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    callback();
  }
}

/** A small body framed whole as aws-chunked (one data chunk) with its checksum trailer, and its headers. */
export async function awsChunkedBytes(
  data: Buffer,
  algorithm: ChecksumAlgorithm,
): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const digest = createDigest(algorithm);
  digest.update(data);
  const trailerName = `x-amz-checksum-${algorithm.toLowerCase()}`;
  const body = awsChunkedBody(data, data.length, [[trailerName, await digest.digestBase64()]]);
  return {
    body,
    headers: {
      ...awsChunkedHeaders(data.length, trailerName),
      'x-amz-sdk-checksum-algorithm': algorithm,
      'content-length': String(body.length),
    },
  };
}

/** Like {@link CountingSink}, but takes `bytesPerMs` to accept each byte: a slow client. */
export class ThrottledSink extends Writable {
  bytes = 0;

  constructor(private readonly bytesPerMs: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    setTimeout(callback, chunk.length / this.bytesPerMs);
  }
}
