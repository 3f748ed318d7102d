import { inTransaction, type Sql } from '../../store/database.js';
import type { OrganisationRecord } from '../../store/records.js';
import { requirePlatformAdmin, type Caller } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type {
  CreateOrganisationRequest,
  CreateOrganisationResponse,
  OrganisationPage,
  OrganisationView,
} from '../models/organisation.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, isUuid, toPage } from '../pagination.js';
import { ProblemError } from '../problems.js';
import type { InvitationIssuer } from './invitation-issuer.js';
import { rethrowOrganisationNameTaken } from './record-rules.js';
import { inOneTransaction } from '../../store/transaction.js';
import { organisationView } from './views.js';

/** Platform admins: every organisation, its creation, suspension and reinstatement. */
export class PlatformService {
  readonly #deps: ControlDependencies;
  readonly #invitations: InvitationIssuer;

  constructor(deps: ControlDependencies, invitations: InvitationIssuer) {
    this.#deps = deps;
    this.#invitations = invitations;
  }

  async list(caller: Caller, options: { limit?: number; cursor?: string }): Promise<OrganisationPage> {
    requirePlatformAdmin(caller);
    const page = await this.#deps.context.store.organisations.list({
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, isUuid),
    });
    return toPage(page, organisationView);
  }

  /** Creates the organisation and invites its first owner (the token is returned this once). */
  async create(caller: Caller, request: CreateOrganisationRequest): Promise<CreateOrganisationResponse> {
    requirePlatformAdmin(caller);
    const { store } = this.#deps.context;
    return store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      await this.#invitations.ensureInvitable(request.ownerEmail, tx);
      const organisation = await store.organisations
        .create(request.name, tx)
        .catch(rethrowOrganisationNameTaken);
      const invitation = await this.#invitations.issue(
        {
          organisationId: organisation.id,
          email: request.ownerEmail,
          role: 'owner',
          createdBy: caller.userId,
        },
        tx,
      );
      await this.#deps.audit.record(
        caller,
        {
          organisationId: organisation.id,
          action: 'organisation.create',
          target: organisation.id,
          details: { name: organisation.name, ownerEmail: request.ownerEmail },
        },
        tx,
      );
      return {
        organisation: { id: organisation.id, name: organisation.name, status: organisation.status },
        invitation,
      };
    });
  }

  /** Storage refuses every request of a suspended organisation; nothing is deleted. */
  async suspend(caller: Caller, organisationId: string, reason: string): Promise<OrganisationView> {
    requirePlatformAdmin(caller);
    await this.#existing(organisationId);
    const { organisations } = this.#deps.context.store;
    return this.#recorded(caller, organisationId, 'organisation.suspend', { reason }, (tx) =>
      organisations.suspend(organisationId, reason, tx),
    );
  }

  async reinstate(caller: Caller, organisationId: string): Promise<OrganisationView> {
    requirePlatformAdmin(caller);
    await this.#existing(organisationId);
    const { organisations } = this.#deps.context.store;
    return this.#recorded(caller, organisationId, 'organisation.reinstate', {}, (tx) =>
      organisations.reinstate(organisationId, tx),
    );
  }

  async #existing(organisationId: string): Promise<OrganisationRecord> {
    const organisation = isUuid(organisationId)
      ? await this.#deps.context.store.organisations.find(organisationId)
      : null;
    if (organisation === null) throw new ProblemError('organisation_not_found');
    return organisation;
  }

  /** The status change and its audit entry, in one transaction; storage hears of it after the commit. */
  async #recorded(
    caller: Caller,
    organisationId: string,
    action: string,
    details: Record<string, unknown>,
    change: (tx: Sql) => Promise<OrganisationRecord | null>,
  ): Promise<OrganisationView> {
    const organisation = await inOneTransaction(this.#deps.context.store, async (tx, changed) => {
      const organisation = await change(tx);
      changed('organisation', organisationId);
      if (organisation === null) throw new ProblemError('organisation_not_found');
      await this.#deps.audit.record(
        caller,
        { organisationId: organisation.id, action, target: organisation.id, details },
        tx,
      );
      return organisation;
    });
    return organisationView(organisation);
  }
}
