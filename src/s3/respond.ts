/**
 * Every response the gateway writes itself goes through here, so each one carries the request id
 * and the bucket's CORS headers, and each one is measured (time to first byte, bytes out).
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { resourceOf } from './address.js';
import { renderS3Error, type S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { refusalReasonOf } from './refusal.js';

/**
 * How much of a refused request's body is read and thrown away, and for how long, so the client can
 * finish sending and read the answer; past either the connection is cut.
 */
const DRAIN_LIMIT_BYTES = 4 * 1024 * 1024;
const DRAIN_DEADLINE_MS = 10_000;

export function writeHead(exchange: S3Exchange, status: number, headers: http.OutgoingHttpHeaders): boolean {
  const { response } = exchange;
  if (response.headersSent) return false;
  response.writeHead(status, {
    ...headers,
    ...exchange.corsHeaders,
    'x-amz-request-id': exchange.id,
  });
  exchange.headSentAt = performance.now();
  return true;
}

/** Counts body bytes on their way to the client. */
export function countBytesOut(exchange: S3Exchange, bytes: number): void {
  exchange.bytesOut += bytes;
}

/**
 * A request answered before its body was read. A client still waiting for `100 Continue` will never
 * send the body, so the connection simply closes after the answer. Any other client is still
 * sending: closing at once would make its next write meet a reset that can discard our answer
 * before it is read (RFC 9112 §9.6), so the rest of the body is read and discarded, within a byte
 * and time budget, and the connection stays usable when the body ends in time.
 */
export function abandonRequestBody(exchange: S3Exchange): void {
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

function send(
  exchange: S3Exchange,
  status: number,
  contentType: string,
  body: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  abandonRequestBody(exchange);
  const payload = exchange.method === 'HEAD' ? '' : body;
  const bytes = Buffer.byteLength(payload);
  if (!writeHead(exchange, status, { ...headers, 'content-type': contentType, 'content-length': bytes })) {
    exchange.response.destroy();
    return;
  }
  exchange.response.end(payload);
  countBytesOut(exchange, bytes);
}

export function sendError(exchange: S3Exchange, error: S3Error): void {
  exchange.errorCode = error.code;
  exchange.refusalReason = refusalReasonOf(error);
  const body = renderS3Error(
    error.definition,
    { requestId: exchange.id, resource: resourceOf(exchange.address) },
    error.details,
  );
  send(exchange, error.status, 'application/xml', body);
}

export function sendXml(
  exchange: S3Exchange,
  status: number,
  xml: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  send(exchange, status, 'application/xml', xml, headers);
}

export function sendHtml(exchange: S3Exchange, status: number, html: string): void {
  send(exchange, status, 'text/html; charset=utf-8', html, { 'cache-control': 'no-store' });
}

/** A body-less answer (a CORS preflight, an ACL write that changes nothing). */
export function sendEmpty(
  exchange: S3Exchange,
  status: number,
  headers: http.OutgoingHttpHeaders = {},
): void {
  abandonRequestBody(exchange);
  if (!writeHead(exchange, status, { ...headers, 'content-length': 0 })) {
    exchange.response.destroy();
    return;
  }
  exchange.response.end();
}
