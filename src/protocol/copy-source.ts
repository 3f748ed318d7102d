/**
 * The source of CopyObject and UploadPartCopy (`x-amz-copy-source`): `bucket/key` or
 * `/bucket/key`, URL-encoded, optionally with `?versionId=...`. Decoded strictly (decisions.md): a
 * malformed escape, a missing bucket or key, or a dot segment is refused before anything reaches
 * the backend, and what is forwarded is re-encoded from the decoded parts, never the client's
 * spelling.
 */
import { sigV4Encode, strictPercentDecode } from './encoding.js';
import { S3Error } from './errors.js';
import {
  hasDotSegment,
  isKeyCharacterSetValid,
  isKeyLengthValid,
  isAddressableBucketName,
} from './limits.js';
import { objectPath } from './paths.js';

export interface CopySource {
  readonly bucket: string;
  readonly key: string;
  readonly versionId: string | null;
}

function invalid(): S3Error {
  return new S3Error('InvalidCopySource');
}

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

  // The whole path is decoded before bucket and key are told apart: some clients encode the
  // separator too (`bucket%2Fkey`), and S3 reads that as the same source.
  const decoded = strictPercentDecode(rawPath);
  if (decoded === null) throw invalid();
  const path = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  const slash = path.indexOf('/');
  if (slash === -1) throw invalid();
  const bucket = path.slice(0, slash);
  const key = path.slice(slash + 1);
  if (
    !isAddressableBucketName(bucket) ||
    key === '' ||
    !isKeyLengthValid(key) ||
    !isKeyCharacterSetValid(key) ||
    hasDotSegment(key)
  )
    throw invalid();
  return { bucket, key, versionId };
}

/** The header value the backend receives: `/bucket/key` with every segment SigV4-encoded. */
export function encodeCopySource(source: CopySource): string {
  const version = source.versionId === null ? '' : `?versionId=${sigV4Encode(source.versionId)}`;
  return `${objectPath(source.bucket, source.key)}${version}`;
}
