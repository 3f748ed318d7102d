/**
 * Forwards a verified request to the object store and streams the answer back to the client,
 * through the backend connection's pool (undici). The store's answer is relayed as outcome.ts
 * says; a body that fails verification aborts the upstream request before its held-back tail
 * leaves, so the backend stores nothing, and the client hears the verification error instead.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { BackendConnection } from '../../backend/connection.js';
import type { BackendRequestSpec } from '../../backend/signer.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { S3Error } from '../../protocol/errors.js';
import type { Exchange } from '../exchange.js';
import { sendError, writeHead } from '../respond.js';
import { bodyFailureError, type UploadBody } from './body.js';
import {
  backendFailure,
  clientResponseHeaders,
  errorForBareStatus,
  finishWithDocument,
  isXmlAnswer,
  recordStoreAnswer,
  relayedXmlAnswer,
  statusLabel,
} from './outcome.js';

/**
 * Backend error documents are small; an error answer larger than this is no S3 error document and
 * becomes the catalogue's entry for its status, so the store's HostId and request id never pass.
 */
const MAX_ERROR_DOCUMENT_BYTES = 256 * 1024;

export interface Forwarded {
  readonly spec: BackendRequestSpec;
  /** The verified body stream, a body read whole, or null when the request has none. */
  readonly body: UploadBody | Buffer | null;
  /** Headers to add to a successful answer, computed when it arrives (a checksum verified here). */
  readonly successHeaders?: () => http.OutgoingHttpHeaders;
  /**
   * The client's answer to the store's success, in place of relaying it (a form upload answers
   * as S3 answers a form, not as it answers the PutObject the gateway sent).
   */
  readonly successAnswer?: (storeHeaders: Readonly<Record<string, string | string[] | undefined>>) => {
    readonly status: number;
    readonly headers: http.OutgoingHttpHeaders;
    readonly body: string;
  };
  /**
   * Runs once the store's status is known, before the client hears anything: what the write
   * changed is recorded (storage quotas) before the client can send its next request. Must not
   * reject. The store's answer waits for the promise it returns; one that returns nothing only
   * learns the status (an upload recorded after the answer), and nothing waits.
   */
  readonly beforeAnswer?: StoreStatusHook;
}

/** Learns the store's status before the client's answer; the answer waits for a promise it returns. */
export type StoreStatusHook = (status: number) => Promise<void> | undefined;

/** What forwarding needs of the process around it. */
export class Upstream {
  constructor(
    readonly connection: BackendConnection,
    readonly metrics: GatewayMetrics,
    readonly logger: Logger,
  ) {}

  /** Resolves once the client's response is over (answered, failed or abandoned). */
  forward(exchange: Exchange, forwarded: Forwarded): Promise<void> {
    return new Promise((resolve) => {
      const handler = new ForwardHandler(this, exchange, forwarded, resolve);
      const body = forwarded.body;
      this.connection.dispatch(
        forwarded.spec,
        body === null || Buffer.isBuffer(body) ? body : body.output,
        handler,
      );
    });
  }
}

type Mode = 'waiting' | 'stream' | 'error-document' | 'discard' | 'settled';

/** One forwarded request: undici's handler for the store's answer, writing the client's. */
class ForwardHandler implements Dispatcher.DispatchHandler {
  #mode: Mode = 'waiting';
  #controller: Dispatcher.DispatchController | null = null;
  #status = 0;
  #headers: http.OutgoingHttpHeaders = {};
  #document: Buffer[] = [];
  #documentBytes = 0;
  /** While `beforeAnswer` runs: what the store sent meanwhile, replayed once it is done. */
  #deferred: (() => void)[] | null = null;
  readonly #startedAt = performance.now();

  constructor(
    readonly upstream: Upstream,
    readonly exchange: Exchange,
    readonly forwarded: Forwarded,
    readonly done: () => void,
  ) {
    const { response } = exchange;
    // A client that hung up: the upstream request goes too.
    response.once('close', () => {
      if (this.#mode !== 'settled' && this.#mode !== 'discard') this.#abort(new Error('client went away'));
      this.#settle();
    });
    const body = forwarded.body;
    if (body !== null && !Buffer.isBuffer(body)) body.onFailure((error) => this.#abort(error));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    const body = this.forwarded.body;
    const failure = body !== null && !Buffer.isBuffer(body) ? body.failure : null;
    if (failure !== null) controller.abort(failure);
    else if (this.exchange.response.destroyed) controller.abort(new Error('client went away'));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    recordStoreAnswer(this.exchange, this.upstream.metrics, status, this.#startedAt);
    const waitFor = this.forwarded.beforeAnswer?.(status);
    if (waitFor === undefined) {
      this.#answer(controller, status, headers);
      return;
    }
    this.#deferred = [];
    controller.pause();
    void waitFor.then(() => {
      const deferred = this.#deferred ?? [];
      this.#deferred = null;
      this.#answer(controller, status, headers);
      for (const replay of deferred) replay();
      controller.resume();
    });
  }

  /** The client's answer to the store's status and headers. */
  #answer(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const { exchange } = this;
    if (this.#mode !== 'waiting' || exchange.response.headersSent || exchange.response.destroyed) {
      this.#mode = 'discard';
      return;
    }
    this.#status = status;
    this.#headers = clientResponseHeaders(headers);
    const declared = Number(headers['content-length'] ?? Number.NaN);
    const readable = isXmlAnswer(headers) && !(declared > MAX_ERROR_DOCUMENT_BYTES);
    if (status >= 300 && exchange.method !== 'HEAD' && readable) {
      this.#mode = 'error-document';
      return;
    }
    const bare = readable ? null : errorForBareStatus(status, exchange.method, exchange.key !== '');
    if (bare !== null) {
      this.#mode = 'discard';
      this.#answerBareError(bare, { contentType: headers['content-type'], bytes: declared });
      // A small body is read and dropped, which keeps the store's connection for reuse.
      if (declared > MAX_ERROR_DOCUMENT_BYTES) controller.abort(new Error('backend error answer too large'));
      return;
    }
    exchange.errorCode = statusLabel(status);
    const replacement = status < 300 ? this.forwarded.successAnswer?.(headers) : undefined;
    if (replacement !== undefined) {
      this.#mode = 'discard';
      finishWithDocument(exchange, replacement.status, { ...replacement.headers }, replacement.body);
      return;
    }
    const extra = status < 300 ? this.forwarded.successHeaders?.() : undefined;
    if (extra !== undefined) Object.assign(this.#headers, extra);
    this.#mode = 'stream';
    writeHead(exchange, status, this.#headers);
    exchange.response.on('drain', () => controller.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#deferred !== null) {
      this.#deferred.push(() => this.onResponseData(controller, chunk));
      return;
    }
    if (this.#mode === 'stream') {
      this.exchange.bytesOut += chunk.length;
      if (!this.exchange.response.write(chunk)) controller.pause();
    } else if (this.#mode === 'error-document') {
      this.#documentBytes += chunk.length;
      if (this.#documentBytes <= MAX_ERROR_DOCUMENT_BYTES) {
        this.#document.push(chunk);
        return;
      }
      // Only a chunked answer can get here unannounced; no error document is this large.
      const { exchange } = this;
      const bare = errorForBareStatus(this.#status, exchange.method, exchange.key !== '');
      if (bare === null) {
        controller.abort(new Error('backend error document too large'));
        return;
      }
      this.#mode = 'discard';
      this.#document = [];
      this.#answerBareError(bare, { contentType: this.#headers['content-type'], bytes: this.#documentBytes });
      controller.abort(new Error('backend error document too large'));
    }
  }

  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Record<string, string | string[]>,
  ): void {
    if (this.#deferred !== null) {
      this.#deferred.push(() => this.onResponseEnd(controller, trailers));
      return;
    }
    const { exchange } = this;
    if (this.#mode === 'stream') {
      exchange.response.end();
    } else if (this.#mode === 'error-document') {
      const document = relayedXmlAnswer(
        Buffer.concat(this.#document).toString('utf8'),
        exchange.id,
        this.#status,
        exchange.method,
        exchange.key !== '',
      );
      if (typeof document !== 'string') {
        this.#mode = 'settled';
        this.#answerBareError(document, {
          contentType: this.#headers['content-type'],
          bytes: this.#documentBytes,
        });
        this.#settle();
        return;
      }
      finishWithDocument(exchange, this.#status, this.#headers, document);
    }
    this.#mode = 'settled';
    this.#settle();
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#deferred !== null) {
      this.#deferred.push(() => this.onResponseError(controller, error));
      return;
    }
    const { exchange } = this;
    const mode = this.#mode;
    this.#mode = 'settled';
    if (mode === 'settled' || mode === 'discard') {
      this.#settle();
      return;
    }
    const { response, request } = exchange;
    if (response.headersSent) {
      // The answer is under way: a truncated response is all that is left to say.
      response.destroy();
    } else if (!response.destroyed) {
      const body = this.forwarded.body;
      const failure = body !== null && !Buffer.isBuffer(body) ? body.failure : null;
      if (failure !== null) sendError(exchange, bodyFailureError(failure));
      else if (!(request.destroyed && !request.complete)) {
        if (body !== null && !Buffer.isBuffer(body)) body.abort();
        sendError(exchange, backendFailure(exchange, this.upstream, error));
      }
    }
    this.#settle();
  }

  /** The catalogue's answer to a store's error that came without a usable S3 error document. */
  #answerBareError(error: S3Error, answer: { contentType: unknown; bytes: number }): void {
    const { exchange, upstream } = this;
    upstream.logger.warn(
      { requestId: exchange.id, status: this.#status, ...answer },
      'object store answered an error without an S3 error document',
    );
    const body = this.forwarded.body;
    if (body !== null && !Buffer.isBuffer(body)) body.abort();
    sendError(this.exchange, error);
  }

  #abort(reason: Error): void {
    if (this.#mode === 'settled') return;
    this.#controller?.abort(reason);
  }

  #settle(): void {
    if (this.#mode !== 'settled' && this.#mode !== 'discard') return;
    this.done();
  }
}
