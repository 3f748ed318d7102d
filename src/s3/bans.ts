/**
 * Requests the service refuses on purpose, whoever sends them (service-spec §4, decisions.md).
 * They run after authorisation, on the effective headers (presigned URLs hoist headers into the
 * query), and before anything is forwarded.
 */
import type { S3Address } from './address.js';
import { S3Error } from './errors.js';
import { hasDotSegment } from './percent-decoding.js';
import { Refusal } from './refusal.js';
import { headerValue, type HeaderMap } from './request-headers.js';

const CONDITIONAL_READ_HEADERS = ['if-none-match', 'if-match', 'if-modified-since'];

/** Canned ACLs that mean "the owner, and nobody else": the only ACL this service has. */
export const OWNER_ONLY_CANNED_ACLS: readonly string[] = ['private', 'bucket-owner-full-control'];

function hasGrantHeader(headers: HeaderMap): boolean {
  return Object.keys(headers).some((name) => name.startsWith('x-amz-grant-') && headers[name] !== undefined);
}

export function enforceBans(method: string, address: S3Address, headers: HeaderMap): void {
  // A proxy or backend that normalised `.`/`..` would address another object, even another bucket.
  if (hasDotSegment(address.key)) throw new Refusal('SignatureDoesNotMatch', 'ban');

  if (method === 'GET' && CONDITIONAL_READ_HEADERS.some((name) => headerValue(headers, name) !== undefined)) {
    throw new S3Error('ConditionalReadRefused');
  }

  const storageClass = headerValue(headers, 'x-amz-storage-class');
  if (storageClass !== undefined && storageClass.trim() !== 'STANDARD') {
    throw new S3Error('StorageClassNotImplemented');
  }

  const cannedAcl = headerValue(headers, 'x-amz-acl');
  if (cannedAcl !== undefined && !OWNER_ONLY_CANNED_ACLS.includes(cannedAcl.trim())) {
    throw new S3Error('AclNotImplemented');
  }
  if (hasGrantHeader(headers)) throw new S3Error('AclNotImplemented');
}
