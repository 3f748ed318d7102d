/**
 * May this identity do this operation on this bucket? Every such decision lives here, the copy
 * source's included. The order matters for what a caller can learn: a suspended organisation hears
 * AccountProblem whatever it asks; a bucket that does not exist is NoSuchBucket (names are global,
 * as in S3); a bucket of another organisation, outside the credential's allowlist, or a method the
 * scope does not permit are all the same "Access to this bucket is denied.".
 */
import {
  scopeAllowsMethod,
  scopeCoversBucket,
  scopeCoversKey,
  scopeCoversListing,
  scopePrefixes,
} from '../../access/scope.js';
import { parseCopySource, type CopySource } from '../../protocol/copy-source.js';
import { bucketWriteMessage, S3Error } from '../../protocol/errors.js';
import { headerValue } from '../../protocol/headers.js';
import type { AccessCache, BucketEntry } from '../../store/access-cache.js';
import type { BucketRecord, CredentialRecord, OrganisationRecord } from '../../store/records.js';
import type { Exchange } from '../exchange.js';
import type { OperationName, S3Operation } from '../operations.js';
import type { Authenticated, Authorised } from '../stages.js';

/**
 * The addressed bucket's entry; `known` when an earlier step (CORS) looked it up already. A promise
 * only when the cache has to load it: a cached entry costs the request no turn of the event loop.
 */
export function addressedBucket(
  stage: { readonly bucket: string | null },
  cache: AccessCache,
  known?: BucketEntry | null,
): BucketEntry | null | Promise<BucketEntry | null> {
  if (known !== undefined) return known;
  return stage.bucket === null ? null : cache.bucket(stage.bucket);
}

/**
 * The organisation the request acts for (accounted to it), refused with AccountProblem when
 * suspended. A promise only when the cache has to load it; a refusal is thrown, or rejects.
 */
export function activeOrganisation(
  exchange: Exchange,
  cache: AccessCache,
  id: string,
): OrganisationRecord | Promise<OrganisationRecord> {
  const organisation = cache.organisation(id);
  return organisation instanceof Promise
    ? organisation.then((loaded) => admitOrganisation(exchange, loaded))
    : admitOrganisation(exchange, organisation);
}

function admitOrganisation(exchange: Exchange, organisation: OrganisationRecord | null): OrganisationRecord {
  // A deleted organisation takes its credentials with it; a dangling one is treated as unknown.
  if (organisation === null) throw new S3Error('InvalidAccessKeyId');
  exchange.organisation = organisation;
  if (organisation.status === 'suspended') throw new S3Error('AccountProblem');
  return organisation;
}

/** The read check a copy source must also pass: same organisation, in scope, readable. */
function assertCovers(credential: CredentialRecord, entry: BucketEntry, method: string): void {
  if (
    entry.bucket.organisationId !== credential.organisationId ||
    !scopeCoversBucket(credential.scope, entry.bucket.name) ||
    !scopeAllowsMethod(credential.scope, method)
  ) {
    throw new S3Error('BucketAccessDenied');
  }
}

/** Listings whose `prefix` parameter a prefix-scoped credential must keep inside its prefixes. */
const LISTINGS: ReadonlySet<OperationName> = new Set([
  'ListObjects',
  'ListObjectsV2',
  'ListObjectVersions',
  'ListMultipartUploads',
]);

/**
 * Bucket-level operations a credential limited to some prefixes of the bucket may still use:
 * listings inside its prefixes, the bucket's existence and region (what clients ask before an
 * upload), and DeleteObjects, whose keys are checked one by one when its body is read.
 */
const PREFIX_SCOPED_BUCKET_OPERATIONS: ReadonlySet<OperationName> = new Set([
  ...LISTINGS,
  'HeadBucket',
  'GetBucketLocation',
  'DeleteObjects',
]);

/** A credential limited to key prefixes of this bucket reaches only keys and listings under them. */
function assertCoversKeys(
  stage: Authenticated,
  entry: BucketEntry,
  operation: S3Operation,
  credential: CredentialRecord,
): void {
  const bucket = entry.bucket.name;
  if (scopePrefixes(credential.scope, bucket) === null) return;
  if (operation.level === 'object') {
    if (!scopeCoversKey(credential.scope, bucket, stage.key)) throw new S3Error('BucketAccessDenied');
    return;
  }
  if (!PREFIX_SCOPED_BUCKET_OPERATIONS.has(operation.name)) throw new S3Error('BucketAccessDenied');
  if (LISTINGS.has(operation.name)) {
    const prefix = stage.query.find((parameter) => parameter.name === 'prefix')?.value ?? '';
    if (!scopeCoversListing(credential.scope, bucket, prefix)) throw new S3Error('BucketAccessDenied');
  }
}

/**
 * DeleteObjects by a credential limited to key prefixes: every key its body names must be under
 * them, or nothing is deleted (the keys are known only once the body is read).
 */
export function assertDeletableKeys(stage: Authorised, keys: readonly string[]): void {
  if (stage.identity.kind !== 'credential' || stage.entry === null) return;
  const { scope } = stage.identity.credential;
  const bucket = stage.entry.bucket.name;
  if (keys.some((key) => !scopeCoversKey(scope, bucket, key))) throw new S3Error('BucketAccessDenied');
}

/** The buckets ListBuckets shows a credential: its organisation's, those its scope covers. */
export function visibleBuckets(
  buckets: readonly BucketRecord[],
  credential: CredentialRecord,
): BucketRecord[] {
  return buckets.filter(
    (bucket) =>
      bucket.organisationId === credential.organisationId && scopeCoversBucket(credential.scope, bucket.name),
  );
}

/** The copy source of CopyObject and UploadPartCopy, which the credential must be able to read. */
async function authoriseCopySource(
  stage: Authenticated,
  credential: CredentialRecord,
  cache: AccessCache,
): Promise<CopySource> {
  const source = parseCopySource(headerValue(stage.headers, 'x-amz-copy-source') ?? '');
  const entry = await cache.bucket(source.bucket);
  if (entry === null) throw new S3Error('NoSuchBucket');
  assertCovers(credential, entry, 'GET');
  if (!scopeCoversKey(credential.scope, source.bucket, source.key)) throw new S3Error('BucketAccessDenied');
  return source;
}

/**
 * Suspension outranks the refusal of an operation the endpoint does not offer: a suspended
 * organisation's key, or an anonymous request for one of its buckets, hears AccountProblem.
 */
/** What refusals tell a client about where to go instead. */
export interface Guidance {
  /** The control plane's URL (GATEWAY_CONTROL_PUBLIC_URL or its listen address), when known. */
  readonly controlPlaneUrl: string | null;
}

async function refuseUnoffered(
  stage: Authenticated,
  cache: AccessCache,
  known: BucketEntry | null | undefined,
  guidance: Guidance,
): Promise<never> {
  if (stage.classification.ok) throw new Error('refuseUnoffered called for an offered operation');
  if (stage.identity.kind === 'credential') {
    await activeOrganisation(stage.exchange, cache, stage.identity.credential.organisationId);
  } else {
    const entry = await addressedBucket(stage, cache, known);
    if (entry !== null) await activeOrganisation(stage.exchange, cache, entry.bucket.organisationId);
  }
  const { error, notOffered, details } = stage.classification;
  if (error === 'MethodNotAllowed')
    throw new S3Error(error, undefined, bucketWriteMessage(guidance.controlPlaneUrl));
  throw notOffered === undefined
    ? new S3Error(error, details)
    : new S3Error(
        error,
        undefined,
        `${notOffered.name} is not offered by this gateway: ${notOffered.reason}.`,
      );
}

export async function authorise(
  stage: Authenticated,
  cache: AccessCache,
  known?: BucketEntry | null,
  guidance: Guidance = { controlPlaneUrl: null },
): Promise<Authorised> {
  if (!stage.classification.ok) return refuseUnoffered(stage, cache, known, guidance);
  const operation = stage.classification.operation;
  const { exchange, identity } = stage;
  let organisation: OrganisationRecord;
  let entry: BucketEntry | null = null;
  let copySource: CopySource | null = null;

  if (identity.kind === 'credential') {
    const { credential } = identity;
    const active = activeOrganisation(exchange, cache, credential.organisationId);
    organisation = active instanceof Promise ? await active : active;
    if (operation.level === 'service') {
      // Listing bucket names is a read: a key that may not read may not list them either.
      if (!scopeAllowsMethod(credential.scope, operation.scopeMethod))
        throw new S3Error('BucketAccessDenied');
    } else {
      const addressed = addressedBucket(stage, cache, known);
      entry = addressed instanceof Promise ? await addressed : addressed;
      if (entry === null) throw new S3Error('NoSuchBucket');
      assertCovers(credential, entry, operation.scopeMethod);
      assertCoversKeys(stage, entry, operation, credential);
      if (operation.name === 'CopyObject' || operation.name === 'UploadPartCopy')
        copySource = await authoriseCopySource(stage, credential, cache);
    }
  } else {
    if (operation.level === 'service') throw new S3Error('AnonymousAccessDenied');
    entry = await addressedBucket(stage, cache, known);
    if (entry === null) throw new S3Error('NoSuchBucket');
    // Suspension refuses public reads too.
    organisation = await activeOrganisation(exchange, cache, entry.bucket.organisationId);
    if (!entry.bucket.public || !operation.publicRead) throw new S3Error('AnonymousAccessDenied');
    // A public bucket shows its objects as they are now. A version (even the current one, named)
    // is what S3 grants apart as s3:GetObjectVersion, and an older one may be what the owner
    // replaced or deleted on purpose (behind a delete marker): making a bucket public grants neither.
    if (stage.query.some((parameter) => parameter.name === 'versionId'))
      throw new S3Error('AnonymousAccessDenied');
  }
  exchange.authorised = true;
  return { ...stage, operation, entry, organisation, copySource };
}
