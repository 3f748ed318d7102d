/**
 * Builds what the backend receives for a request the gateway does not answer itself: always
 * path-style, the same bucket and decoded key the client signed (re-encoded one canonical way),
 * the query without presigned parameters, the allowlisted headers, and the verified body.
 *
 * Requests forward an allowlist of headers: object metadata, content description, ranges and
 * conditions, copy and checksum headers. Everything about the client's authentication
 * (Authorization, x-amz-date, x-amz-content-sha256, x-amz-security-token), the aws-chunked
 * envelope, hop-by-hop headers and anything unknown stay behind; the signer adds its own host,
 * date, payload hash and Authorization.
 */
import type http from 'node:http';
import { encodeCopySource } from '../../protocol/copy-source.js';
import { S3Error } from '../../protocol/errors.js';
import { headerValue, type HeaderMap } from '../../protocol/headers.js';
import { resourcePath } from '../../protocol/paths.js';
import {
  isHoistedHeaderParameter,
  isPresignAuthParameter,
  type QueryParameter,
} from '../../protocol/query.js';
import type { BackendRequestSpec } from '../../backend/signer.js';
import { checksumHeaderName } from '../../sigv4/checksums.js';
import type { ForwardHeaderChanges } from '../../sigv4/body-plan.js';
import type { Planned } from '../stages.js';
import { announcesBody, BodyStream, readBody } from './body.js';
import type { StoreStatusHook, Upstream } from './upstream.js';

const FORWARDED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-md5',
  'content-encoding',
  'content-language',
  'content-disposition',
  'cache-control',
  'expires',
  'range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'x-amz-metadata-directive',
  'x-amz-tagging',
  'x-amz-tagging-directive',
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
  'x-amz-sdk-checksum-algorithm',
  'x-amz-mp-object-size',
]);

const FORWARDED_REQUEST_PREFIXES: readonly string[] = [
  'x-amz-meta-',
  'x-amz-checksum-',
  'x-amz-server-side-encryption',
  // The copy source itself is re-encoded by the gateway; its range and conditions pass.
  'x-amz-copy-source-',
];

function isForwardedRequestHeader(name: string): boolean {
  if (FORWARDED_REQUEST_HEADERS.has(name)) return true;
  if (!name.startsWith('x-amz-')) return false;
  for (const prefix of FORWARDED_REQUEST_PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
}

/**
 * The headers to forward, before signing: the allowlisted effective headers with the body plan's
 * changes applied (no aws-chunked coding, no trailer declaration) and `extra` set last.
 */
export function forwardedHeaders(
  headers: HeaderMap,
  bodyChanges: ForwardHeaderChanges,
  extra?: Readonly<Record<string, string>>,
): Record<string, string> {
  const { remove, set } = bodyChanges;
  const forwarded: Record<string, string> = {};
  // Removed names are skipped, never deleted: a `delete` turns the object into a dictionary, and
  // the signer and undici read every header of it again (an aws-chunked upload drops two).
  for (const name in headers) {
    if (!isForwardedRequestHeader(name) || remove.includes(name)) continue;
    const value = headerValue(headers, name);
    if (value !== undefined) forwarded[name] = value;
  }
  for (const name in set) {
    if (isForwardedRequestHeader(name)) forwarded[name] = set[name] as string;
  }
  if (extra !== undefined) Object.assign(forwarded, extra);
  return forwarded;
}

/** The query minus presigned signature parameters and hoisted headers (those travel as headers). */
export function backendQuery(query: readonly QueryParameter[]): QueryParameter[] {
  return query.filter(
    ({ name }) => name !== 'x-id' && !isPresignAuthParameter(name) && !isHoistedHeaderParameter(name),
  );
}

/** The request the backend receives for a planned one, with `extra` headers set last. */
export function backendRequestOf(
  stage: Planned,
  extra?: Readonly<Record<string, string>>,
  method = stage.exchange.method,
): BackendRequestSpec {
  return {
    method,
    path: resourcePath(stage.bucket, stage.key),
    query: stage.query.length === 0 ? stage.query : backendQuery(stage.query),
    headers: forwardedHeaders(stage.headers, stage.body.forwardHeaders, extra),
  };
}

/**
 * Methods whose S3 operations take a request body. Any other request's body stays behind: none of
 * those operations reads one, and a body the backend does not expect could be read as a second,
 * unsigned request on the shared connection.
 */
const BODY_METHODS: ReadonlySet<string> = new Set(['PUT', 'POST']);

/**
 * Forwards the request; `beforeAnswer` runs with the store's status before the client hears it
 * (limits/storage-quotas.ts records what the write changed).
 */
export async function forward(
  stage: Planned,
  upstream: Upstream,
  beforeAnswer?: StoreStatusHook,
): Promise<void> {
  const { exchange, body: plan } = stage;
  const extra: Record<string, string> = {};
  if (stage.copySource !== null) extra['x-amz-copy-source'] = encodeCopySource(stage.copySource);

  let body: BodyStream | null = null;
  if (BODY_METHODS.has(exchange.method)) {
    if (!announcesBody(exchange.headers) || (plan.verified && plan.decodedLength === 0)) {
      // Nothing to hold back, so verify (an empty body against its hash or checksum) first. The
      // length is signed as it is sent: PUT and POST always carry one, other methods none.
      if (plan.verified) await readBody(exchange, plan, 0, 'IncompleteBody');
      extra['content-length'] = '0';
    } else {
      if (plan.decodedLength === undefined) throw new S3Error('MissingContentLength');
      extra['content-length'] = String(plan.decodedLength);
      body = new BodyStream(exchange, plan);
    }
  }

  const streamed = body;
  const trailer = plan.checksum?.source === 'trailer' ? plan.checksum.algorithm : undefined;
  await upstream.forward(exchange, {
    spec: backendRequestOf(stage, extra),
    body: streamed,
    ...(beforeAnswer === undefined ? {} : { beforeAnswer }),
    // The trailer checksum the gateway verified (the backend never saw it) goes back to the client.
    ...(trailer === undefined || streamed === null
      ? {}
      : {
          successHeaders: (): http.OutgoingHttpHeaders => {
            const verified = streamed.verifiedChecksum;
            return verified === undefined
              ? {}
              : { [checksumHeaderName(verified.algorithm)]: verified.base64 };
          },
        }),
  });
}
