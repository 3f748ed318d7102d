/**
 * Bucket configuration reads the gateway answers itself, because the configuration cannot exist:
 * its writes are bucket-level writes (405) and the control plane sets none of it. Ceph RGW 16.2
 * does not implement these reads either: it answers `?encryption`, `?ownershipControls` and
 * `?accelerate` with the bucket's object listing, which a client would parse as an empty
 * configuration (and which names the backend's own user). S3's answers for a bucket that never
 * had them are given instead.
 */
import { S3Error } from '../../protocol/errors.js';
import { S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';
import { sendXml } from '../respond.js';
import type { Planned } from '../stages.js';

/** GetBucketEncryption: no default encryption configuration. */
export function answerGetBucketEncryption(): never {
  throw new S3Error('NoBucketEncryptionConfiguration');
}

/** GetBucketOwnershipControls: no ownership controls. */
export function answerGetBucketOwnershipControls(): never {
  throw new S3Error('NoBucketOwnershipControls');
}

/** What S3 answers GetBucketAccelerateConfiguration with for a bucket never accelerated: no Status. */
function renderAccelerateConfiguration(): string {
  return xmlDocument(`<AccelerateConfiguration xmlns="${S3_XML_NAMESPACE}"/>`);
}

export function answerGetBucketAccelerateConfiguration(stage: Planned): void {
  sendXml(stage.exchange, 200, renderAccelerateConfiguration());
}
