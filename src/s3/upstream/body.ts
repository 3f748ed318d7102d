/**
 * The request body on its way to the backend. The SigV4 plan says how to decode (aws-chunked) and
 * verify it (payload SHA-256, x-amz-checksum-*, Content-MD5); this module wires the client's
 * stream through that plan without buffering it whole, counts bytes in, and reports a failure
 * once, so the upstream request can be destroyed before the held-back tail is sent and the backend
 * stores nothing.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { S3Error, type S3ErrorKey } from '../../protocol/errors.js';
import { openBody, type BodyPlan } from '../../sigv4/body-plan.js';
import type { VerifiedChecksum } from '../../sigv4/payload-verifier.js';
import { watchUploadBody } from '../body-idle.js';
import type { Exchange } from '../exchange.js';

/** True when the request announces a body: a non-zero Content-Length, or a chunked transfer. */
export function announcesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return headers['transfer-encoding'] !== undefined;
}

export class ClientDisconnected extends Error {
  constructor() {
    super('client disconnected before the request body ended');
    this.name = 'ClientDisconnected';
  }
}

/**
 * A request body on its way upstream: what the backend reads, and a failure reported once, so
 * the upstream request is destroyed before the body's held-back tail leaves.
 */
export interface UploadBody {
  readonly output: Readable;
  readonly failure: Error | null;
  onFailure(listener: (error: Error) => void): void;
  /** Stops reading the client's body (the answer no longer depends on it). */
  abort(): void;
}

/** The client's body running through the plan's decoder and verifier; fails at most once. */
export class BodyStream implements UploadBody {
  /** What the backend receives: decoded, and verified before its last bytes leave. */
  readonly output: Readable;
  #failure: Error | null = null;
  #onFailure: ((error: Error) => void) | null = null;
  readonly #exchange: Exchange;
  readonly #verifiedChecksum: () => VerifiedChecksum | undefined;

  constructor(exchange: Exchange, plan: BodyPlan) {
    this.#exchange = exchange;
    const { request } = exchange;
    const verification = openBody(plan);
    this.#verifiedChecksum = () => verification.verifiedChecksum;
    exchange.allowBody();
    watchUploadBody(exchange, (error) => this.#fail(error));
    request.on('data', (chunk: Buffer) => {
      exchange.bytesIn += chunk.length;
    });
    // A client that goes away mid-body: the upstream request must not complete.
    request.once('close', () => {
      if (!request.complete) this.#fail(new ClientDisconnected());
    });
    const { stream } = verification;
    if (stream === null) {
      // Counting set the client's stream flowing; a body read directly waits for its reader.
      request.pause();
      this.output = request;
    } else {
      request.pipe(stream);
      stream.once('error', (error) => this.#fail(error));
      this.output = stream;
    }
  }

  get failure(): Error | null {
    return this.#failure;
  }

  /** The one listener told of the failure (at once when it happened already). */
  onFailure(listener: (error: Error) => void): void {
    if (this.#failure !== null) listener(this.#failure);
    else this.#onFailure = listener;
  }

  /** The trailer checksum the body was verified against, once it was read to its end. */
  get verifiedChecksum(): VerifiedChecksum | undefined {
    return this.#verifiedChecksum();
  }

  /** Stops reading the client's body (the answer no longer depends on it). */
  abort(): void {
    const { request } = this.#exchange;
    request.unpipe();
    if (this.output !== request && !this.output.destroyed) this.output.destroy();
  }

  #fail(error: Error): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#exchange.request.unpipe();
    // Whoever reads the output (the upstream request) must see the failure, wherever it arose.
    if (this.output !== this.#exchange.request && !this.output.destroyed) this.output.destroy(error);
    const listener = this.#onFailure;
    this.#onFailure = null;
    listener?.(error);
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
  exchange: Exchange,
  plan: BodyPlan,
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
    body.output.resume();
  });
}
