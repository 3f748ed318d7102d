/**
 * Asks the object store about an object, with a re-signed HEAD of the gateway's own: whether it is
 * there (the copy-source check and the ACL answers need to know before anything is forwarded) and
 * what it holds (GetObjectAttributes). Only a 404
 * counts as missing: any other answer (an SSE-C object without its key, a delete-marker version)
 * leaves the verdict to the store when the request goes on.
 */
import { S3Error } from '../../protocol/errors.js';
import { firstHeaderValue, type HeaderMap } from '../../protocol/headers.js';
import { objectPath } from '../../protocol/paths.js';
import { queryParameter } from '../../protocol/query.js';
import type { Exchange } from '../exchange.js';
import type { Planned } from '../stages.js';
import { backendFailure } from './outcome.js';
import type { Upstream } from './upstream.js';

export interface ObjectLocation {
  readonly bucket: string;
  readonly key: string;
  readonly versionId: string | null;
}

/** The store's answer to a HEAD: its status, and its headers as it sent them. */
export interface ProbeAnswer {
  readonly status: number;
  readonly headers: HeaderMap;
}

const CUSTOMER_KEY = 'x-amz-server-side-encryption-customer-';
const COPY_SOURCE_CUSTOMER_KEY = 'x-amz-copy-source-server-side-encryption-customer-';

/**
 * The SSE-C key headers a HEAD of an SSE-C object must carry (the store answers it only with its
 * key): the request's own for its object, or its copy source's, renamed as a HEAD takes them.
 */
export function customerKeyHeaders(headers: HeaderMap, of: 'object' | 'copy-source'): Record<string, string> {
  const prefix = of === 'object' ? CUSTOMER_KEY : COPY_SOURCE_CUSTOMER_KEY;
  const found: Record<string, string> = {};
  for (const name in headers) {
    if (!name.startsWith(prefix)) continue;
    const value = firstHeaderValue(headers, name);
    if (value !== undefined) found[`${CUSTOMER_KEY}${name.slice(prefix.length)}`] = value;
  }
  return found;
}

/** The object's size from a HEAD that found it; null for any other answer or a length it did not tell. */
export function objectSize(answer: ProbeAnswer): number | null {
  const length = Number(firstHeaderValue(answer.headers, 'content-length'));
  return answer.status === 200 && Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/** The store's answer to a HEAD of the object (status and headers). */
export async function headObject(
  exchange: Exchange,
  upstream: Upstream,
  location: ObjectLocation,
  headers: Readonly<Record<string, string>> = {},
): Promise<ProbeAnswer> {
  try {
    return await askStore(upstream, location, headers);
  } catch (error) {
    throw backendFailure(exchange, upstream, error);
  }
}

/**
 * The same HEAD outside any request (a record of an upload, checked later): a store that does not
 * answer rejects with the connection's error, which no client hears.
 */
export async function askStore(
  upstream: Upstream,
  location: ObjectLocation,
  headers: Readonly<Record<string, string>> = {},
): Promise<ProbeAnswer> {
  const spec = {
    method: 'HEAD',
    path: objectPath(location.bucket, location.key),
    query: location.versionId === null ? [] : [queryParameter('versionId', location.versionId)],
    headers,
  };
  const answer = await upstream.connection.call(spec, { maxBytes: 0 });
  return { status: answer.status, headers: answer.headers };
}

/**
 * True when the store answers 404 for the object. `headers` are sent with the HEAD (an SSE-C
 * object's key). A store that does not answer is 503 ServiceUnavailable, counted and logged.
 */
export async function isObjectMissing(
  exchange: Exchange,
  upstream: Upstream,
  location: ObjectLocation,
  headers: Readonly<Record<string, string>> = {},
): Promise<boolean> {
  return (await headObject(exchange, upstream, location, headers)).status === 404;
}

/**
 * The copy source must exist before a copy is forwarded: an UploadPartCopy from a missing source
 * whose key holds a `%` crashes Ceph RGW 16.2, and no tenant may take the shared backend down.
 * Its size, from the same HEAD, is what the copy adds under a storage quota (null: not told), and
 * the store's status says why it did not tell.
 */
export async function probeCopySource(
  stage: Planned,
  upstream: Upstream,
): Promise<{ size: number | null; status: number }> {
  const source = stage.copySource;
  if (source === null) return { size: null, status: 400 };
  const answer = await headObject(
    stage.exchange,
    upstream,
    source,
    customerKeyHeaders(stage.headers, 'copy-source'),
  );
  if (answer.status === 404) throw new S3Error('NoSuchKey');
  return { size: objectSize(answer), status: answer.status };
}
