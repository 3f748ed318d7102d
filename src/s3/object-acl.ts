/**
 * Object ACLs as decisions.md settles them: this service has one ACL, the owner's full control.
 * `GET ?acl` answers it; `PUT ?acl` with a private ACL, or the very owner-only grant it read,
 * changes nothing and succeeds (s3cmd reads and writes `?acl` on every copy); any other grant is
 * 501 NotImplemented. The owner is the organisation that owns the bucket.
 */
import type { OrganisationRecord } from '../store/records.js';
import { queryValue, type S3Address } from './address.js';
import { OWNER_ONLY_CANNED_ACLS } from './bans.js';
import { announcesBody, planBody, readBody } from './body.js';
import type { S3Dependencies } from './dependencies.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { isObjectMissing } from './object-probe.js';
import { headerValue, type HeaderMap } from './request-headers.js';
import { sendEmpty, sendXml } from './respond.js';
import {
  childList,
  childObject,
  childText,
  element,
  parseXml,
  S3_XML_NAMESPACE,
  xmlDocument,
} from './xml.js';

export interface AclOwner {
  readonly id: string;
  readonly displayName: string;
}

export const MAX_ACL_BODY_BYTES = 64 * 1024;

function ownerElements(owner: AclOwner): string {
  return element('ID', owner.id) + element('DisplayName', owner.displayName);
}

export function renderOwnerFullControl(owner: AclOwner): string {
  return xmlDocument(
    `<AccessControlPolicy xmlns="${S3_XML_NAMESPACE}">` +
      `<Owner>${ownerElements(owner)}</Owner>` +
      '<AccessControlList><Grant>' +
      `<Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser">${ownerElements(owner)}</Grantee>` +
      '<Permission>FULL_CONTROL</Permission>' +
      '</Grant></AccessControlList></AccessControlPolicy>',
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

function ownerOf(exchange: S3Exchange): AclOwner {
  const organisation = exchange.organisation as OrganisationRecord;
  return { id: organisation.id, displayName: organisation.name };
}

async function assertObjectExists(exchange: S3Exchange, dependencies: S3Dependencies): Promise<void> {
  const address = exchange.address as S3Address;
  const location = {
    bucket: address.bucket as string,
    key: address.key,
    versionId: queryValue(address, 'versionId') ?? null,
  };
  if (await isObjectMissing(exchange, dependencies, location)) throw new S3Error('NoSuchKey');
}

export async function answerGetObjectAcl(exchange: S3Exchange, dependencies: S3Dependencies): Promise<void> {
  await assertObjectExists(exchange, dependencies);
  sendXml(exchange, 200, renderOwnerFullControl(ownerOf(exchange)));
}

export async function answerPutObjectAcl(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  headers: HeaderMap,
  payloadHash: string | undefined,
): Promise<void> {
  const plan = planBody(headers, { payloadHash });
  const body = announcesBody(exchange.headers)
    ? await readBody(exchange, plan, MAX_ACL_BODY_BYTES, 'MalformedACL')
    : Buffer.alloc(0);
  if (!requestsOwnerOnlyAcl(headerValue(headers, 'x-amz-acl'), body, ownerOf(exchange))) {
    throw new S3Error('AclNotImplemented');
  }
  await assertObjectExists(exchange, dependencies);
  sendEmpty(exchange, 200);
}
