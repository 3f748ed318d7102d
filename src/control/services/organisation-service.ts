import { generateOpaqueToken, hashToken } from '../../security/tokens.js';
import { inTransaction } from '../../store/database.js';
import type { OrganisationLimits, OrganisationRecord, Role } from '../../store/records.js';
import { queryUsage } from '../../store/usage.js';
import { requireManager, requireMember, type Caller, type Member } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { OneTimeToken } from '../models/common.js';
import type {
  AuditPage,
  InvitationResponse,
  InviteMemberRequest,
  MemberPage,
  MemberView,
  OrganisationView,
  UpdateOrganisationRequest,
  UsageReport,
} from '../models/organisation.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, isUuid, toPage } from '../pagination.js';
import { invalidField, ProblemError, validationProblem } from '../problems.js';
import type { InvitationIssuer } from './invitation-issuer.js';
import { bucketQuotasAbove, updatedOrganisationLimits } from './limit-rules.js';
import { rethrowOrganisationNameTaken } from './record-rules.js';
import type { CountingChange, StorageCounting } from './storage-counting.js';
import { inOneTransaction } from '../../store/transaction.js';
import { summariseRequestRates, summariseStorage, summariseUsage } from './usage-summary.js';
import { auditEntryView, organisationView } from './views.js';

const RESET_TOKEN_TTL_MS = 24 * 3600 * 1000;
const DEFAULT_USAGE_WINDOW_MS = 30 * 24 * 3600 * 1000;
const MAX_USAGE_WINDOW_MS = 366 * 24 * 3600 * 1000;
const MAX_SETTINGS = 50;

/** The caller's organisation: settings, members, invitations, password resets, usage, audit log. */
export class OrganisationService {
  readonly #deps: ControlDependencies;
  readonly #invitations: InvitationIssuer;
  readonly #counting: StorageCounting;

  constructor(deps: ControlDependencies, invitations: InvitationIssuer, counting: StorageCounting) {
    this.#deps = deps;
    this.#invitations = invitations;
    this.#counting = counting;
  }

  async get(caller: Caller): Promise<OrganisationView> {
    const member = requireMember(caller);
    const organisation = await this.#deps.context.store.organisations.find(member.organisationId);
    if (organisation === null) throw new ProblemError('no_organisation');
    return organisationView(organisation);
  }

  /**
   * Owners and admins change their organisation; platform admins any organisation (`organisationId`),
   * and they alone its storage quota and request rate.
   */
  async update(
    caller: Caller,
    request: UpdateOrganisationRequest,
    organisationId?: string,
  ): Promise<OrganisationView> {
    const current = await this.#target(caller, organisationId);
    const { organisations } = this.#deps.context.store;
    let settings: Record<string, unknown> | undefined;
    if (request.settings !== undefined) {
      settings = { ...current.settings };
      for (const [key, value] of Object.entries(request.settings)) {
        if (value === null) delete settings[key];
        else settings[key] = value;
      }
      if (Object.keys(settings).length > MAX_SETTINGS) {
        throw invalidField('settings', `holds at most ${MAX_SETTINGS} keys`);
      }
    }
    let limits: OrganisationLimits | undefined;
    let counting: CountingChange | undefined;
    if (request.limits !== undefined) {
      limits = updatedOrganisationLimits(current.limits, request.limits, caller.platformAdmin);
      counting = await this.#counting.organisationQuotaChange(
        current.id,
        current.limits.storage,
        limits.storage,
      );
    }
    const updated = await inOneTransaction(this.#deps.context.store, async (tx, changed) => {
      if (limits !== undefined) {
        // Locked, so that no bucket quota is raised past the new limit while it is set.
        await organisations.lockForUpdate(current.id, tx);
        const buckets = await this.#deps.context.store.buckets.allForOrganisation(current.id, tx);
        const errors = bucketQuotasAbove(limits.storage, buckets);
        if (errors.length > 0) throw validationProblem(errors);
      }
      let updated = await organisations
        .updateSettings(current.id, { name: request.name, settings }, tx)
        .catch(rethrowOrganisationNameTaken);
      if (limits !== undefined) {
        updated = await organisations.setLimits(current.id, limits, tx);
        await counting?.(tx);
      }
      changed('organisation', current.id);
      if (updated === null) throw new ProblemError('no_organisation');
      await this.#deps.audit.record(
        caller,
        {
          organisationId: current.id,
          action: 'organisation.update',
          target: current.id,
          details: { name: request.name, settings: request.settings, limits: request.limits },
        },
        tx,
      );
      return updated;
    });
    return organisationView(updated);
  }

  /**
   * The organisation a change or a report is for: the caller's own (owners and admins), or, for
   * platform admins, the one `organisationId` names.
   */
  async #target(caller: Caller, organisationId: string | undefined): Promise<OrganisationRecord> {
    const { organisations } = this.#deps.context.store;
    if (organisationId !== undefined && organisationId !== caller.organisationId) {
      if (!caller.platformAdmin) throw new ProblemError('platform_admin_required');
      const organisation = isUuid(organisationId) ? await organisations.find(organisationId) : null;
      if (organisation === null) throw new ProblemError('organisation_not_found');
      return organisation;
    }
    const member = requireManager(caller);
    const organisation = await organisations.find(member.organisationId);
    if (organisation === null) throw new ProblemError('no_organisation');
    return organisation;
  }

  async members(caller: Caller, options: { limit?: number; cursor?: string }): Promise<MemberPage> {
    const member = requireMember(caller);
    const page = await this.#deps.context.store.users.members(member.organisationId, {
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, isUuid),
    });
    return toPage(page, (user): MemberView => ({
      userId: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      joinedAt: user.joinedAt,
    }));
  }

  async invite(caller: Caller, request: InviteMemberRequest): Promise<InvitationResponse> {
    const member = requireManager(caller);
    requireOwnerFor(member, request.role);
    await this.#invitations.ensureInvitable(request.email);
    const invitation = await inOneTransaction(this.#deps.context.store, async (tx) => {
      const invitation = await this.#invitations.issue(
        {
          organisationId: member.organisationId,
          email: request.email,
          role: request.role,
          createdBy: member.userId,
        },
        tx,
      );
      await this.#deps.audit.record(
        caller,
        {
          organisationId: member.organisationId,
          action: 'member.invite',
          target: request.email,
          details: { role: request.role },
        },
        tx,
      );
      return invitation;
    });
    return { invitation };
  }

  /** The last owner cannot be demoted; owners alone make or unmake owners. */
  async changeRole(caller: Caller, userId: string, role: Role): Promise<MemberView> {
    const member = requireManager(caller);
    const target = await this.#memberOf(member, userId);
    requireOwnerFor(member, target.role);
    requireOwnerFor(member, role);
    const { store } = this.#deps.context;
    await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      if (target.role === 'owner' && role !== 'owner') {
        if ((await store.users.countOwnersForUpdate(member.organisationId, tx)) <= 1) {
          throw new ProblemError('last_owner', 'The last owner cannot be demoted; make another owner first.');
        }
      }
      await store.users.setRole(userId, role, tx);
      await this.#deps.audit.record(
        caller,
        {
          organisationId: member.organisationId,
          action: 'member.change_role',
          target: userId,
          details: { from: target.role, to: role },
        },
        tx,
      );
    });
    return { ...target, role };
  }

  /** Removing a member ends their sessions at once; the last owner cannot be removed. */
  async remove(caller: Caller, userId: string): Promise<void> {
    const member = requireManager(caller);
    const target = await this.#memberOf(member, userId);
    requireOwnerFor(member, target.role);
    const { store } = this.#deps.context;
    await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      if (
        target.role === 'owner' &&
        (await store.users.countOwnersForUpdate(member.organisationId, tx)) <= 1
      ) {
        throw new ProblemError('last_owner', 'The last owner cannot be removed; make another owner first.');
      }
      await store.users.removeMembership(userId, tx);
      const ended = await this.#deps.stores.sessions.revokeAllForUser(
        userId,
        'removed_from_organisation',
        {},
        tx,
      );
      await this.#deps.audit.record(
        caller,
        {
          organisationId: member.organisationId,
          action: 'member.remove',
          target: userId,
          details: { email: target.email, role: target.role, sessionsEnded: ended },
        },
        tx,
      );
    });
  }

  /** A one-time token the member uses with POST /v1/auth/password-reset; replaces earlier ones. */
  async issuePasswordReset(caller: Caller, userId: string): Promise<OneTimeToken> {
    const member = requireManager(caller);
    const target = await this.#memberOf(member, userId);
    requireOwnerFor(member, target.role);
    const { passwordResets } = this.#deps.stores;
    const token = generateOpaqueToken();
    const reset = await this.#deps.context.store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      await passwordResets.discardOpenForUser(userId, tx);
      const reset = await passwordResets.create(
        {
          userId,
          tokenHash: hashToken(token),
          createdBy: member.userId,
          expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_MS),
        },
        tx,
      );
      await this.#deps.audit.record(
        caller,
        { organisationId: member.organisationId, action: 'member.password_reset_issue', target: userId },
        tx,
      );
      return reset;
    });
    return { token, expiresAt: reset.expiresAt };
  }

  async usage(
    caller: Caller,
    window: { from?: Date; to?: Date },
    organisationId?: string,
  ): Promise<UsageReport> {
    const organisation = await this.#target(caller, organisationId);
    const to = window.to ?? new Date();
    const from = window.from ?? new Date(to.getTime() - DEFAULT_USAGE_WINDOW_MS);
    if (from.getTime() >= to.getTime()) throw invalidField('from', 'must be before to');
    if (to.getTime() - from.getTime() > MAX_USAGE_WINDOW_MS) {
      throw invalidField('from', 'the window spans at most 366 days');
    }
    const { store } = this.#deps.context;
    // Traffic is summed in memory between flushes; flush so the report includes the last seconds.
    await store.usage.flush();
    const rows = await queryUsage(store.db.sql, organisation.id, from, to);
    const [buckets, stored] = await Promise.all([
      store.buckets.allForOrganisation(organisation.id),
      store.storageUsage.figures(organisation.id),
    ]);
    return {
      from,
      to,
      ...summariseUsage(rows),
      storage: summariseStorage(organisation, buckets, stored),
      requestRates: summariseRequestRates(organisation.limits, rows),
    };
  }

  async auditLog(caller: Caller, options: { limit?: number; cursor?: string }): Promise<AuditPage> {
    const member = requireManager(caller);
    const page = await this.#deps.stores.auditLog.listForOrganisation(member.organisationId, {
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, (position) => /^\d{1,19}$/.test(position)),
    });
    return toPage(page, auditEntryView);
  }

  async #memberOf(member: Member, userId: string): Promise<MemberView> {
    const { users } = this.#deps.context.store;
    const membership = isUuid(userId) ? await users.membership(userId) : null;
    const user = membership === null ? null : await users.findById(userId);
    if (membership === null || user === null || membership.organisationId !== member.organisationId) {
      throw new ProblemError('member_not_found');
    }
    return {
      userId: user.id,
      email: user.email,
      name: user.name,
      role: membership.role,
      joinedAt: membership.createdAt,
    };
  }
}

/** Admins manage members and admins; anything that touches an owner is for owners. */
function requireOwnerFor(member: Member, role: Role): void {
  if (role === 'owner' && member.role !== 'owner') {
    throw new ProblemError('forbidden', 'Only owners may invite, change or remove owners.');
  }
}
