/**
 * Decoder for `Content-Encoding: aws-chunked` bodies sent with
 * `x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER` (the AWS SDKs' default for
 * uploads since 2025):
 *
 *   <hex-size>[;ext]\r\n<data>\r\n ... 0\r\n<name>:<value>\r\n ... \r\n
 *
 * Data bytes are passed on as slices of the input (no copying); only the framing lines are
 * buffered, and each is capped, so memory stays bounded whatever the client sends. The input
 * may be split anywhere, even one byte at a time. Failures are stream errors carrying an
 * {@link S3Error}: `InvalidChunkedEncoding` for bad framing, `IncompleteBody` for a body that
 * ends early or decodes to another length than declared, `MissingTrailer` for a declared
 * trailer that never came.
 */

import { Transform, type TransformCallback } from 'node:stream';

import { S3Error, type S3ErrorKey } from '../protocol/errors.js';
import type { PayloadCheck } from './payload-verifier.js';

export interface AwsChunkedDecoderOptions {
  /** x-amz-decoded-content-length: the decoded body must be exactly this long. */
  readonly decodedContentLength?: number;
  /** Trailer names declared by x-amz-trailer; each must arrive. */
  readonly expectedTrailers?: readonly string[];
  /** Longest chunk-size or trailer line accepted, excluding CRLF. */
  readonly maxLineBytes?: number;
  /** Most trailer lines accepted. */
  readonly maxTrailers?: number;
  /**
   * Checks the decoded body: when given, the decoder holds back the latest decoded bytes until the
   * framing has been read to its end and the check passed, so a body that fails either never
   * reaches whoever reads the decoder whole (payload-verifier.ts does the same for a plain body).
   */
  readonly check?: PayloadCheck;
}

type DecoderState = 'size-line' | 'data' | 'data-crlf' | 'trailer-line' | 'done' | 'failed';

const CR = 0x0d;
const LF = 0x0a;
/** `<hex>` optionally followed by `;extensions` (chunk-signature=... in the signed forms; ignored here). */
const SIZE_LINE = /^([0-9A-Fa-f]+)(?:;.*)?$/;
const TRAILER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$/;
/** 2^53 - 1 needs 14 hex digits; anything longer cannot be an exact size. */
const MAX_SIZE_HEX_DIGITS = 14;
/** Sent by the signed-trailer form; meaningless for the unsigned form, so never required or kept. */
const TRAILER_SIGNATURE = 'x-amz-trailer-signature';
/** Enough for a size line with a chunk signature and for a checksum trailer. */
const FIRST_LINE_BYTES = 128;
const EMPTY_LINE = Buffer.alloc(0);

export class AwsChunkedDecoder extends Transform {
  private state: DecoderState = 'size-line';
  /** The framing line read so far; grown as a line needs it, up to the longest accepted. */
  private line: Buffer = EMPTY_LINE;
  private lineLength = 0;
  /** Data bytes still expected in the current chunk. */
  private remaining = 0;
  /** Bytes of the CRLF after chunk data seen so far (0 or 1). */
  private crlfSeen = 0;
  private decoded = 0;
  private readonly parsedTrailers = new Map<string, string>();
  private readonly options: AwsChunkedDecoderOptions;
  private readonly maxLineBytes: number;

  constructor(options: AwsChunkedDecoderOptions = {}) {
    super();
    this.options = options;
    this.maxLineBytes = options.maxLineBytes ?? 4096;
  }

  /** Trailer fields received (lower-case names); complete once the stream has ended. */
  get trailers(): ReadonlyMap<string, string> {
    return this.parsedTrailers;
  }

  /** Decoded data bytes emitted so far. */
  get decodedLength(): number {
    return this.decoded;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const error = this.consume(chunk);
    if (error === undefined) {
      callback();
    } else {
      this.state = 'failed';
      callback(new S3Error(error));
    }
  }

  override _flush(callback: TransformCallback): void {
    const error = this.finish();
    if (error !== undefined) callback(new S3Error(error));
    else if (this.options.check === undefined) callback();
    else this.options.check.release(this, callback);
  }

  private consume(chunk: Buffer): S3ErrorKey | undefined {
    let offset = 0;
    while (offset < chunk.length) {
      switch (this.state) {
        case 'size-line':
        case 'trailer-line': {
          const lineEnd = this.collectLine(chunk, offset);
          if (typeof lineEnd === 'string') return lineEnd;
          offset = lineEnd;
          if (this.lineLength > 0 && this.line[this.lineLength - 1] === LF) {
            const error = this.state === 'size-line' ? this.onSizeLine() : this.onTrailerLine();
            this.lineLength = 0;
            if (error !== undefined) return error;
          }
          break;
        }
        case 'data': {
          const take = Math.min(this.remaining, chunk.length - offset);
          const error = this.passOn(chunk.subarray(offset, offset + take));
          if (error !== undefined) return error;
          offset += take;
          this.remaining -= take;
          this.decoded += take;
          if (this.remaining === 0) {
            this.state = 'data-crlf';
            this.crlfSeen = 0;
          }
          break;
        }
        case 'data-crlf': {
          const expected = this.crlfSeen === 0 ? CR : LF;
          if (chunk[offset] !== expected) return 'InvalidChunkedEncoding';
          offset += 1;
          this.crlfSeen += 1;
          if (this.crlfSeen === 2) this.state = 'size-line';
          break;
        }
        case 'done':
          // Nothing may follow the blank line that ends the trailer section.
          return 'InvalidChunkedEncoding';
        case 'failed':
          return 'InvalidChunkedEncoding';
      }
    }
    return undefined;
  }

  /** Passes decoded bytes on; with a check, through it (the latest are held back). */
  private passOn(data: Buffer): S3ErrorKey | undefined {
    if (this.options.check !== undefined) return this.options.check.take(this, data);
    this.push(data);
    return undefined;
  }

  /**
   * Copies bytes into the line buffer up to and including the next LF. Returns the offset
   * after what was consumed, or an error when the line outgrows its cap.
   */
  private collectLine(chunk: Buffer, offset: number): number | S3ErrorKey {
    const newline = chunk.indexOf(LF, offset);
    const end = newline === -1 ? chunk.length : newline + 1;
    const needed = this.lineLength + (end - offset);
    // Room for the longest accepted line plus its CRLF.
    const cap = this.maxLineBytes + 2;
    if (needed > cap) return 'InvalidChunkedEncoding';
    if (needed > this.line.length) {
      // Framing lines are tens of bytes: a small pooled buffer, not a cap-sized one per request,
      // whose backing store would wait in old space for a full collection (RSS under load).
      const grown = Buffer.allocUnsafe(
        Math.min(cap, Math.max(needed, this.line.length * 2, FIRST_LINE_BYTES)),
      );
      this.line.copy(grown, 0, 0, this.lineLength);
      this.line = grown;
    }
    chunk.copy(this.line, this.lineLength, offset, end);
    this.lineLength += end - offset;
    return end;
  }

  /** The completed line without its CRLF, or undefined when it ended in a bare LF. */
  private completedLine(): string | undefined {
    if (this.lineLength < 2 || this.line[this.lineLength - 2] !== CR) return undefined;
    return this.line.toString('latin1', 0, this.lineLength - 2);
  }

  private onSizeLine(): S3ErrorKey | undefined {
    const text = this.completedLine();
    const match = text === undefined ? null : SIZE_LINE.exec(text);
    const hex = match?.[1]?.replace(/^0+(?=.)/, '');
    if (hex === undefined || hex.length > MAX_SIZE_HEX_DIGITS) return 'InvalidChunkedEncoding';
    const size = Number.parseInt(hex, 16);
    if (!Number.isSafeInteger(size) || !Number.isSafeInteger(this.decoded + size))
      return 'InvalidChunkedEncoding';
    const declared = this.options.decodedContentLength;
    // Refuse as soon as the framing promises more than the declared length.
    if (declared !== undefined && this.decoded + size > declared) return 'InvalidChunkedEncoding';
    if (size === 0) {
      this.state = 'trailer-line';
    } else {
      this.remaining = size;
      this.state = 'data';
    }
    return undefined;
  }

  private onTrailerLine(): S3ErrorKey | undefined {
    const text = this.completedLine();
    if (text === undefined) return 'InvalidChunkedEncoding';
    if (text === '') {
      this.state = 'done';
      return undefined;
    }
    const match = TRAILER_LINE.exec(text);
    if (match === null) return 'InvalidChunkedEncoding';
    const name = (match[1] ?? '').toLowerCase();
    const value = (match[2] ?? '').trim();
    if (name === TRAILER_SIGNATURE) return undefined;
    if (this.parsedTrailers.has(name)) return 'InvalidChunkedEncoding';
    if (this.parsedTrailers.size >= (this.options.maxTrailers ?? 16)) return 'InvalidChunkedEncoding';
    this.parsedTrailers.set(name, value);
    return undefined;
  }

  private finish(): S3ErrorKey | undefined {
    if (this.state === 'failed') return 'InvalidChunkedEncoding';
    // Some clients end after the last trailer line without the closing blank line; the
    // trailers are complete by then, so that is accepted. A half-received line is not.
    const ended = this.state === 'done' || (this.state === 'trailer-line' && this.lineLength === 0);
    if (!ended) return 'IncompleteBody';
    const declared = this.options.decodedContentLength;
    if (declared !== undefined && this.decoded !== declared) return 'IncompleteBody';
    for (const name of this.options.expectedTrailers ?? []) {
      if (!this.parsedTrailers.has(name.toLowerCase())) return 'MissingTrailer';
    }
    return undefined;
  }
}
