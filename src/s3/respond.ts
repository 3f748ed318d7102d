/**
 * Every response the gateway writes goes through here, so each one carries the request id and
 * the bucket's CORS headers, and each one is measured (time to first byte, bytes out).
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { renderS3Error, type S3Error } from '../protocol/errors.js';
import { errorResource } from '../protocol/paths.js';
import type { Exchange } from './exchange.js';

/**
 * How much of a refused request's body is read and thrown away, and for how long, so the client
 * can finish sending and read the answer; past either the connection is cut.
 */
const DRAIN_LIMIT_BYTES = 4 * 1024 * 1024;
const DRAIN_DEADLINE_MS = 10_000;

/** Writes the response head with the request id and CORS headers; false when a head went out already. */
export function writeHead(exchange: Exchange, status: number, headers: http.OutgoingHttpHeaders): boolean {
  const { response } = exchange;
  if (response.headersSent) return false;
  headers['x-amz-request-id'] = exchange.id;
  for (const name in exchange.corsHeaders) headers[name] = exchange.corsHeaders[name];
  response.writeHead(status, headers);
  exchange.headSentAt = performance.now();
  return true;
}

/**
 * A request answered before its body was read. A client still waiting for `100 Continue` will
 * never send the body, so the connection simply closes after the answer. Any other client is
 * still sending: closing at once would make its next write meet a reset that can discard our
 * answer before it is read (RFC 9112 §9.6), so the rest of the body is read and discarded, within
 * a byte and time budget, and the connection stays usable when the body ends in time.
 */
export function abandonRequestBody(exchange: Exchange): void {
  const { request, response } = exchange;
  if (request.complete || request.destroyed) return;
  if (exchange.expectsContinue && !exchange.continueSent) {
    if (!response.headersSent) response.setHeader('connection', 'close');
    request.resume();
    return;
  }
  let drained = 0;
  const cut = () => request.socket.destroy();
  const deadline = setTimeout(cut, DRAIN_DEADLINE_MS);
  deadline.unref();
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) cut();
  });
  request.once('close', () => clearTimeout(deadline));
  request.resume();
}

function send(exchange: Exchange, status: number, headers: http.OutgoingHttpHeaders, body: string): void {
  abandonRequestBody(exchange);
  const payload = exchange.method === 'HEAD' ? '' : body;
  const bytes = Buffer.byteLength(payload);
  headers['content-length'] = bytes;
  if (!writeHead(exchange, status, headers)) {
    exchange.response.destroy();
    return;
  }
  exchange.response.end(payload);
  exchange.bytesOut += bytes;
}

export function sendError(exchange: Exchange, error: S3Error): void {
  exchange.errorCode = error.code;
  exchange.refusalReason = error.definition.reason;
  const body = renderS3Error(
    { code: error.code, message: error.text },
    { requestId: exchange.id, resource: errorResource(exchange.bucket, exchange.key) },
    error.details,
  );
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/xml' };
  if (error.status === 503) headers['retry-after'] = String(error.retryAfterSeconds);
  send(exchange, error.status, headers, body);
}

export function sendXml(
  exchange: Exchange,
  status: number,
  xml: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  send(exchange, status, { ...headers, 'content-type': 'application/xml' }, xml);
}

export function sendHtml(exchange: Exchange, status: number, html: string): void {
  send(exchange, status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, html);
}

/** A body-less answer (a CORS preflight, an ACL write that changes nothing). */
export function sendEmpty(exchange: Exchange, status: number, headers: http.OutgoingHttpHeaders = {}): void {
  abandonRequestBody(exchange);
  headers['content-length'] = 0;
  if (!writeHead(exchange, status, headers)) {
    exchange.response.destroy();
    return;
  }
  exchange.response.end();
}
