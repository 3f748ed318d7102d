/**
 * ListBuckets is answered from the store, not the backend: the backend holds every tenant's
 * buckets under one user. Which of them a credential sees is authorise.ts's to say.
 */
import { queryValue } from '../../protocol/query.js';
import { element, S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';
import type { BucketStore } from '../../store/buckets.js';
import type { BucketRecord, OrganisationRecord } from '../../store/records.js';
import { sendXml } from '../respond.js';
import type { Planned } from '../stages.js';
import { visibleBuckets } from '../steps/authorise.js';

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

export async function answerListBuckets(stage: Planned, buckets: BucketStore): Promise<void> {
  if (stage.identity.kind !== 'credential') throw new Error('ListBuckets is authorised for credentials only');
  const { credential } = stage.identity;
  const all = await buckets.allForOrganisation(credential.organisationId);
  const prefix = queryValue(stage.query, 'prefix');
  const visible = visibleBuckets(all, credential).filter(
    (bucket) => prefix === undefined || bucket.name.startsWith(prefix),
  );
  sendXml(stage.exchange, 200, renderListAllMyBuckets(stage.organisation, visible));
}
