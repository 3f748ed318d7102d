/**
 * May this identity do this operation on this bucket? The order matters for what a caller can
 * learn: a suspended organisation hears AccountProblem whatever it asks; a bucket that does not
 * exist is NoSuchBucket (names are global, as in S3); a bucket of another organisation, outside
 * the credential's allowlist, or a method the scope does not permit are all the same
 * "Access to this bucket is denied.".
 */
import { scopeAllowsMethod, scopeCoversBucket } from '../access/scope.js';
import type { AccessCache, BucketEntry } from '../store/access-cache.js';
import type { CredentialRecord, OrganisationRecord } from '../store/records.js';
import { S3Error } from './errors.js';
import type { Identity, S3Exchange } from './exchange.js';
import type { S3Operation } from './operation.js';

/** The addressed bucket, looked up once per request (CORS may need it before authorisation). */
export async function loadBucket(exchange: S3Exchange, cache: AccessCache): Promise<BucketEntry | null> {
  if (exchange.bucket !== undefined) return exchange.bucket;
  const name = exchange.address?.bucket ?? null;
  exchange.bucket = name === null ? null : await cache.bucket(name);
  return exchange.bucket;
}

async function loadOrganisation(
  exchange: S3Exchange,
  cache: AccessCache,
  id: string,
): Promise<OrganisationRecord> {
  const organisation = await cache.organisation(id);
  // A deleted organisation takes its credentials with it; a dangling one is treated as unknown.
  if (organisation === null) throw new S3Error('InvalidAccessKeyId');
  exchange.organisation = organisation;
  return organisation;
}

/** A suspended organisation hears AccountProblem whatever it, or anyone reading its buckets, asks. */
export async function assertOrganisationActive(
  exchange: S3Exchange,
  cache: AccessCache,
  id: string,
): Promise<void> {
  const organisation = await loadOrganisation(exchange, cache, id);
  if (organisation.status === 'suspended') throw new S3Error('AccountProblem');
}

/**
 * Suspension outranks the refusal of an operation the endpoint does not offer: a suspended
 * organisation's key, or an anonymous request for one of its buckets, hears AccountProblem.
 */
export async function assertRequesterActive(
  exchange: S3Exchange,
  cache: AccessCache,
  identity: Identity,
): Promise<void> {
  if (identity.kind === 'credential') {
    await assertOrganisationActive(exchange, cache, identity.credential.organisationId);
    return;
  }
  const entry = await loadBucket(exchange, cache);
  if (entry !== null) await assertOrganisationActive(exchange, cache, entry.bucket.organisationId);
}

/** The read check a copy source must also pass: same organisation, in scope, readable. */
export function assertCredentialCovers(
  credential: CredentialRecord,
  entry: BucketEntry,
  method: string,
): void {
  if (
    entry.bucket.organisationId !== credential.organisationId ||
    !scopeCoversBucket(credential.scope, entry.bucket.name) ||
    !scopeAllowsMethod(credential.scope, method)
  ) {
    throw new S3Error('BucketAccessDenied');
  }
}

async function authoriseCredential(
  exchange: S3Exchange,
  cache: AccessCache,
  credential: CredentialRecord,
  operation: S3Operation,
): Promise<void> {
  await assertOrganisationActive(exchange, cache, credential.organisationId);
  if (operation.level === 'service') {
    // Listing bucket names is a read: a key that may not read may not list them either.
    if (!scopeAllowsMethod(credential.scope, operation.scopeMethod)) throw new S3Error('BucketAccessDenied');
    return;
  }
  const entry = await loadBucket(exchange, cache);
  if (entry === null) throw new S3Error('NoSuchBucket');
  assertCredentialCovers(credential, entry, operation.scopeMethod);
}

async function authoriseAnonymous(
  exchange: S3Exchange,
  cache: AccessCache,
  operation: S3Operation,
): Promise<void> {
  if (operation.level === 'service') throw new S3Error('AnonymousAccessDenied');
  const entry = await loadBucket(exchange, cache);
  if (entry === null) throw new S3Error('NoSuchBucket');
  // Suspension refuses public reads too.
  await assertOrganisationActive(exchange, cache, entry.bucket.organisationId);
  if (!entry.bucket.public || !operation.publicRead) throw new S3Error('AnonymousAccessDenied');
}

export async function authorise(
  exchange: S3Exchange,
  cache: AccessCache,
  identity: Identity,
  operation: S3Operation,
): Promise<void> {
  if (identity.kind === 'credential')
    await authoriseCredential(exchange, cache, identity.credential, operation);
  else await authoriseAnonymous(exchange, cache, operation);
  exchange.authorised = true;
}
