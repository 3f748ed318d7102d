/**
 * Who sent a browser form upload, and whether its policy allows what it sends. The signature is
 * in the form (x-amz-credential, x-amz-signature over the base64 policy), not in the request's
 * headers; once it verifies, the policy's expiry and conditions are held against the fields, and
 * the request goes on as the PutObject it amounts to: the object key from the `key` field, its
 * headers from the fields that describe the object, authorised and banned like any PutObject.
 */
import { credentialExpired } from '../../access/credential-expiry.js';
import { S3Error } from '../../protocol/errors.js';
import type { HeaderMap } from '../../protocol/headers.js';
import { UNSIGNED_PAYLOAD } from '../../protocol/headers.js';
import { isKeyCharacterSetValid, isKeyLengthValid } from '../../protocol/limits.js';
import type { CredentialRecord } from '../../store/records.js';
import { NO_BODY } from '../../sigv4/body-plan.js';
import { checkPostPolicy, parsePostPolicy } from '../../sigv4/post-policy.js';
import type { SigV4Verifier } from '../../sigv4/verify.js';
import type { S3Operation } from '../operations.js';
import type { Addressed, Authenticated, CredentialIdentity } from '../stages.js';
import type { FormHead } from './form-fields.js';

/** Fields that describe the object, sent on as the PutObject's headers (`acl` as x-amz-acl). */
const OBJECT_FIELDS: ReadonlySet<string> = new Set([
  'content-type',
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
]);

function objectHeaders(fields: ReadonlyMap<string, string>): HeaderMap {
  const headers: Record<string, string> = {};
  for (const [name, value] of fields) {
    if (
      OBJECT_FIELDS.has(name) ||
      name.startsWith('x-amz-meta-') ||
      name.startsWith('x-amz-server-side-encryption')
    ) {
      headers[name] = value;
    }
  }
  const acl = fields.get('acl');
  if (acl !== undefined) headers['x-amz-acl'] = acl;
  return headers;
}

const PUT_OBJECT: S3Operation = {
  name: 'PostObject',
  level: 'object',
  scopeMethod: 'PUT',
  publicRead: false,
};

export async function authenticateForm(
  stage: Addressed,
  head: FormHead,
  verifier: SigV4Verifier<CredentialRecord>,
): Promise<Authenticated & { readonly identity: CredentialIdentity }> {
  const { exchange } = stage;
  const { fields } = head;
  // A form without a signature is an anonymous write, which no bucket here allows.
  if (!fields.has('x-amz-signature') && !fields.has('policy')) throw new S3Error('AnonymousAccessDenied');
  const now = new Date();
  const result = await verifier.authenticateForm({
    algorithm: fields.get('x-amz-algorithm'),
    credential: fields.get('x-amz-credential'),
    date: fields.get('x-amz-date'),
    policy: fields.get('policy'),
    signature: fields.get('x-amz-signature'),
    now,
  });
  exchange.accessKeyId = result.accessKeyId ?? null;
  if (!result.ok) throw new S3Error(result.error, result.details);
  const { credential } = result;
  if (credentialExpired(credential, now)) throw new S3Error('ExpiredAccessKey');

  const policy = parsePostPolicy(fields.get('policy') ?? '');
  if (policy === null) throw new S3Error('InvalidPolicyDocument');
  const verdict = checkPostPolicy(policy, new Map([...fields, ['bucket', stage.bucket ?? '']]), {
    now,
    signedAt: result.signedAt,
  });
  if (!verdict.ok) {
    if (verdict.failure === 'lifetime') throw new S3Error('PostPolicyLifetimeTooLong');
    if (verdict.failure === 'expired') throw new S3Error('PostPolicyExpired');
    throw verdict.failure === 'condition'
      ? new S3Error(
          'PostPolicyConditionFailed',
          undefined,
          `Invalid according to Policy: Policy Condition failed: ${verdict.detail}`,
        )
      : new S3Error(
          'PostPolicyExtraFields',
          undefined,
          `Invalid according to Policy: Extra input fields: ${verdict.detail}`,
        );
  }
  if (verdict.lengthRange !== null) {
    if (head.fileLength > verdict.lengthRange.max) throw new S3Error('PostEntityTooLarge');
    if (head.fileLength < verdict.lengthRange.min) throw new S3Error('PostEntityTooSmall');
  }

  const keyField = fields.get('key');
  if (keyField === undefined || keyField === '') throw new S3Error('PostMissingKey');
  // S3 puts the file's own name where the key says ${filename}.
  const key = keyField.replaceAll('${filename}', head.filename);
  if (!isKeyLengthValid(key)) throw new S3Error('KeyTooLong');
  if (!isKeyCharacterSetValid(key)) throw new S3Error('KeyWithNul');
  exchange.key = key;

  return {
    ...stage,
    key,
    level: 'object',
    headers: objectHeaders(fields),
    classification: { ok: true, operation: PUT_OBJECT },
    identity: { kind: 'credential', credential, form: 'form', payloadMode: UNSIGNED_PAYLOAD },
    bodyPlan: NO_BODY,
  };
}
