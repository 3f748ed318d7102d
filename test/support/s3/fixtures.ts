/**
 * Tenants, buckets and credentials for storage-endpoint tests, made directly through the store
 * and backend (the control plane is tested on its own).
 */
import { normaliseScope, type CredentialScope } from '../../../src/access/scope.js';
import { FIRST_ORGANISATION_NAME } from '../../../src/bootstrap.js';
import { generateAccessKeyId, generateSecretAccessKey } from '../../../src/security/ids.js';
import type { CorsRule, OrganisationRecord } from '../../../src/store/records.js';
import type { TestGateway } from '../gateway.js';

export interface TestCredential {
  accessKeyId: string;
  secret: string;
}

export async function defaultOrganisation(gateway: TestGateway): Promise<OrganisationRecord> {
  const organisation = await gateway.gateway.context.store.organisations.findByName(FIRST_ORGANISATION_NAME);
  if (organisation === null) throw new Error('the bootstrap organisation is missing');
  return organisation;
}

export async function createOrganisation(gateway: TestGateway, name: string): Promise<OrganisationRecord> {
  return gateway.gateway.context.store.organisations.create(name);
}

export interface BucketOptions {
  organisationId?: string;
  public?: boolean;
  cors?: CorsRule[];
  /** False for a backend that cannot create buckets (a broken one); the store record is made either way. */
  inBackend?: boolean;
}

/** A bucket in the backend and in the store, owned by `organisationId` (default: the bootstrap organisation). */
export async function createBucket(
  gateway: TestGateway,
  name: string,
  options: BucketOptions = {},
): Promise<void> {
  const { store, backend } = gateway.gateway.context;
  const organisationId = options.organisationId ?? (await defaultOrganisation(gateway)).id;
  if (options.inBackend !== false) await backend.createBucket(name);
  await store.buckets.create({ name, organisationId, public: options.public ?? false, createdBy: null });
  if (options.cors !== undefined) await store.buckets.putCors(name, options.cors, null);
}

export async function createCredential(
  gateway: TestGateway,
  options: { organisationId?: string; scope?: CredentialScope; expiresAt?: Date | null } = {},
): Promise<TestCredential> {
  const organisationId = options.organisationId ?? (await defaultOrganisation(gateway)).id;
  const credential = { accessKeyId: generateAccessKeyId(), secret: generateSecretAccessKey() };
  await gateway.gateway.context.store.credentials.create({
    ...credential,
    organisationId,
    name: `test ${credential.accessKeyId}`,
    scope: normaliseScope(options.scope ?? { buckets: ['*'], level: 'read-write' }),
    expiresAt: options.expiresAt ?? null,
    createdBy: null,
  });
  return credential;
}
