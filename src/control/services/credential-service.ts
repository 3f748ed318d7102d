import { normaliseScope, ScopeValidationError, type CredentialScope } from '../../access/scope.js';
import { generateAccessKeyId, generateSecretAccessKey } from '../../security/ids.js';
import type { Sql } from '../../store/database.js';
import type { CredentialRecord } from '../../store/records.js';
import { isManager, requireMember, type Caller, type Member } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type {
  CreateCredentialRequest,
  CreatedCredential,
  CredentialPage,
  CredentialScopeBody,
  CredentialView,
  RotatedCredential,
  UpdateCredentialRequest,
} from '../models/credentials.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from '../pagination.js';
import { invalidField, ProblemError } from '../problems.js';
import { requireCredentialOfMember } from './record-rules.js';
import { inOneTransaction } from '../../store/transaction.js';
import { credentialView, scopeView } from './views.js';

/**
 * Storage credentials. Owners and admins manage all of the organisation's; a member manages the ones
 * they created. The secret leaves the service only from create and rotate.
 */
export class CredentialService {
  readonly #deps: ControlDependencies;

  constructor(deps: ControlDependencies) {
    this.#deps = deps;
  }

  async list(caller: Caller, options: { limit?: number; cursor?: string }): Promise<CredentialPage> {
    const member = requireMember(caller);
    const page = await this.#deps.context.store.credentials.listForOrganisation(member.organisationId, {
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, (position) => /^[A-Z0-9]{1,64}$/.test(position)),
      ...(isManager(member) ? {} : { createdBy: member.userId }),
    });
    const now = new Date();
    return toPage(page, (credential) => credentialView(credential, now));
  }

  async create(caller: Caller, request: CreateCredentialRequest): Promise<CreatedCredential> {
    const member = requireMember(caller);
    const scope = await this.#validScope(member, request.scope, { nested: true });
    const expiresAt = validExpiry(request.expiresAt);
    const secret = generateSecretAccessKey();
    const { store } = this.#deps.context;
    const credential = await inOneTransaction(store, async (tx, changed) => {
      const credential = await store.credentials.create(
        {
          accessKeyId: generateAccessKeyId(),
          organisationId: member.organisationId,
          name: request.name,
          secret,
          scope,
          expiresAt,
          createdBy: member.userId,
        },
        tx,
      );
      // A lookup of this id before it existed may be cached as "unknown".
      changed('credential', credential.accessKeyId);
      await this.#audit(
        member,
        'credential.create',
        credential.accessKeyId,
        { name: credential.name, scope: scopeView(scope), expiresAt },
        tx,
      );
      return credential;
    });
    return {
      accessKeyId: credential.accessKeyId,
      secret,
      name: credential.name,
      scope: scopeView(credential.scope),
      expiresAt: credential.expiresAt,
      createdAt: credential.createdAt,
    };
  }

  async get(caller: Caller, accessKeyId: string): Promise<CredentialView> {
    const { credential } = await this.#manageable(caller, accessKeyId);
    return credentialView(credential);
  }

  async update(
    caller: Caller,
    accessKeyId: string,
    request: UpdateCredentialRequest,
  ): Promise<CredentialView> {
    const { member } = await this.#manageable(caller, accessKeyId);
    const changes = {
      name: request.name,
      expiresAt: request.expiresAt === undefined ? undefined : validExpiry(request.expiresAt),
    };
    const updated = await this.#updated(member, accessKeyId, changes, 'credential.update', changes);
    return credentialView(updated);
  }

  async replaceScope(
    caller: Caller,
    accessKeyId: string,
    request: CredentialScopeBody,
  ): Promise<CredentialView> {
    const { member } = await this.#manageable(caller, accessKeyId);
    const scope = await this.#validScope(member, request, { nested: false });
    const updated = await this.#updated(member, accessKeyId, { scope }, 'credential.scope_replace', {
      scope: scopeView(scope),
    });
    return credentialView(updated);
  }

  /** A new secret; with a grace period the old one keeps verifying until it ends. */
  async rotate(caller: Caller, accessKeyId: string, gracePeriodSeconds = 0): Promise<RotatedCredential> {
    const { member } = await this.#manageable(caller, accessKeyId);
    const secret = generateSecretAccessKey();
    const previousValidUntil =
      gracePeriodSeconds > 0 ? new Date(Date.now() + gracePeriodSeconds * 1000) : null;
    const { store } = this.#deps.context;
    const rotated = await inOneTransaction(store, async (tx, changed) => {
      const rotated = await store.credentials.rotate(accessKeyId, secret, previousValidUntil, tx);
      changed('credential', accessKeyId);
      if (rotated === null) throw new ProblemError('credential_not_found');
      await this.#audit(member, 'credential.rotate', accessKeyId, { gracePeriodSeconds }, tx);
      return rotated;
    });
    return { accessKeyId, secret, previousSecretValidUntil: rotated.previousSecretValidUntil };
  }

  /** Revocation deletes the record: storage then answers InvalidAccessKeyId. */
  async revoke(caller: Caller, accessKeyId: string): Promise<void> {
    const { member, credential } = await this.#manageable(caller, accessKeyId);
    const { store } = this.#deps.context;
    await inOneTransaction(store, async (tx, changed) => {
      await store.credentials.delete(accessKeyId, tx);
      changed('credential', accessKeyId);
      await this.#audit(member, 'credential.revoke', accessKeyId, { name: credential.name }, tx);
    });
  }

  /** One update of the record and its audit entry, together. */
  async #updated(
    member: Member,
    accessKeyId: string,
    changes: { name?: string; expiresAt?: Date | null; scope?: CredentialScope },
    action: string,
    details: Record<string, unknown>,
  ): Promise<CredentialRecord> {
    const { store } = this.#deps.context;
    return inOneTransaction(store, async (tx, changed) => {
      const updated = await store.credentials.update(accessKeyId, changes, tx);
      changed('credential', accessKeyId);
      if (updated === null) throw new ProblemError('credential_not_found');
      await this.#audit(member, action, accessKeyId, details, tx);
      return updated;
    });
  }

  async #manageable(
    caller: Caller,
    accessKeyId: string,
  ): Promise<{ member: Member; credential: CredentialRecord }> {
    const member = requireMember(caller);
    const credential = await this.#deps.context.store.credentials.find(accessKeyId);
    if (credential === null || credential.organisationId !== member.organisationId) {
      throw new ProblemError('credential_not_found');
    }
    requireCredentialOfMember(member, credential, 'Members manage only the credentials they created.');
    return { member, credential };
  }

  /** Checks the shape (shared rules) and that every named bucket is one of the organisation's. */
  async #validScope(
    member: Member,
    input: CredentialScopeBody,
    options: { nested: boolean },
  ): Promise<CredentialScope> {
    const field = (name: string) => (options.nested ? name : scopeBodyField(name));
    let scope: CredentialScope;
    try {
      scope = normaliseScope(input);
    } catch (error) {
      if (error instanceof ScopeValidationError) throw invalidField(field(error.field), error.message);
      throw error;
    }
    const named = [
      ...scope.buckets.filter((name) => name !== '*').map((name) => ({ name, at: 'scope.buckets' })),
      ...Object.keys(scope.prefixes ?? {}).map((name) => ({ name, at: `scope.prefixes.${name}` })),
    ];
    for (const { name, at } of named) {
      const bucket = await this.#deps.context.store.buckets.find(name);
      if (bucket === null || bucket.organisationId !== member.organisationId) {
        throw invalidField(field(at), `no bucket named "${name}" in your organisation`);
      }
    }
    return scope;
  }

  async #audit(
    member: Member,
    action: string,
    accessKeyId: string,
    details: Record<string, unknown>,
    tx: Sql,
  ) {
    await this.#deps.audit.record(
      member,
      { organisationId: member.organisationId, action, target: accessKeyId, details },
      tx,
    );
  }
}

/** normaliseScope names fields under "scope."; in the PUT .../scope body they are top-level. */
function scopeBodyField(field: string): string {
  return field === 'scope' ? 'body' : field.slice('scope.'.length);
}

function validExpiry(expiresAt: Date | null | undefined): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  if (expiresAt.getTime() <= Date.now()) throw invalidField('expiresAt', 'must be in the future');
  return expiresAt;
}
