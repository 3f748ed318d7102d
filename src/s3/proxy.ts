/**
 * Forwards a verified request to the object store with http-proxy-3 and streams the answer back.
 *
 * - Re-signed headers and the already-encoded target replace the client's before the proxy
 *   copies them (`toProxy` keeps the target byte for byte: no URL parsing, no dot-segment
 *   normalisation); `Expect` is never forwarded, so the proxy's `proxyReq` event always fires.
 * - The body arrives through `buffer` (the decoder/verifier output). When verification fails the
 *   upstream request is destroyed before its last bytes leave, so the backend stores nothing,
 *   and the client hears the verification error instead.
 * - An unreachable, refusing or silent backend (`backend.timeoutSeconds`) is 503
 *   ServiceUnavailable; backend error answers become S3 error documents with the gateway's
 *   request id (backend-answers.ts).
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { createProxyServer, type ProxyServer } from 'http-proxy-3';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import {
  errorCodeOf,
  errorForBareStatus,
  isXmlAnswer,
  statusLabel,
  withRequestId,
} from './backend-answers.js';
import type { BackendAgent, BackendFailureKind } from '../backend/connection.js';
import type { BackendRequestSpec, BackendSigner } from '../backend/signer.js';
import { bodyFailureError, type ForwardBody } from './body.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { clientResponseHeaders } from './forward-headers.js';
import { countBytesOut, sendError, writeHead } from './respond.js';

/** Backend error documents are small; anything larger is streamed through unchanged. */
const MAX_ERROR_DOCUMENT_BYTES = 256 * 1024;

export interface ForwardInstructions {
  readonly spec: BackendRequestSpec;
  /** The verified body; null when the request has none. */
  readonly body: ForwardBody | null;
  /** Headers to add to a successful answer, computed when it arrives (a checksum verified here). */
  readonly successHeaders?: () => Record<string, string>;
}

export interface ProxySettings {
  readonly endpoint: URL;
  readonly agent: BackendAgent;
  readonly signer: BackendSigner;
  readonly timeoutMs: number;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
}

/** One forwarded request's progress. */
class Forwarding {
  proxyRequest: http.ClientRequest | null = null;
  timedOut = false;
  settled = false;
  readonly startedAt = performance.now();

  constructor(
    readonly exchange: S3Exchange,
    readonly instructions: ForwardInstructions,
  ) {}
}

function failureKind(forwarding: Forwarding, error: NodeJS.ErrnoException): BackendFailureKind {
  if (forwarding.timedOut || error.code === 'ECONNECT_TIMEOUT' || error.code === 'ETIMEDOUT')
    return 'timeout';
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(error.code ?? '')) {
    return 'unreachable';
  }
  return 'reset';
}

export class BackendProxy {
  readonly #settings: ProxySettings;
  readonly #server: ProxyServer;
  readonly #forwardings = new WeakMap<http.IncomingMessage, Forwarding>();

  constructor(settings: ProxySettings) {
    this.#settings = settings;
    this.#server = createProxyServer({
      agent: settings.agent,
      selfHandleResponse: true,
      toProxy: true,
      prependPath: false,
      proxyTimeout: settings.timeoutMs,
      connectTimeout: settings.timeoutMs,
    });
    this.#server.on('proxyReq', (proxyRequest, request) => {
      const forwarding = this.#forwardings.get(request);
      if (forwarding !== undefined) this.#attach(forwarding, proxyRequest);
    });
    this.#server.on('proxyRes', (backendResponse, request) => {
      const forwarding = this.#forwardings.get(request);
      if (forwarding !== undefined) this.#answer(forwarding, backendResponse);
      else backendResponse.resume();
    });
    // A client that reset its connection: the proxy destroys the upstream request itself.
    this.#server.on('econnreset', (_error, request) => {
      const forwarding = this.#forwardings.get(request);
      if (forwarding !== undefined) forwarding.settled = true;
    });
    this.#server.on('error', (error) => settings.logger.warn({ err: error }, 'backend proxy error'));
  }

  /** Resolves once the client's response is over (answered, failed or abandoned). */
  async forward(exchange: S3Exchange, instructions: ForwardInstructions): Promise<void> {
    const signed = await this.#settings.signer.sign(instructions.spec);
    const { request, response } = exchange;
    const forwarding = new Forwarding(exchange, instructions);
    this.#forwardings.set(request, forwarding);
    instructions.body?.onFailure(() => forwarding.proxyRequest?.destroy());

    const finished = new Promise<void>((resolve) => {
      if (response.destroyed) resolve();
      else response.once('close', resolve);
    });
    // http-proxy-3 builds the upstream request from these; the exchange keeps the originals.
    request.url = signed.target;
    request.headers = signed.headers;
    this.#server.web(
      request,
      response,
      {
        target: this.#settings.endpoint,
        buffer: instructions.body?.output ?? Readable.from([]),
      },
      (error) => this.#fail(forwarding, error as NodeJS.ErrnoException),
    );
    return finished;
  }

  #attach(forwarding: Forwarding, proxyRequest: http.ClientRequest): void {
    forwarding.proxyRequest = proxyRequest;
    proxyRequest.once('timeout', () => {
      forwarding.timedOut = true;
    });
    const body = forwarding.instructions.body;
    if (body === null) return;
    // A body that failed before the upstream request had a socket: never let it complete.
    if (body.failure !== null) {
      proxyRequest.destroy();
      return;
    }
    const streams = this.#settings.metrics.s3InFlightStreams;
    streams.inc();
    let counted = true;
    const release = () => {
      if (counted) streams.dec();
      counted = false;
    };
    body.output.once('end', release);
    body.output.once('close', release);
    proxyRequest.once('close', release);
  }

  #fail(forwarding: Forwarding, error: NodeJS.ErrnoException): void {
    const { exchange } = forwarding;
    forwarding.proxyRequest?.destroy();
    if (forwarding.settled) return;
    forwarding.settled = true;
    const body = forwarding.instructions.body;
    if (exchange.response.headersSent) {
      // The answer is under way: a truncated response is all that is left to say.
      exchange.response.destroy();
      return;
    }
    if (body?.failure != null) {
      sendError(exchange, bodyFailureError(body.failure));
      return;
    }
    body?.abort();
    if (exchange.response.destroyed || (exchange.request.destroyed && !exchange.request.complete)) return;
    const kind = failureKind(forwarding, error);
    this.#settings.metrics.backendErrors.inc({ kind });
    this.#settings.logger.warn(
      { requestId: exchange.id, kind, code: error.code, message: error.message },
      'object store did not answer',
    );
    sendError(exchange, new S3Error('ServiceUnavailable'));
  }

  #answer(forwarding: Forwarding, backendResponse: http.IncomingMessage): void {
    const { exchange } = forwarding;
    const status = backendResponse.statusCode ?? 502;
    this.#settings.metrics.backendDuration.observe(
      { operation: exchange.operation },
      (performance.now() - forwarding.startedAt) / 1000,
    );
    if (status >= 500) this.#settings.metrics.backendErrors.inc({ kind: '5xx' });
    // A client that hung up has nowhere to take the answer; piping into its closed response would throw.
    if (forwarding.settled || exchange.response.headersSent || exchange.response.destroyed) {
      backendResponse.resume();
      return;
    }
    forwarding.settled = true;
    const headers = clientResponseHeaders(backendResponse.headers);
    const declaredLength = Number(backendResponse.headers['content-length'] ?? Number.NaN);
    const xml = isXmlAnswer(backendResponse.headers);
    if (status >= 300 && exchange.method !== 'HEAD' && xml && !(declaredLength > MAX_ERROR_DOCUMENT_BYTES)) {
      this.#relayErrorDocument(exchange, status, headers, backendResponse);
      return;
    }
    const bare = xml ? null : errorForBareStatus(status, exchange.method, exchange.address?.key !== '');
    if (bare !== null) {
      backendResponse.resume();
      this.#settings.logger.warn(
        { requestId: exchange.id, status, contentType: backendResponse.headers['content-type'] },
        'object store answered an error without an S3 error document',
      );
      sendError(exchange, bare);
      return;
    }
    exchange.errorCode = statusLabel(status);
    const extra = status < 300 ? (forwarding.instructions.successHeaders?.() ?? {}) : {};
    writeHead(exchange, status, { ...headers, ...extra });
    this.#stream(exchange, backendResponse);
  }

  /** Streams a backend body to the client, counted, cut short if either side goes away. */
  #stream(exchange: S3Exchange, backendResponse: http.IncomingMessage): void {
    const streams = this.#settings.metrics.s3InFlightStreams;
    streams.inc();
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        countBytesOut(exchange, chunk.length);
        callback(null, chunk);
      },
    });
    pipeline(backendResponse, counter, exchange.response, () => streams.dec());
  }

  /** A backend error document, with the gateway's request id in place of the backend's. */
  #relayErrorDocument(
    exchange: S3Exchange,
    status: number,
    headers: http.OutgoingHttpHeaders,
    backendResponse: http.IncomingMessage,
  ): void {
    const chunks: Buffer[] = [];
    let size = 0;
    backendResponse.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Only a chunked answer can get here unannounced; no error document is this large.
      if (size > MAX_ERROR_DOCUMENT_BYTES)
        backendResponse.destroy(new Error('backend error document too large'));
      else chunks.push(chunk);
    });
    backendResponse.once('error', () => exchange.response.destroy());
    backendResponse.once('end', () => {
      const document = withRequestId(Buffer.concat(chunks).toString('utf8'), exchange.id);
      exchange.errorCode = errorCodeOf(document) ?? statusLabel(status);
      const body = Buffer.from(document, 'utf8');
      writeHead(exchange, status, { ...headers, 'content-length': body.length });
      exchange.response.end(body);
      countBytesOut(exchange, body.length);
    });
  }
}
