/**
 * What a client hears of the object store's answer, and of its silence:
 *
 * - Response headers pass on, except hop-by-hop ones and those that name the backend (its request
 *   ids, `HostId`, `x-rgw-*`, its server and its own CORS headers).
 * - An S3 error document from the store passes on with the gateway's request id in place of the
 *   store's, without the store's HostId, and with the catalogue's message when the store's is empty.
 * - An error answer without one (an empty body, a load balancer's HTML page, XML that is not an
 *   `<Error>` naming a `<Code>`, a document too large to be one) becomes the catalogue entry for its
 *   status: every error the endpoint sends is an S3 XML document with a message, and an HTML answer
 *   would read as bot protection (service-spec §7).
 * - A store that is unreachable, resets or stays silent is 503 ServiceUnavailable, counted by
 *   kind and logged.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { S3_ERRORS, S3Error, STORE_ERROR_MESSAGES, type S3ErrorKey } from '../../protocol/errors.js';
import { escapeXml } from '../../protocol/xml.js';
import { toBackendUnavailable } from '../../backend/connection.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { Exchange } from '../exchange.js';
import { writeHead } from '../respond.js';

/** Backend response headers the client must not see. */
const DROPPED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'x-amz-request-id',
  'x-amz-id-2',
  'server',
  'date',
]);

function isDroppedResponseHeader(name: string): boolean {
  return (
    DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-') || name.startsWith('x-rgw-')
  );
}

/** The backend's response headers as the client gets them. */
export function clientResponseHeaders(
  backendHeaders: Readonly<Record<string, string | string[] | undefined>>,
): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const name in backendHeaders) {
    const value = backendHeaders[name];
    if (value !== undefined && !isDroppedResponseHeader(name)) headers[name] = value;
  }
  return headers;
}

const ERROR_CODE = /<Code>([A-Za-z0-9.]{1,64})<\/Code>/;

/** The S3 error code of a backend error document, if it names one. */
export function errorCodeOf(document: string): string | undefined {
  return ERROR_CODE.exec(document)?.[1];
}

/** The code label for a backend answer without a readable error document (HEAD, non-XML). */
export function statusLabel(status: number): string {
  if (status < 300 || status === 304) return '';
  if (status === 404) return 'NotFound';
  if (status === 403) return 'AccessDenied';
  if (status === 412) return 'PreconditionFailed';
  return `Http${status}`;
}

export function isXmlAnswer(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && /xml/i.test(type);
}

/** The catalogue's message for an S3 code, for a store that sent none. */
function messageForCode(code: string | undefined): string {
  if (code !== undefined) {
    const relayed = STORE_ERROR_MESSAGES[code];
    if (relayed !== undefined) return relayed;
    for (const definition of Object.values(S3_ERRORS))
      if (definition.code === code) return definition.message;
  }
  return 'The object store refused the request.';
}

/**
 * A backend error document as the client gets it: the gateway's request id in place of the
 * store's, no HostId, and a message where the store left it empty.
 */
export function relayedErrorDocument(document: string, requestId: string): string {
  const id = `<RequestId>${escapeXml(requestId)}</RequestId>`;
  let relayed = document.replace(/<HostId>[^<]*<\/HostId>|<HostId\s*\/>/g, '');
  if (/<Message>\s*<\/Message>|<Message\s*\/>/.test(relayed) || !/<Message>/.test(relayed)) {
    const message = `<Message>${escapeXml(messageForCode(errorCodeOf(relayed)))}</Message>`;
    relayed = /<Message>\s*<\/Message>|<Message\s*\/>/.test(relayed)
      ? relayed.replace(/<Message>\s*<\/Message>|<Message\s*\/>/, message)
      : relayed.replace(/(<\/Code>)/, `$1${message}`);
  }
  if (/<RequestId>[^<]*<\/RequestId>|<RequestId\s*\/>/.test(relayed)) {
    return relayed.replace(/<RequestId>[^<]*<\/RequestId>|<RequestId\s*\/>/, id);
  }
  return relayed.replace(/<\/Error>\s*$/, `${id}</Error>`);
}

/** True when the document is an S3 error document: an `<Error>` that names a `<Code>`. */
export function isS3ErrorDocument(document: string): boolean {
  return /<Error[\s>]/.test(document) && errorCodeOf(document) !== undefined;
}

const BY_STATUS: Readonly<Record<number, S3ErrorKey>> = {
  403: 'BackendAccessDenied',
  411: 'MissingContentLength',
  412: 'PreconditionFailed',
  416: 'InvalidRange',
  429: 'SlowDown',
  501: 'OperationNotImplemented',
};

/**
 * The catalogue entry for a backend error answer that carries no S3 error document, or null when
 * the answer is not an error (below 400) or is a HEAD's (S3 sends HEAD errors without a body).
 */
export function errorForBareStatus(status: number, method: string, hasKey: boolean): S3Error | null {
  if (status < 400 || method === 'HEAD') return null;
  const key: S3ErrorKey =
    BY_STATUS[status] ??
    (status === 404
      ? hasKey
        ? 'NoSuchKey'
        : 'NoSuchBucket'
      : status >= 500
        ? 'ServiceUnavailable'
        : 'BackendRejectedRequest');
  return new S3Error(key);
}

/**
 * The client's answer to an XML answer of the store (status 300 or more, not a HEAD's): the
 * document relayed as {@link relayedErrorDocument} says, or, for an error whose body is not an S3
 * error document (empty, or some other document typed as XML), the catalogue's entry for its status.
 */
export function relayedXmlAnswer(
  document: string,
  requestId: string,
  status: number,
  method: string,
  hasKey: boolean,
): string | S3Error {
  if (!isS3ErrorDocument(document)) {
    const bare = errorForBareStatus(status, method, hasKey);
    if (bare !== null) return bare;
  }
  return relayedErrorDocument(document, requestId);
}

/**
 * Every answer the store gives a request sent on a client's behalf is timed (until its head) and,
 * when it is a 5xx, counted as a backend error.
 */
export function recordStoreAnswer(
  exchange: Exchange,
  metrics: GatewayMetrics,
  status: number,
  sentAt: number,
): void {
  metrics.backendDuration.observe(exchange.operation, (performance.now() - sentAt) / 1000);
  if (status >= 500) metrics.backendErrors.inc({ kind: '5xx' });
}

/**
 * Ends the client's answer with a whole document the gateway holds (an error relayed from the
 * store, a completion, a form's answer): its S3 code (if any) for the log and metrics, its length,
 * the bytes counted. `afterOwnHead`: the head already went out, chunked (a completion's keep-alive
 * whitespace), and the document ends that body; otherwise an answer whose head someone else sent
 * cannot take it and is cut.
 */
export function finishWithDocument(
  exchange: Exchange,
  status: number,
  headers: http.OutgoingHttpHeaders,
  document: string,
  afterOwnHead = false,
): void {
  exchange.errorCode = errorCodeOf(document) ?? statusLabel(status);
  const body = Buffer.from(document, 'utf8');
  headers['content-length'] = body.length;
  if (!writeHead(exchange, status, headers) && !afterOwnHead) {
    exchange.response.destroy();
    return;
  }
  exchange.response.end(body);
  exchange.bytesOut += body.length;
}

export interface FailureReporting {
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
}

/** Counts and logs a store that did not answer; returns what the client hears. */
export function backendFailure(exchange: Exchange, reporting: FailureReporting, error: unknown): S3Error {
  const failure = toBackendUnavailable(error);
  reporting.metrics.backendErrors.inc({ kind: failure.kind });
  reporting.logger.warn(
    {
      requestId: exchange.id,
      kind: failure.kind,
      code: (error as NodeJS.ErrnoException).code,
      message: failure.message,
    },
    'object store did not answer',
  );
  return new S3Error('ServiceUnavailable');
}
