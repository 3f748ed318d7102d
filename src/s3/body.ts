/**
 * The request body on its way to the backend. The SigV4 library plans how to decode (aws-chunked)
 * and verify it (payload SHA-256, x-amz-checksum-*, Content-MD5); this module wires the client's
 * stream through that plan without buffering it whole, counts bytes in, and reports a failure
 * once, so the proxy can destroy the upstream request before the held-back tail is sent.
 */
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { S3Error, type S3ErrorKey } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { allowBody } from './exchange.js';
import { headerValue, type HeaderMap } from './request-headers.js';
import { createBodyPipeline, isChecksumValueHeader, type BodyPipeline } from './sigv4/index.js';

/** True when the request announces a body: a non-zero Content-Length, or a chunked transfer. */
export function announcesBody(headers: HeaderMap): boolean {
  const length = headerValue(headers, 'content-length');
  if (length !== undefined) return length.trim() !== '0';
  return headerValue(headers, 'transfer-encoding') !== undefined;
}

export interface BodyPlanOptions {
  /** The payload hash the signature covered; undefined for anonymous requests. */
  readonly payloadHash: string | undefined;
  /**
   * CompleteMultipartUpload's x-amz-checksum-* headers are the whole object's checksum, not the
   * XML body's, so they must not be checked against the body.
   */
  readonly checksumHeadersDescribeObject?: boolean;
}

/** Decides decoding and verification up front; refusals that need no body are thrown here. */
export function planBody(headers: HeaderMap, options: BodyPlanOptions): BodyPipeline {
  const checked = options.checksumHeadersDescribeObject
    ? Object.fromEntries(Object.entries(headers).filter(([name]) => !isChecksumValueHeader(name)))
    : headers;
  const plan = createBodyPipeline(
    checked,
    options.payloadHash === undefined ? {} : { payloadHash: options.payloadHash },
  );
  if (!plan.ok) throw new S3Error(plan.error);
  return plan;
}

class ClientDisconnected extends Error {
  constructor() {
    super('client disconnected before the request body ended');
    this.name = 'ClientDisconnected';
  }
}

/** A body on its way to the backend, as the proxy sees it. */
export interface ForwardBody {
  readonly output: Readable;
  /** Set once the body failed (verification, framing, client gone); the upstream request must not complete. */
  readonly failure: Error | null;
  onFailure(listener: (error: Error) => void): void;
  /** Stops reading the client's body (the answer no longer depends on it). */
  abort(): void;
}

/** A body already read and verified whole (CompleteMultipartUpload's XML). */
export function bufferedBody(bytes: Buffer): ForwardBody {
  return {
    output: Readable.from([bytes]),
    failure: null,
    onFailure: () => undefined,
    abort: () => undefined,
  };
}

/** The client's body running through the plan's transforms; fails at most once. */
export class BodyStream implements ForwardBody {
  /** What the backend receives: decoded, and verified before its last bytes leave. */
  readonly output: Readable;
  #failure: Error | null = null;
  readonly #listeners: ((error: Error) => void)[] = [];
  readonly #exchange: S3Exchange;
  readonly #source: Transform;

  constructor(exchange: S3Exchange, plan: BodyPipeline) {
    this.#exchange = exchange;
    const { request } = exchange;
    this.#source = new Transform({
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        exchange.bytesIn += chunk.length;
        callback(null, chunk);
      },
    });
    allowBody(exchange);
    request.pipe(this.#source);
    // Piping does not forward a client's disconnect; without this the upstream request would wait.
    request.once('close', () => {
      if (!request.complete) this.#source.destroy(new ClientDisconnected());
    });
    const last = plan.transforms.at(-1);
    if (last === undefined) {
      this.#source.once('error', (error) => this.#fail(error));
      this.output = this.#source;
    } else {
      pipeline([this.#source, ...plan.transforms], (error) => {
        if (error) this.#fail(error);
      });
      this.output = last;
    }
  }

  get failure(): Error | null {
    return this.#failure;
  }

  onFailure(listener: (error: Error) => void): void {
    if (this.#failure !== null) listener(this.#failure);
    else this.#listeners.push(listener);
  }

  abort(): void {
    this.#exchange.request.unpipe(this.#source);
    if (!this.#source.destroyed) this.#source.destroy();
  }

  #fail(error: Error): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#exchange.request.unpipe(this.#source);
    for (const listener of this.#listeners.splice(0)) listener(error);
  }
}

/** The S3 error to answer for a failed body: the verifier's own, or a generic one. */
export function bodyFailureError(error: Error): S3Error {
  if (error instanceof S3Error) return error;
  return new S3Error(error instanceof ClientDisconnected ? 'IncompleteBody' : 'InternalError');
}

/**
 * Reads a small body whole (CompleteMultipartUpload, an ACL), verified by the plan. Bodies over
 * `maxBytes` are refused with `tooLarge` without reading on.
 */
export function readBody(
  exchange: S3Exchange,
  plan: BodyPipeline,
  maxBytes: number,
  tooLarge: S3ErrorKey,
): Promise<Buffer> {
  const body = new BodyStream(exchange, plan);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: S3Error | null) => {
      if (settled) return;
      settled = true;
      if (error === null) resolve(Buffer.concat(chunks));
      else reject(error);
    };
    body.onFailure((error) => finish(bodyFailureError(error)));
    body.output.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        body.abort();
        finish(new S3Error(tooLarge));
        return;
      }
      chunks.push(chunk);
    });
    body.output.once('end', () => finish(null));
  });
}
