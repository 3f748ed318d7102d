import { randomUUID } from 'node:crypto';
import http, { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { refusalMayCarryBody } from '../../protocol/refused-request.js';
import { ProblemError, type ProblemCode } from '../problems.js';
import { PROBLEM_MEDIA_TYPE } from './media-types.js';

/** Node's HTTP parser error codes, and the problem each is answered with. */
const PARSER_ERRORS: Readonly<Record<string, [ProblemCode, string]>> = {
  HPE_INVALID_METHOD: ['malformed_request', 'The request method is not one HTTP defines.'],
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    `The request line and headers must fit in ${http.maxHeaderSize} bytes; send long values in the body.`,
  ],
  HPE_HEADERS_TIMEOUT: ['request_timeout', 'The request headers did not arrive in time.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request did not arrive in time.'],
};

/**
 * Requests Node refuses before express sees them (an unknown method, a malformed request line or
 * header, headers too large) still get a problem document like every other refusal, with a request
 * id; then the connection is closed, since its framing can no longer be trusted.
 */
export function answerControlClientError(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Duplex,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, detail] = PARSER_ERRORS[error.code ?? ''] ?? [
    'malformed_request',
    'The request could not be parsed as HTTP/1.1.',
  ];
  answerOnSocket(socket, new ProblemError(code, detail), refusalMayCarryBody(error.rawPacket));
}

/** CONNECT (a tunnel request) reaches no route: Node hands it over as a raw socket. */
export function answerControlConnect(request: IncomingMessage, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, new ProblemError('not_found', `No endpoint CONNECT ${request.url ?? ''}.`));
}

function answerOnSocket(socket: Duplex, problem: ProblemError, withBody = true): void {
  const requestId = randomUUID();
  const body = JSON.stringify(problem.toDocument(requestId));
  socket.end(
    [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}`,
      `content-type: ${PROBLEM_MEDIA_TYPE}; charset=utf-8`,
      `content-length: ${withBody ? Buffer.byteLength(body) : 0}`,
      `x-request-id: ${requestId}`,
      'connection: close',
      '',
      withBody ? body : '',
    ].join('\r\n'),
    // The server keeps sockets half-open until the client closes its side; one that never does
    // would hold the socket, and a graceful stop, forever.
    () => socket.destroy(),
  );
}
