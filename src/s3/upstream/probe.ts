/**
 * Asks the object store whether an object is there, with a re-signed HEAD of the gateway's own.
 * The copy-source check and the ACL answers need to know before anything is forwarded. Only a 404
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
  const spec = {
    method: 'HEAD',
    path: objectPath(location.bucket, location.key),
    query: location.versionId === null ? [] : [queryParameter('versionId', location.versionId)],
    headers,
  };
  try {
    const answer = await upstream.connection.call(spec, { maxBytes: 0 });
    return answer.status === 404;
  } catch (error) {
    throw backendFailure(exchange, upstream, error);
  }
}
