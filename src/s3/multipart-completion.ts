/**
 * Sends a checked CompleteMultipartUpload to the object store and answers the client. Ceph RGW
 * 16.2 completes with an empty `<ETag></ETag>` (scripts/ceph-rgw/README.md): the gateway then HEADs
 * the object just assembled and fills its ETag in. Everything else reaches the client as the
 * proxy would pass it: status and headers, error documents with the gateway's request id, and a
 * 200 carrying an `<Error>` document (S3's failure after the answer started) unchanged.
 *
 * The answer is small, so it is read whole (bounded) rather than streamed through the proxy;
 * only the whitespace a store sends ahead of a 200's document while it works goes to the client
 * as it arrives, so the client's connection is kept alive as the store meant it to be.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { S3Address } from './address.js';
import {
  errorCodeOf,
  errorForBareStatus,
  isXmlAnswer,
  recordBackendFailure,
  serviceUnavailable,
  statusLabel,
  withRequestId,
} from './backend-answers.js';
import { backendCall, backendRequest, readBackendAnswer } from '../backend/connection.js';
import type { S3Dependencies } from './dependencies.js';
import type { S3Exchange } from './exchange.js';
import { backendPath, backendQuery } from './forward.js';
import { clientResponseHeaders, forwardedRequestHeaders } from './forward-headers.js';
import type { HeaderMap } from './request-headers.js';
import { countBytesOut, writeHead } from './respond.js';
import type { BodyPipeline } from './sigv4/index.js';
import { childText, escapeXml, parseXml } from './xml.js';

/** A completion answer is a few hundred bytes, an error document not much more. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const EMPTY_ETAG = /<ETag\s*\/>|<ETag>\s*<\/ETag>/;

/** True when the document is a CompleteMultipartUploadResult with an empty ETag element. */
export function lacksEtag(document: string): boolean {
  const result = parseXml(document.trimStart())?.CompleteMultipartUploadResult;
  return childText(result, 'ETag') === '' && EMPTY_ETAG.test(document);
}

/** The document with `etag` in its empty ETag element; any other document unchanged. */
export function fillEtag(document: string, etag: string): string {
  if (!lacksEtag(document)) return document;
  return document.replace(EMPTY_ETAG, () => `<ETag>${escapeXml(etag)}</ETag>`);
}

/** A completion the gateway read and checked. */
export interface CheckedCompletion {
  readonly headers: HeaderMap;
  readonly plan: BodyPipeline;
  readonly body: Buffer;
}

export async function forwardCompletion(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  completion: CheckedCompletion,
): Promise<void> {
  const { context, agent, signer, backendTimeoutMs } = dependencies;
  const address = exchange.address as S3Address;
  const spec = {
    method: 'POST',
    path: backendPath(address),
    query: backendQuery(address.query),
    headers: forwardedRequestHeaders(completion.headers, completion.plan.forwardHeaders, {
      'content-length': String(completion.body.length),
    }),
  };
  const startedAt = performance.now();
  let response: http.IncomingMessage;
  try {
    response = await backendRequest(context.backend.endpoint, agent, signer, spec, {
      timeoutMs: backendTimeoutMs,
      body: completion.body,
    });
  } catch (error) {
    throw serviceUnavailable(exchange, dependencies, error);
  }
  const status = response.statusCode ?? 502;
  const seconds = (performance.now() - startedAt) / 1000;
  context.metrics.backendDuration.observe({ operation: exchange.operation }, seconds);
  if (status >= 500) context.metrics.backendErrors.inc({ kind: '5xx' });

  const headers = clientResponseHeaders(response.headers);
  const keepAlive = (whitespace: Buffer) => sendWhitespace(exchange, headers, whitespace);
  let body: Buffer;
  try {
    body = await readBackendAnswer(response, MAX_ANSWER_BYTES, status === 200 ? keepAlive : undefined);
  } catch (error) {
    // Once whitespace went out this cannot be told: the client's answer is cut short instead.
    throw serviceUnavailable(exchange, dependencies, error);
  }
  if (exchange.response.destroyed) return;

  const document = body.toString('utf8');
  if (status === 200 && lacksEtag(document)) {
    const version = response.headers['x-amz-version-id'];
    const versionId = typeof version === 'string' ? version : undefined;
    const etag = await assembledEtag(exchange, dependencies, completion, versionId);
    if (etag !== null) body = Buffer.from(fillEtag(document, etag), 'utf8');
  } else if (status >= 300 && isXmlAnswer(response.headers)) {
    body = Buffer.from(withRequestId(document, exchange.id), 'utf8');
  } else {
    const bare = errorForBareStatus(status, 'POST', true);
    if (bare !== null) throw bare;
  }
  exchange.errorCode = errorCodeOf(document) ?? statusLabel(status);
  // After whitespace the head is out already (no length), and this ends the chunked body.
  writeHead(exchange, status, { ...headers, 'content-length': body.length });
  exchange.response.end(body);
  countBytesOut(exchange, body.length);
}

/** The 200 head (chunked: the document's length is not known yet) and whitespace, as they come. */
function sendWhitespace(exchange: S3Exchange, headers: http.OutgoingHttpHeaders, whitespace: Buffer): void {
  if (exchange.response.destroyed) return;
  const chunked = { ...headers };
  delete chunked['content-length'];
  writeHead(exchange, 200, chunked);
  exchange.response.write(whitespace);
  countBytesOut(exchange, whitespace.length);
}

/**
 * The ETag of the object the completion assembled, from a HEAD of it: of the version the
 * completion created when there is one, else of the key (a write in between would win there, as
 * it does for every reader). Null when it is not to be had; the client then gets the completion as
 * the backend answered it, which succeeded all the same.
 */
async function assembledEtag(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  completion: CheckedCompletion,
  versionId: string | undefined,
): Promise<string | null> {
  const { context, agent, signer, backendTimeoutMs } = dependencies;
  const forwarded = forwardedRequestHeaders(completion.headers, completion.plan.forwardHeaders, {});
  // An SSE-C object answers HEAD only with its key.
  const headers = Object.fromEntries(
    Object.entries(forwarded).filter(([name]) => name.startsWith('x-amz-server-side-encryption-customer-')),
  );
  const spec = {
    method: 'HEAD',
    path: backendPath(exchange.address as S3Address),
    query: versionId === undefined ? [] : [{ name: 'versionId', value: versionId, bare: false }],
    headers,
  };
  let etag: string | undefined;
  try {
    const answer = await backendCall(context.backend.endpoint, agent, signer, spec, {
      timeoutMs: backendTimeoutMs,
      maxBytes: 0,
    });
    etag = answer.status === 200 ? answer.headers.etag : undefined;
  } catch (error) {
    recordBackendFailure(exchange, dependencies, error);
  }
  if (etag !== undefined && etag !== '') return etag;
  context.logger.warn({ requestId: exchange.id, etag }, 'no ETag for the completed multipart upload');
  return null;
}
