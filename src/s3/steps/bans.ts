/**
 * Requests the service refuses on purpose, whoever sends them (service-spec §4, decisions.md).
 * They run after authorisation, on the effective headers (presigned URLs hoist headers into the
 * query), and before anything is forwarded.
 */
import { S3Error } from '../../protocol/errors.js';
import { headerValue, type HeaderMap } from '../../protocol/headers.js';
import { hasDotSegment } from '../../protocol/limits.js';
import { isResponseOverrideParameter } from '../../protocol/query.js';
import type { Authorised } from '../stages.js';

/** Canned ACLs that mean "the owner, and nobody else": the only ACL this service has. */
export const OWNER_ONLY_CANNED_ACLS: readonly string[] = ['private', 'bucket-owner-full-control'];

function hasGrantHeader(headers: HeaderMap): boolean {
  for (const name in headers) if (name.startsWith('x-amz-grant-') && headers[name] !== undefined) return true;
  return false;
}

/** C0 controls but horizontal tab, and DEL: what a header value may not hold (RFC 9110 field values). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/**
 * Values that reach the store as header values: the request's headers (and those hoisted from a
 * presigned query), and the `response-*` parameters the store writes into its answer's headers.
 * A CR or LF there could split the store's response (a read-only key could do it at will).
 */
function refuseControlCharacters(stage: Authorised): void {
  for (const name in stage.headers) {
    const value = stage.headers[name];
    // No list made for the common single value: this runs for every header of every request.
    const holdsOne =
      typeof value === 'string'
        ? hasControlCharacter(value)
        : value !== undefined && value.some(hasControlCharacter);
    if (holdsOne)
      throw new S3Error(
        'ControlCharacterInValue',
        undefined,
        `The value of the header ${name} holds a control character.`,
      );
  }
  for (const { name, value } of stage.query) {
    if (isResponseOverrideParameter(name) && hasControlCharacter(value)) {
      throw new S3Error(
        'ControlCharacterInValue',
        undefined,
        `The value of the parameter ${name} holds a control character.`,
      );
    }
  }
}

/** S3 lets only signed requests (header or presigned) override the answer's headers. */
function refuseAnonymousResponseOverrides(stage: Authorised): void {
  if (stage.identity.kind !== 'anonymous') return;
  for (const { name } of stage.query) {
    if (isResponseOverrideParameter(name)) throw new S3Error('AnonymousResponseOverride');
  }
}

export function enforceBans(stage: Authorised): void {
  const { headers } = stage;
  refuseControlCharacters(stage);
  refuseAnonymousResponseOverrides(stage);
  // A proxy or backend that normalised `.`/`..` would address another object, even another bucket.
  if (hasDotSegment(stage.key)) throw new S3Error('DotSegmentKey');

  if (
    stage.exchange.method === 'GET' &&
    (headers['if-none-match'] !== undefined ||
      headers['if-match'] !== undefined ||
      headers['if-modified-since'] !== undefined)
  ) {
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

  // RGW 16.2.15 aborts on an UploadPartCopy from a source whose key holds a `%` (scripts/ceph-rgw/README.md).
  if (stage.operation.name === 'UploadPartCopy' && stage.copySource?.key.includes('%')) {
    throw new S3Error('UploadPartCopyPercentKey');
  }
}
