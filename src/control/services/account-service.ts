import { hashPassword, verifyPassword } from '../../security/passwords.js';
import { inTransaction } from '../../store/database.js';
import { isSessionPosition } from '../../store/sessions.js';
import { requireMember, type Caller } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { ChangePasswordRequest, Me, MyOrganisation, SessionPage } from '../models/account.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, isUuid, toPage } from '../pagination.js';
import { ProblemError } from '../problems.js';
import { inOneTransaction } from '../../store/transaction.js';
import { sessionView } from './views.js';

/** The caller's own account, organisation membership and sessions. */
export class AccountService {
  readonly #deps: ControlDependencies;

  constructor(deps: ControlDependencies) {
    this.#deps = deps;
  }

  async me(caller: Caller): Promise<Me> {
    const user = await this.#deps.context.store.users.findById(caller.userId);
    if (user === null) throw new ProblemError('session_ended');
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: caller.role,
      platformAdmin: user.platformAdmin,
      organisationId: caller.organisationId,
      createdAt: user.createdAt,
    };
  }

  async rename(caller: Caller, name: string): Promise<Me> {
    const { store } = this.#deps.context;
    await inOneTransaction(store, async (tx) => {
      await store.users.updateName(caller.userId, name, tx);
      await this.#deps.audit.record(
        caller,
        {
          organisationId: caller.organisationId,
          action: 'user.rename',
          target: caller.userId,
          details: { name },
        },
        tx,
      );
    });
    return this.me(caller);
  }

  /** Other sessions end: whoever else held this account's password is logged out. */
  async changePassword(caller: Caller, request: ChangePasswordRequest): Promise<void> {
    const { store } = this.#deps.context;
    const user = await store.users.findById(caller.userId);
    if (user === null) throw new ProblemError('session_ended');
    if (!(await verifyPassword(request.currentPassword, user.passwordHash))) {
      throw new ProblemError('current_password_incorrect', 'currentPassword: is not your current password', {
        errors: [{ field: 'currentPassword', message: 'is not your current password' }],
      });
    }
    const passwordHash = await hashPassword(request.newPassword);
    await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      await store.users.updatePasswordHash(user.id, passwordHash, tx);
      const ended = await this.#deps.stores.sessions.revokeAllForUser(
        user.id,
        'password_change',
        { keep: caller.sessionId },
        tx,
      );
      await this.#deps.audit.record(
        caller,
        {
          organisationId: caller.organisationId,
          action: 'user.password_change',
          target: user.id,
          details: { otherSessionsEnded: ended },
        },
        tx,
      );
    });
  }

  async organisation(caller: Caller): Promise<MyOrganisation> {
    const member = requireMember(caller);
    const organisation = await this.#deps.context.store.organisations.find(member.organisationId);
    if (organisation === null) throw new ProblemError('no_organisation');
    return {
      id: organisation.id,
      name: organisation.name,
      status: organisation.status,
      suspensionReason: organisation.suspensionReason,
      role: member.role,
    };
  }

  async sessions(caller: Caller, options: { limit?: number; cursor?: string }): Promise<SessionPage> {
    const page = await this.#deps.stores.sessions.listActiveForUser(caller.userId, {
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, isSessionPosition),
    });
    return toPage(page, (session) => sessionView(session, caller.sessionId));
  }

  async endSession(caller: Caller, sessionId: string): Promise<void> {
    const { sessions } = this.#deps.stores;
    const session = isUuid(sessionId) ? await sessions.find(sessionId) : null;
    if (session === null || session.userId !== caller.userId || session.revokedAt !== null) {
      throw new ProblemError('session_not_found');
    }
    await inOneTransaction(this.#deps.context.store, async (tx) => {
      await sessions.revoke(session.id, 'ended_by_user', tx);
      await this.#deps.audit.record(
        caller,
        { organisationId: caller.organisationId, action: 'session.end', target: session.id },
        tx,
      );
    });
  }

  async endAllSessions(caller: Caller): Promise<void> {
    await inOneTransaction(this.#deps.context.store, async (tx) => {
      const ended = await this.#deps.stores.sessions.revokeAllForUser(
        caller.userId,
        'ended_everywhere',
        {},
        tx,
      );
      await this.#deps.audit.record(
        caller,
        {
          organisationId: caller.organisationId,
          action: 'session.end_all',
          target: caller.userId,
          details: { sessionsEnded: ended },
        },
        tx,
      );
    });
  }
}
