/**
 * The file of a form upload on its way to the store: the bytes after the form's head, exactly the
 * file's length, with its last byte held back until the closing delimiter that must follow it has
 * arrived intact. A form that ends otherwise (cut off, or not where its Content-Length said) fails
 * before the store has the whole object, so the store keeps nothing.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { S3Error } from '../../protocol/errors.js';
import { watchUploadBody } from '../body-idle.js';
import type { Exchange } from '../exchange.js';
import type { FormHead } from '../steps/form-fields.js';
import { ClientDisconnected, type UploadBody } from './body.js';

/** Passes `fileLength` bytes on, holding back the last one with the closing delimiter until the end. */
export class FileTailCheck extends Transform {
  readonly #closing: Buffer;
  #remaining: number;
  #held: Buffer = Buffer.alloc(0);

  constructor(fileLength: number, closing: Buffer) {
    super();
    this.#remaining = fileLength;
    this.#closing = closing;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const keep = Math.min(data.length, this.#closing.length + 1);
    const release = data.subarray(0, data.length - keep);
    this.#held = Buffer.from(data.subarray(data.length - keep));
    if (release.length > this.#remaining) {
      done(new S3Error('MalformedPOSTRequest'));
      return;
    }
    this.#remaining -= release.length;
    if (release.length > 0) this.push(release);
    done();
  }

  override _flush(done: TransformCallback): void {
    const split = this.#held.length - this.#closing.length;
    if (split < 0 || split !== this.#remaining || !this.#held.subarray(split).equals(this.#closing)) {
      done(new S3Error('MalformedPOSTRequest'));
      return;
    }
    if (split > 0) this.push(this.#held.subarray(0, split));
    done();
  }
}

export class FormFileStream implements UploadBody {
  readonly output: FileTailCheck;
  #failure: Error | null = null;
  #onFailure: ((error: Error) => void) | null = null;
  readonly #exchange: Exchange;

  constructor(exchange: Exchange, head: FormHead) {
    this.#exchange = exchange;
    const { request } = exchange;
    this.output = new FileTailCheck(head.fileLength, head.closing);
    this.output.once('error', (error) => this.#fail(error));
    watchUploadBody(exchange, (error) => this.#fail(error));
    request.on('data', (chunk: Buffer) => {
      exchange.bytesIn += chunk.length;
    });
    request.once('close', () => {
      if (!request.complete) this.#fail(new ClientDisconnected());
    });
    if (head.rest.length > 0) this.output.write(head.rest);
    request.pipe(this.output);
  }

  get failure(): Error | null {
    return this.#failure;
  }

  onFailure(listener: (error: Error) => void): void {
    if (this.#failure !== null) listener(this.#failure);
    else this.#onFailure = listener;
  }

  abort(): void {
    this.#exchange.request.unpipe();
    if (!this.output.destroyed) this.output.destroy();
  }

  #fail(error: Error): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#exchange.request.unpipe();
    if (!this.output.destroyed) this.output.destroy(error);
    const listener = this.#onFailure;
    this.#onFailure = null;
    listener?.(error);
  }
}
