/**
 * What a client hears when the object store answers with an error or does not answer at all.
 *
 * - An S3 error document from the store passes on with the gateway's request id in it.
 * - An error answer without one (an empty body, a load balancer's HTML page) becomes the
 *   catalogue entry for its status: every error the endpoint sends is an S3 XML document, and an
 *   HTML answer would read as bot protection (service-spec §7).
 * - A store that is unreachable, resets or stays silent is 503 ServiceUnavailable, counted by
 *   kind and logged.
 */
import type http from 'node:http';
import { toBackendUnavailable } from '../backend/connection.js';
import type { S3Dependencies } from './dependencies.js';
import { S3Error, type S3ErrorKey } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { escapeXml } from './xml.js';

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

/** The gateway's request id in a backend error document: replacing the backend's, or added when it has none. */
export function withRequestId(document: string, requestId: string): string {
  const element = `<RequestId>${escapeXml(requestId)}</RequestId>`;
  if (/<RequestId>[^<]*<\/RequestId>/.test(document)) {
    return document.replace(/<RequestId>[^<]*<\/RequestId>/, element);
  }
  return document.replace(/<\/Error>\s*$/, `${element}</Error>`);
}

export function isXmlAnswer(headers: http.IncomingHttpHeaders): boolean {
  return /xml/i.test(headers['content-type'] ?? '');
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

/** A backend that did not answer, counted by kind and logged, as the client hears it. */
export function serviceUnavailable(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  error: unknown,
): S3Error {
  recordBackendFailure(exchange, dependencies, error);
  return new S3Error('ServiceUnavailable');
}

/** Counts and logs a backend that did not answer, where the client's answer goes on regardless. */
export function recordBackendFailure(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  error: unknown,
): void {
  const failure = toBackendUnavailable(error);
  const { metrics, logger } = dependencies.context;
  metrics.backendErrors.inc({ kind: failure.kind });
  logger.warn(
    { requestId: exchange.id, kind: failure.kind, message: failure.message },
    'object store did not answer',
  );
}
