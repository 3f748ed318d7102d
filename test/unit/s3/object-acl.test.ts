import { describe, expect, it } from 'vitest';
import { renderOwnerFullControl, requestsOwnerOnlyAcl } from '../../../src/s3/answers/object-acl.js';
import { parseXml } from '../../../src/protocol/xml.js';

const owner = { id: 'org-1', displayName: 'Acme & Co' };

function policy(grants: string, ownerId = 'org-1'): Buffer {
  return Buffer.from(
    `<AccessControlPolicy><Owner><ID>${ownerId}</ID></Owner><AccessControlList>${grants}</AccessControlList></AccessControlPolicy>`,
  );
}
const grant = (id: string, permission: string) =>
  `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><ID>${id}</ID></Grantee><Permission>${permission}</Permission></Grant>`;

describe('object ACLs', () => {
  it("renders the owner's full control, escaped", () => {
    const xml = renderOwnerFullControl(owner);
    expect(xml).toContain('<DisplayName>Acme &amp; Co</DisplayName>');
    const parsed = parseXml(xml, ['Grant']) as {
      AccessControlPolicy: { AccessControlList: { Grant: unknown[] } };
    };
    expect(parsed.AccessControlPolicy.AccessControlList.Grant).toHaveLength(1);
  });

  it('accepts the owner-only canned ACLs and the very grant it renders', () => {
    expect(requestsOwnerOnlyAcl('private', Buffer.alloc(0), owner)).toBe(true);
    expect(requestsOwnerOnlyAcl('bucket-owner-full-control', Buffer.alloc(0), owner)).toBe(true);
    expect(requestsOwnerOnlyAcl(undefined, Buffer.from(renderOwnerFullControl(owner)), owner)).toBe(true);
    expect(requestsOwnerOnlyAcl(undefined, policy(grant('org-1', 'FULL_CONTROL')), owner)).toBe(true);
  });

  it('does not accept any other grant', () => {
    expect(requestsOwnerOnlyAcl('public-read', Buffer.alloc(0), owner)).toBe(false);
    expect(requestsOwnerOnlyAcl(undefined, policy(grant('org-1', 'READ')), owner)).toBe(false);
    expect(requestsOwnerOnlyAcl(undefined, policy(grant('org-2', 'FULL_CONTROL')), owner)).toBe(false);
    expect(
      requestsOwnerOnlyAcl(undefined, policy(grant('org-1', 'FULL_CONTROL') + grant('org-2', 'READ')), owner),
    ).toBe(false);
    expect(requestsOwnerOnlyAcl(undefined, policy(''), owner)).toBe(false);
  });

  it('refuses a missing or malformed ACL', () => {
    expect(() => requestsOwnerOnlyAcl(undefined, Buffer.alloc(0), owner)).toThrow(/MissingSecurityHeader/);
    expect(() => requestsOwnerOnlyAcl(undefined, Buffer.from('<nope'), owner)).toThrow(/MalformedACLError/);
    expect(() => requestsOwnerOnlyAcl(undefined, Buffer.from('<Other/>'), owner)).toThrow(
      /MalformedACLError/,
    );
  });
});
