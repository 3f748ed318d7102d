/**
 * Asks the object store about an object, with a re-signed HEAD of the gateway's own: whether it is
 * there (the copy-source check and the ACL answers need to know before anything is forwarded) and
 * what it holds (GetObjectAttributes). Only a 404
 * counts as missing: any other answer (an SSE-C object without its key, a delete-marker version)
 * leaves the verdict to the store when the request goes on.
 */
import { objectPath } from '../../protocol/paths.js';
import { queryParameter } from '../../protocol/query.js';
import type { Exchange } from '../exchange.js';
import { backendFailure } from './outcome.js';
import type { Upstream } from './upstream.js';

export interface ObjectLocation {
  readonly bucket: string;
  readonly key: string;
  readonly versionId: string | null;
}

/** The store's answer to a HEAD of the object (status and headers). */
export async function headObject(
  exchange: Exchange,
  upstream: Upstream,
  location: ObjectLocation,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; headers: Readonly<Record<string, string | string[] | undefined>> }> {
  const spec = {
    method: 'HEAD',
    path: objectPath(location.bucket, location.key),
    query: location.versionId === null ? [] : [queryParameter('versionId', location.versionId)],
    headers,
  };
  try {
    const answer = await upstream.connection.call(spec, { maxBytes: 0 });
    return { status: answer.status, headers: answer.headers };
  } catch (error) {
    throw backendFailure(exchange, upstream, error);
  }
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
