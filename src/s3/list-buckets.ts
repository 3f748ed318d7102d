/**
 * ListBuckets is answered from the store, not the backend: the backend holds every tenant's
 * buckets under one user. A credential sees its organisation's buckets that its scope covers.
 */
import { scopeCoversBucket } from '../access/scope.js';
import type { BucketRecord, CredentialRecord, OrganisationRecord } from '../store/records.js';
import { queryValue } from './address.js';
import type { S3Dependencies } from './dependencies.js';
import type { S3Exchange } from './exchange.js';
import { sendXml } from './respond.js';
import { element, S3_XML_NAMESPACE, xmlDocument } from './xml.js';

export function visibleBuckets(
  buckets: readonly BucketRecord[],
  credential: CredentialRecord,
  prefix: string | undefined,
): BucketRecord[] {
  return buckets.filter(
    (bucket) =>
      bucket.organisationId === credential.organisationId &&
      scopeCoversBucket(credential.scope, bucket.name) &&
      (prefix === undefined || bucket.name.startsWith(prefix)),
  );
}

export function renderListAllMyBuckets(
  organisation: OrganisationRecord,
  buckets: readonly BucketRecord[],
): string {
  const entries = buckets
    .map(
      (bucket) =>
        `<Bucket>${element('Name', bucket.name)}${element('CreationDate', bucket.createdAt.toISOString())}</Bucket>`,
    )
    .join('');
  return xmlDocument(
    `<ListAllMyBucketsResult xmlns="${S3_XML_NAMESPACE}">` +
      `<Owner>${element('ID', organisation.id)}${element('DisplayName', organisation.name)}</Owner>` +
      `<Buckets>${entries}</Buckets>` +
      '</ListAllMyBucketsResult>',
  );
}

export async function answerListBuckets(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  credential: CredentialRecord,
): Promise<void> {
  const organisation = exchange.organisation as OrganisationRecord;
  const buckets = await dependencies.context.store.buckets.allForOrganisation(credential.organisationId);
  const prefix = exchange.address === null ? undefined : queryValue(exchange.address, 'prefix');
  sendXml(exchange, 200, renderListAllMyBuckets(organisation, visibleBuckets(buckets, credential, prefix)));
}
