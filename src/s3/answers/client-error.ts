import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { renderS3Error, S3_ERRORS, type S3ErrorKey } from '../../protocol/errors.js';
import { refusalMayCarryBody } from '../../protocol/refused-request.js';
import { newRequestId } from '../request-id.js';

/** Node's HTTP parser error codes, and the catalogue entry each is answered with. */
const PARSER_ERRORS: Readonly<Record<string, S3ErrorKey>> = {
  HPE_INVALID_METHOD: 'UnsupportedMethod',
  HPE_HEADER_OVERFLOW: 'RequestHeaderSectionTooLarge',
  ERR_HTTP_REQUEST_TIMEOUT: 'RequestTimeout',
  HPE_HEADERS_TIMEOUT: 'RequestTimeout',
};

/**
 * Requests Node refuses before the pipeline sees them (unparsable, an unknown method, headers too
 * large, both Content-Length and Transfer-Encoding): they still get an S3 error document with a
 * request id (its status and headers only where the request may be a HEAD), then the connection
 * is closed since its framing can no longer be trusted.
 */
export function answerClientError(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Duplex,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(
    socket,
    PARSER_ERRORS[error.code ?? ''] ?? 'MalformedHttpRequest',
    refusalMayCarryBody(error.rawPacket),
  );
}

/**
 * CONNECT (a tunnel request) never reaches the pipeline: Node hands it over as a raw socket. It
 * gets the same S3 error document as any other method the endpoint does not take.
 */
export function answerConnect(_request: unknown, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, 'UnsupportedMethod');
}

/**
 * How long a refused connection stays half-closed for the client to read the answer and close its
 * side; then it is destroyed, so a client that never closes cannot hold a graceful stop.
 */
const LINGER_MS = 2_000;

/**
 * An S3 error document written straight to the socket, which is then closed: half-closed first,
 * since destroying it with the client's unread bytes still queued would reset the connection and
 * could discard the answer before the client read it (RFC 9112 §9.6).
 */
function answerOnSocket(socket: Duplex, key: S3ErrorKey, withBody = true): void {
  const definition = S3_ERRORS[key];
  const requestId = newRequestId();
  const body = withBody ? renderS3Error(definition, { requestId }) : '';
  socket.end(
    [
      `HTTP/1.1 ${definition.status} ${STATUS_CODES[definition.status] ?? 'Error'}`,
      'content-type: application/xml',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-amz-request-id: ${requestId}`,
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
