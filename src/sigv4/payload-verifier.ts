/**
 * Verifies a request body on its way to the backend without buffering it.
 *
 * Bytes are forwarded as they arrive except the most recent chunk, which is held back
 * until the input ends and every digest has been checked. On a mismatch the stream errors
 * and the held chunk is dropped, so the backend only ever sees a body shorter than its
 * Content-Length and stores nothing; an existing object of that key stays as it was.
 * Memory is bounded by one chunk.
 */

import { Transform, type TransformCallback } from 'node:stream';

import { S3Error, type S3ErrorKey } from '../protocol/errors.js';
import type { ChecksumAlgorithm, StreamingDigest } from './checksums.js';
import { createDigest, isWellFormedDigest } from './checksums.js';

export interface ExpectedChecksum {
  readonly algorithm: ChecksumAlgorithm;
  /**
   * The base64 value: known up front (x-amz-checksum-* header) or read when the body has
   * ended (a trailer parsed by the aws-chunked decoder upstream of this verifier).
   */
  readonly expected: string | (() => string | undefined);
}

export interface PayloadVerifierOptions {
  /** Hex SHA-256 from x-amz-content-sha256 (a signed payload). */
  readonly sha256Hex?: string;
  readonly checksum?: ExpectedChecksum;
  /** Base64 MD5 from Content-MD5. */
  readonly contentMd5?: string;
  /** The body must be exactly this long (decoded length for aws-chunked). */
  readonly expectedLength?: number;
}

export interface VerifiedChecksum {
  readonly algorithm: ChecksumAlgorithm;
  readonly base64: string;
}

/**
 * The length and digests of one body, taken as its bytes go by and checked once it has been read
 * to its end, and the latest bytes held back until then. Not a stream: the verifier below and the
 * aws-chunked decoder (which checks what it decodes, so a chunked body crosses one stream rather
 * than two) each feed one what they pass on.
 */
export class PayloadCheck {
  #received = 0;
  #held: Buffer | undefined;
  readonly #options: PayloadVerifierOptions;
  readonly #sha256: StreamingDigest | undefined;
  readonly #checksum: StreamingDigest | undefined;
  readonly #md5: StreamingDigest | undefined;
  #verified: VerifiedChecksum | undefined;

  constructor(options: PayloadVerifierOptions) {
    this.#options = options;
    this.#sha256 = options.sha256Hex === undefined ? undefined : createDigest('SHA256');
    this.#checksum = options.checksum === undefined ? undefined : createDigest(options.checksum.algorithm);
    this.#md5 = options.contentMd5 === undefined ? undefined : createDigest('MD5');
  }

  /** Bytes received so far. */
  get receivedLength(): number {
    return this.#received;
  }

  /** The checksum that matched, once the body has been verified (for the response's x-amz-checksum-*). */
  get verifiedChecksum(): VerifiedChecksum | undefined {
    return this.#verified;
  }

  /**
   * Takes the next bytes `stream` passes on: the bytes held back before them go out through it, and
   * these are held in turn. The refusal when the body is now longer than declared (nothing goes).
   */
  take(stream: Transform, chunk: Buffer): S3ErrorKey | undefined {
    this.#received += chunk.length;
    const expectedLength = this.#options.expectedLength;
    // More bytes than declared: the body does not match its length; refuse it whole.
    if (expectedLength !== undefined && this.#received > expectedLength) {
      this.#held = undefined;
      return 'IncompleteBody';
    }
    this.#sha256?.update(chunk);
    this.#checksum?.update(chunk);
    this.#md5?.update(chunk);
    if (this.#held !== undefined) stream.push(this.#held);
    this.#held = chunk;
    return undefined;
  }

  /**
   * Ends `stream` once its input has: the bytes held back go out through it when the body passed,
   * else the stream fails with the refusal and they never leave.
   */
  release(stream: Transform, callback: TransformCallback): void {
    const tail = this.#held;
    this.#held = undefined;
    this.#verify().then(
      (error) => {
        if (error !== undefined) {
          callback(new S3Error(error));
          return;
        }
        if (tail !== undefined) stream.push(tail);
        callback();
      },
      (cause: unknown) => callback(cause instanceof Error ? cause : new S3Error('InternalError')),
    );
  }

  /** Once the body has ended: the refusal it earns, if any. */
  async #verify(): Promise<S3ErrorKey | undefined> {
    const { expectedLength, sha256Hex, checksum, contentMd5 } = this.#options;
    if (expectedLength !== undefined && this.#received !== expectedLength) return 'IncompleteBody';

    if (sha256Hex !== undefined && this.#sha256 !== undefined) {
      const actual = Buffer.from(await this.#sha256.digestBase64(), 'base64').toString('hex');
      if (actual !== sha256Hex.toLowerCase()) return 'XAmzContentSHA256Mismatch';
    }

    if (checksum !== undefined && this.#checksum !== undefined) {
      const expected = typeof checksum.expected === 'string' ? checksum.expected : checksum.expected();
      if (expected === undefined) return 'MissingTrailer';
      if (!isWellFormedDigest(checksum.algorithm, expected)) return 'InvalidDigest';
      const actual = await this.#checksum.digestBase64();
      if (actual !== expected) return 'BadDigest';
      this.#verified = { algorithm: checksum.algorithm, base64: actual };
    }

    if (contentMd5 !== undefined && this.#md5 !== undefined) {
      if ((await this.#md5.digestBase64()) !== contentMd5) return 'BadDigest';
    }
    return undefined;
  }
}

export class PayloadVerifier extends Transform {
  readonly #check: PayloadCheck;

  /** What to verify, or a check of them to feed. */
  constructor(options: PayloadVerifierOptions | PayloadCheck) {
    super();
    this.#check = options instanceof PayloadCheck ? options : new PayloadCheck(options);
  }

  /** Bytes received so far (forwarded or held). */
  get receivedLength(): number {
    return this.#check.receivedLength;
  }

  /** The checksum that matched, once the body has been verified (for the response's x-amz-checksum-*). */
  get verifiedChecksum(): VerifiedChecksum | undefined {
    return this.#check.verifiedChecksum;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const error = this.#check.take(this, chunk);
    callback(error === undefined ? undefined : new S3Error(error));
  }

  override _flush(callback: TransformCallback): void {
    this.#check.release(this, callback);
  }
}
