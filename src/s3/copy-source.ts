/**
 * The source of CopyObject and UploadPartCopy (`x-amz-copy-source`), decoded strictly
 * (decisions.md): a malformed escape, a missing bucket or key, or a dot segment is 400
 * InvalidArgument before anything reaches the backend. The source must then pass the same read
 * authorisation as any GET by this credential, and must exist: an UploadPartCopy from a missing
 * source whose key holds a `%` crashes Ceph RGW 16.2, and no tenant may take the shared backend
 * down. What is forwarded is re-encoded from the decoded parts, never the client's spelling.
 *
 * RGW 16.2.15 also aborts on an UploadPartCopy from an existing source whose key holds a `%`
 * (correctly sent as `%25`; reproduced with the AWS SDK straight against RGW), so such part
 * copies are refused outright. CopyObject from the same key works and is forwarded.
 */
import type { CredentialRecord } from '../store/records.js';
import { isValidBucketName, MAX_KEY_BYTES } from './address.js';
import { assertCredentialCovers } from './authorise.js';
import type { S3Dependencies } from './dependencies.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { isObjectMissing } from './object-probe.js';
import { headerValue, type HeaderMap } from './request-headers.js';
import { hasDotSegment, strictPercentDecode } from './percent-decoding.js';
import { objectPath } from './forward.js';
import { sigV4Encode } from './sigv4/index.js';

export interface CopySource {
  readonly bucket: string;
  readonly key: string;
  readonly versionId: string | null;
}

function invalid(): S3Error {
  return new S3Error('InvalidCopySource');
}

/** `bucket/key`, `/bucket/key`, either with `?versionId=...`; URL-encoded. */
export function parseCopySource(header: string): CopySource {
  const question = header.indexOf('?');
  const rawPath = question === -1 ? header : header.slice(0, question);
  let versionId: string | null = null;
  if (question !== -1) {
    const rawQuery = header.slice(question + 1);
    if (!rawQuery.startsWith('versionId=')) throw invalid();
    versionId = strictPercentDecode(rawQuery.slice('versionId='.length));
    if (versionId === null || versionId === '' || versionId.includes('&')) throw invalid();
  }

  const decoded = strictPercentDecode(rawPath.startsWith('/') ? rawPath.slice(1) : rawPath);
  if (decoded === null) throw invalid();
  const slash = decoded.indexOf('/');
  if (slash === -1) throw invalid();
  const bucket = decoded.slice(0, slash);
  const key = decoded.slice(slash + 1);
  if (!isValidBucketName(bucket) || key === '' || Buffer.byteLength(key) > MAX_KEY_BYTES) throw invalid();
  if (hasDotSegment(key)) throw invalid();
  return { bucket, key, versionId };
}

/** Refuses part copies the shared backend cannot survive (see above). */
export function assertPartCopySupported(source: CopySource): void {
  if (source.key.includes('%')) throw new S3Error('UploadPartCopyPercentKey');
}

/** The header value the backend receives: `/bucket/key` with every segment SigV4-encoded. */
export function encodeCopySource(source: CopySource): string {
  const version = source.versionId === null ? '' : `?versionId=${sigV4Encode(source.versionId)}`;
  return `${objectPath(source.bucket, source.key)}${version}`;
}

/** The copy source's SSE-C key headers, named as a HEAD of the source object takes them. */
function sourceEncryptionHeaders(headers: HeaderMap): Record<string, string> {
  const prefix = 'x-amz-copy-source-server-side-encryption-customer-';
  const result: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headerValue(headers, name);
    if (name.startsWith(prefix) && value !== undefined) {
      result[`x-amz-server-side-encryption-customer-${name.slice(prefix.length)}`] = value;
    }
  }
  return result;
}

/** Read authorisation on the source bucket and existence of the source object, before forwarding. */
export async function checkCopySource(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  source: CopySource,
  credential: CredentialRecord,
  headers: HeaderMap,
): Promise<void> {
  const entry = await dependencies.context.store.cache.bucket(source.bucket);
  if (entry === null) throw new S3Error('NoSuchBucket');
  assertCredentialCovers(credential, entry, 'GET');
  if (await isObjectMissing(exchange, dependencies, source, sourceEncryptionHeaders(headers))) {
    throw new S3Error('NoSuchKey');
  }
}
