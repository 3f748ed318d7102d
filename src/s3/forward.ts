/**
 * Builds what the backend receives for a request the gateway does not answer itself: always
 * path-style, the same bucket and decoded key the client signed (re-encoded one canonical way),
 * the query without presigned parameters, the allowlisted headers, and the verified body.
 */
import type { QueryParameter, S3Address } from './address.js';
import { announcesBody, BodyStream, bufferedBody, planBody, readBody, type ForwardBody } from './body.js';
import type { CopySource } from './copy-source.js';
import { encodeCopySource } from './copy-source.js';
import type { S3Dependencies } from './dependencies.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { forwardedRequestHeaders } from './forward-headers.js';
import { isHoistedHeaderParameter, isPresignAuthParameter, type HeaderMap } from './request-headers.js';
import { checksumHeaderName, sigV4Encode, type BodyPipeline } from './sigv4/index.js';

/** `/bucket/key` with each key segment SigV4-encoded: decoding it gives back exactly the key. */
export function objectPath(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(sigV4Encode).join('/')}`;
}

/** The backend path of an addressed bucket, object or the service root. */
export function backendPath(address: S3Address): string {
  if (address.bucket === null) return '/';
  if (address.key === '') return `/${address.bucket}`;
  return objectPath(address.bucket, address.key);
}

/** The query minus presigned signature parameters and hoisted headers (those travel as headers). */
export function backendQuery(query: readonly QueryParameter[]): QueryParameter[] {
  return query.filter(
    ({ name }) => name !== 'x-id' && !isPresignAuthParameter(name) && !isHoistedHeaderParameter(name),
  );
}

/** Methods whose upstream request needs an explicit length even when empty (else Node sends chunked). */
const LENGTH_REQUIRED: readonly string[] = ['PUT', 'POST', 'DELETE'];

/**
 * Methods whose S3 operations take a request body. Any other request's body stays behind: Node
 * frames no body on an upstream GET, HEAD or DELETE, so its bytes would reach the backend as a
 * second, unsigned request on the shared connection (request smuggling), and none of those
 * operations reads a body anyway.
 */
const BODY_METHODS: readonly string[] = ['PUT', 'POST'];

export interface ForwardOptions {
  readonly headers: HeaderMap;
  readonly payloadHash: string | undefined;
  readonly copySource?: CopySource;
  /** A body already read and verified (with the plan it was verified by). */
  readonly preread?: { readonly bytes: Buffer; readonly plan: BodyPipeline };
}

interface PreparedBody {
  readonly body: ForwardBody | null;
  readonly length: number;
  readonly plan: BodyPipeline;
}

async function prepareBody(exchange: S3Exchange, options: ForwardOptions): Promise<PreparedBody> {
  if (options.preread !== undefined) {
    const { bytes, plan } = options.preread;
    return { body: bufferedBody(bytes), length: bytes.length, plan };
  }
  const plan = planBody(options.headers, { payloadHash: options.payloadHash });
  if (!BODY_METHODS.includes(exchange.method)) return { body: null, length: 0, plan };
  if (!announcesBody(exchange.headers) || plan.drainBeforeForwarding) {
    // Nothing to hold back, so verify (an empty body against its hash or checksum) before forwarding.
    if (plan.transforms.length > 0) await readBody(exchange, plan, 0, 'IncompleteBody');
    return { body: null, length: 0, plan };
  }
  if (plan.decodedLength === undefined) throw new S3Error('MissingContentLength');
  return { body: new BodyStream(exchange, plan), length: plan.decodedLength, plan };
}

/** Headers for a successful upload answer: the trailer checksum the gateway verified (the backend never saw it). */
function verifiedTrailerChecksum(plan: BodyPipeline): Record<string, string> {
  const verified = plan.verifier?.verifiedChecksum;
  if (verified === undefined || plan.checksum?.source !== 'trailer') return {};
  return { [checksumHeaderName(verified.algorithm)]: verified.base64 };
}

export async function forwardToBackend(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  options: ForwardOptions,
): Promise<void> {
  const address = exchange.address as S3Address;
  const { body, length, plan } = await prepareBody(exchange, options);
  const extra: Record<string, string> = {};
  if (LENGTH_REQUIRED.includes(exchange.method)) extra['content-length'] = String(length);
  if (options.copySource !== undefined) extra['x-amz-copy-source'] = encodeCopySource(options.copySource);
  try {
    await dependencies.proxy.forward(exchange, {
      spec: {
        method: exchange.method,
        path: backendPath(address),
        query: backendQuery(address.query),
        headers: forwardedRequestHeaders(options.headers, plan.forwardHeaders, extra),
      },
      body,
      successHeaders: () => verifiedTrailerChecksum(plan),
    });
  } catch (error) {
    // Nothing was forwarded; stop reading the body so the error answer is not stuck behind it.
    body?.abort();
    throw error;
  }
}
