/**
 * Asks the object store whether an object is there, with a re-signed HEAD of the gateway's own on
 * the shared keep-alive agent. The copy-source check and the ACL answers need to know before
 * anything is forwarded. Only a 404 counts as missing: any other answer (an SSE-C object without
 * its key, a delete-marker version) leaves the verdict to the store when the request goes on.
 */
import { serviceUnavailable } from './backend-answers.js';
import { backendCall } from '../backend/connection.js';
import type { S3Dependencies } from './dependencies.js';
import type { S3Exchange } from './exchange.js';
import { objectPath } from './forward.js';

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
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  location: ObjectLocation,
  headers: Readonly<Record<string, string>> = {},
): Promise<boolean> {
  const { context, agent, signer, backendTimeoutMs } = dependencies;
  const spec = {
    method: 'HEAD',
    path: objectPath(location.bucket, location.key),
    query: location.versionId === null ? [] : [{ name: 'versionId', value: location.versionId, bare: false }],
    headers,
  };
  try {
    const answer = await backendCall(context.backend.endpoint, agent, signer, spec, {
      timeoutMs: backendTimeoutMs,
      maxBytes: 0,
    });
    return answer.status === 404;
  } catch (error) {
    throw serviceUnavailable(exchange, dependencies, error);
  }
}
