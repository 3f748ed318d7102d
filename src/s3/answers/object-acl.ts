/**
 * Object ACLs as decisions.md settles them: this service has one ACL, the owner's full control.
 * `GET ?acl` answers it; `PUT ?acl` with a private ACL, or the very owner-only grant it read,
 * changes nothing and succeeds (s3cmd reads and writes `?acl` on every copy); any other grant is
 * 501 NotImplemented. The owner is the organisation that owns the bucket.
 */
import { S3Error } from '../../protocol/errors.js';
import { headerValue } from '../../protocol/headers.js';
import { queryValue } from '../../protocol/query.js';
import {
  childList,
  childObject,
  childText,
  element,
  parseXml,
  S3_XML_NAMESPACE,
  xmlDocument,
} from '../../protocol/xml.js';
import { sendEmpty, sendXml } from '../respond.js';
import type { InBucket, Planned } from '../stages.js';
import { OWNER_ONLY_CANNED_ACLS } from '../steps/bans.js';
import { announcesBody, readBody } from '../upstream/body.js';
import { isObjectMissing } from '../upstream/probe.js';
import type { Upstream } from '../upstream/upstream.js';

export interface AclOwner {
  readonly id: string;
  readonly displayName: string;
}

export const MAX_ACL_BODY_BYTES = 64 * 1024;

function ownerElements(owner: AclOwner): string {
  return element('ID', owner.id) + element('DisplayName', owner.displayName);
}

/** S3's group of every caller, signed or not: the grantee of a public-read ACL. */
export const ALL_USERS_GROUP = 'http://acs.amazonaws.com/groups/global/AllUsers';

const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

/** The owner's full control, and read for everyone when `publicRead`. */
export function renderOwnerFullControl(owner: AclOwner, publicRead = false): string {
  const everyoneReads = publicRead
    ? `<Grant><Grantee ${XSI} xsi:type="Group">${element('URI', ALL_USERS_GROUP)}</Grantee>` +
      '<Permission>READ</Permission></Grant>'
    : '';
  return xmlDocument(
    `<AccessControlPolicy xmlns="${S3_XML_NAMESPACE}">` +
      `<Owner>${ownerElements(owner)}</Owner>` +
      '<AccessControlList><Grant>' +
      `<Grantee ${XSI} xsi:type="CanonicalUser">${ownerElements(owner)}</Grantee>` +
      '<Permission>FULL_CONTROL</Permission>' +
      `</Grant>${everyoneReads}</AccessControlList></AccessControlPolicy>`,
  );
}

/**
 * Whether a PutObjectAcl request asks for what the object already has. Throws MalformedACL for a
 * body that is not an AccessControlPolicy and MissingAcl when neither form was sent.
 */
export function requestsOwnerOnlyAcl(cannedAcl: string | undefined, body: Buffer, owner: AclOwner): boolean {
  if (cannedAcl !== undefined) return OWNER_ONLY_CANNED_ACLS.includes(cannedAcl.trim());
  if (body.length === 0) throw new S3Error('MissingAcl');
  const policy = parseXml(body.toString('utf8'), ['Grant'])?.AccessControlPolicy;
  // An empty <AccessControlList/> reads as text: a policy with no grants, which is not owner-only either.
  const list = childObject(policy, 'AccessControlList') ?? childText(policy, 'AccessControlList');
  if (policy === undefined || list === undefined) throw new S3Error('MalformedACL');
  const grants = childList(list, 'Grant');
  return (
    grants.length > 0 &&
    grants.every(
      (grant) =>
        childText(grant, 'Permission') === 'FULL_CONTROL' &&
        childText(childObject(grant, 'Grantee'), 'ID') === owner.id,
    )
  );
}

function ownerOf(stage: InBucket<Planned>): AclOwner {
  return { id: stage.organisation.id, displayName: stage.organisation.name };
}

async function assertObjectExists(stage: InBucket<Planned>, upstream: Upstream): Promise<void> {
  const location = {
    bucket: stage.bucket,
    key: stage.key,
    versionId: queryValue(stage.query, 'versionId') ?? null,
  };
  if (await isObjectMissing(stage.exchange, upstream, location)) throw new S3Error('NoSuchKey');
}

/**
 * GetBucketAcl: the organisation that owns the bucket has full control, and everyone may read a
 * public bucket (the control plane's switch). The store's own ACL would name the gateway's
 * shared backend user, which no tenant should see.
 */
export function answerGetBucketAcl(stage: InBucket<Planned>): void {
  sendXml(stage.exchange, 200, renderOwnerFullControl(ownerOf(stage), stage.entry.bucket.public));
}

export async function answerGetObjectAcl(stage: InBucket<Planned>, upstream: Upstream): Promise<void> {
  await assertObjectExists(stage, upstream);
  sendXml(stage.exchange, 200, renderOwnerFullControl(ownerOf(stage)));
}

export async function answerPutObjectAcl(stage: InBucket<Planned>, upstream: Upstream): Promise<void> {
  const body = announcesBody(stage.exchange.headers)
    ? await readBody(stage.exchange, stage.body, MAX_ACL_BODY_BYTES, 'MalformedACL')
    : Buffer.alloc(0);
  if (!requestsOwnerOnlyAcl(headerValue(stage.headers, 'x-amz-acl'), body, ownerOf(stage))) {
    throw new S3Error('AclNotImplemented');
  }
  await assertObjectExists(stage, upstream);
  sendEmpty(stage.exchange, 200);
}
