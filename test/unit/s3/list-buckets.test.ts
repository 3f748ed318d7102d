import { describe, expect, it } from 'vitest';
import { renderBucketLocation } from '../../../src/s3/answers/bucket-location.js';
import { renderListAllMyBuckets } from '../../../src/s3/answers/list-buckets.js';
import { visibleBuckets } from '../../../src/s3/steps/authorise.js';
import type { BucketRecord, CredentialRecord, OrganisationRecord } from '../../../src/store/records.js';

const created = new Date('2026-01-02T03:04:05.000Z');
const bucket = (name: string, organisationId = 'org-1') =>
  ({ name, organisationId, createdAt: created }) as BucketRecord;
const credential = (buckets: string[]) =>
  ({ organisationId: 'org-1', scope: { buckets, level: 'read-only' } }) as unknown as CredentialRecord;

describe('ListBuckets', () => {
  const all = [bucket('alpha'), bucket('beta'), bucket('gamma', 'org-2'), bucket('alps')];

  it("shows the organisation's buckets the scope covers", () => {
    expect(visibleBuckets(all, credential(['*'])).map((b) => b.name)).toEqual(['alpha', 'beta', 'alps']);
    expect(visibleBuckets(all, credential(['beta', 'gamma'])).map((b) => b.name)).toEqual(['beta']);
  });

  it('renders ListAllMyBucketsResult with the organisation as owner', () => {
    const organisation = { id: 'org-1', name: 'R&D' } as OrganisationRecord;
    expect(renderListAllMyBuckets(organisation, [bucket('alpha')])).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<Owner><ID>org-1</ID><DisplayName>R&amp;D</DisplayName></Owner>' +
        '<Buckets><Bucket><Name>alpha</Name><CreationDate>2026-01-02T03:04:05.000Z</CreationDate></Bucket></Buckets>' +
        '</ListAllMyBucketsResult>',
    );
  });
});

describe('GetBucketLocation', () => {
  it('answers us-east-1 as an empty constraint, other regions by name', () => {
    expect(renderBucketLocation('us-east-1')).toContain(
      '<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>',
    );
    expect(renderBucketLocation('auto')).toContain('>auto</LocationConstraint>');
  });
});
