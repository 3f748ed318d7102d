/**
 * DeleteObjects, read whole and counted before it is forwarded: S3 takes at most 1,000 keys in one
 * request and answers more (or a body that is not a Delete document) with MalformedXML. Ceph RGW
 * would answer 50,000 keys with InvalidRange and a few thousand with a vague InvalidRequest.
 */
import { S3Error } from '../../protocol/errors.js';
import { MAX_DELETE_OBJECTS_KEYS } from '../../protocol/limits.js';
import { childList, parseXml } from '../../protocol/xml.js';
import type { Planned } from '../stages.js';
import { readBody } from './body.js';
import { backendRequestOf } from './forward.js';
import type { Upstream } from './upstream.js';

/** 1,000 keys of up to 1,024 bytes each, XML-escaped, with a version id each, and room to spare. */
export const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

/** How many objects a Delete document names; MalformedXML when it is not one. */
export function deleteObjectCount(body: Buffer): number {
  const document = parseXml(body.toString('utf8'), ['Object']);
  const root = document?.Delete;
  if (root === undefined || root === null || typeof root !== 'object') throw new S3Error('MalformedXML');
  return childList(root, 'Object').length;
}

export async function forwardDeleteObjects(stage: Planned, upstream: Upstream): Promise<void> {
  const body = await readBody(stage.exchange, stage.body, MAX_DELETE_BODY_BYTES, 'MalformedXML');
  const count = deleteObjectCount(body);
  if (count === 0 || count > MAX_DELETE_OBJECTS_KEYS) throw new S3Error('MalformedXML');
  await upstream.forward(stage.exchange, {
    spec: backendRequestOf(stage, { 'content-length': String(body.length) }),
    body,
  });
}
