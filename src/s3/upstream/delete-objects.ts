/**
 * DeleteObjects, read whole and counted before it is forwarded: S3 takes at most 1,000 keys in one
 * request and answers more (or a body that is not a Delete document) with MalformedXML. Ceph RGW
 * would answer 50,000 keys with InvalidRange and a few thousand with a vague InvalidRequest. A
 * credential limited to key prefixes may name only keys under them (authorise.ts decides).
 */
import { S3Error } from '../../protocol/errors.js';
import { MAX_DELETE_OBJECTS_KEYS } from '../../protocol/limits.js';
import { childList, childText, decodeXmlText, parseXml } from '../../protocol/xml.js';
import { assertDeletableKeys } from '../steps/authorise.js';
import type { Planned } from '../stages.js';
import { readBody } from './body.js';
import { backendRequestOf } from './forward.js';
import type { Upstream } from './upstream.js';

/** 1,000 keys of up to 1,024 bytes each, XML-escaped, with a version id each, and room to spare. */
export const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The keys a Delete document names, exactly as the store will read them: whitespace kept (a
 * trimmed key could pass a prefix check its untrimmed self fails), entities and character
 * references decoded (`a&amp;b` is the key a&b, which the prefix check and the storage quota's
 * accounting must both see); MalformedXML when it is not one.
 */
export function deleteObjectKeys(body: Buffer): string[] {
  const document = parseXml(body.toString('utf8'), ['Object'], { keepWhitespace: true });
  const root = document?.Delete;
  if (root === undefined || root === null || typeof root !== 'object') throw new S3Error('MalformedXML');
  return childList(root, 'Object').map((object) => {
    const key = decodeXmlText(childText(object, 'Key') ?? '');
    if (key === null) throw new S3Error('MalformedXML');
    return key;
  });
}

export async function forwardDeleteObjects(stage: Planned, upstream: Upstream): Promise<void> {
  const body = await readBody(stage.exchange, stage.body, MAX_DELETE_BODY_BYTES, 'MalformedXML');
  const keys = deleteObjectKeys(body);
  if (keys.length === 0 || keys.length > MAX_DELETE_OBJECTS_KEYS) throw new S3Error('MalformedXML');
  assertDeletableKeys(stage, keys);
  await upstream.forward(stage.exchange, {
    spec: backendRequestOf(stage, { 'content-length': String(body.length) }),
    body,
  });
}
