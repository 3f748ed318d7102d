import { hashPassword, verifyPassword } from '../../security/passwords.js';
import { hashToken } from '../../security/tokens.js';
import { inTransaction } from '../../store/database.js';
import { EmailTakenError, type UserRecord } from '../../store/users.js';
import type { RequestOrigin } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { AcceptInvitationRequest, LoginRequest, PasswordResetRequest } from '../models/auth.js';
import { ProblemError } from '../problems.js';
import { SessionStarter, type IssuedTokens } from './session-starter.js';

/** Log in, refresh, log out, accept an invitation, reset a password: everything before a bearer token. */
export class AuthService {
  readonly #deps: ControlDependencies;
  readonly #sessions: SessionStarter;
  /** Verified against when the e-mail is unknown, so both failures take as long. */
  #decoyHash: Promise<string> | null = null;

  constructor(deps: ControlDependencies, sessions: SessionStarter) {
    this.#deps = deps;
    this.#sessions = sessions;
  }

  async login(request: LoginRequest, origin: RequestOrigin): Promise<IssuedTokens> {
    const { metrics, store } = this.#deps.context;
    const limit = await this.#deps.loginLimiter.attempt([
      `address:${origin.sourceAddress ?? 'unknown'}`,
      `account:${request.email.toLowerCase()}`,
    ]);
    if (!limit.allowed) {
      metrics.logins.inc({ outcome: 'rate_limited' });
      throw new ProblemError('rate_limited', 'Too many login attempts; try again later.', {
        headers: { 'Retry-After': String(limit.retryAfterSeconds) },
      });
    }

    const user = await store.users.findByEmail(request.email);
    this.#decoyHash ??= hashPassword('decoy password for unknown e-mail addresses');
    const matches = await verifyPassword(request.password, user?.passwordHash ?? (await this.#decoyHash));
    if (user === null || !matches) {
      metrics.logins.inc({ outcome: 'failed' });
      throw new ProblemError('invalid_credentials');
    }

    const membership = await store.users.membership(user.id);
    const issued = await this.#sessions.start(user, membership, origin);
    await this.#deps.audit.record(actorOf(user, origin), {
      organisationId: membership?.organisationId ?? null,
      action: 'auth.login',
      target: user.id,
    });
    metrics.logins.inc({ outcome: 'succeeded' });
    return issued;
  }

  /**
   * Rotates the refresh token. A token that was used before means it leaked (or a client kept an old
   * copy): the whole session ends, so the thief's copy and the owner's both stop working.
   */
  async refresh(refreshToken: string | null, origin: RequestOrigin): Promise<IssuedTokens> {
    const { metrics, store } = this.#deps.context;
    const { sessions } = this.#deps.stores;
    if (refreshToken === null) throw new ProblemError('refresh_token_missing');
    const tokenHash = hashToken(refreshToken);
    const presented = await sessions.findRefreshToken(tokenHash);
    if (presented === null) {
      metrics.tokenRefreshes.inc({ outcome: 'invalid' });
      throw new ProblemError('refresh_token_invalid');
    }
    const session = await sessions.find(presented.sessionId);
    if (session === null || session.revokedAt !== null || session.expiresAt.getTime() <= Date.now()) {
      metrics.tokenRefreshes.inc({ outcome: 'invalid' });
      throw new ProblemError('session_ended', 'The session of this refresh token has ended; log in again.');
    }

    const next = await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      if (!(await sessions.useRefreshToken(tokenHash, tx))) return null;
      await sessions.touch(session.id, tx);
      return this.#sessions.nextRefreshToken(session.id, tx);
    });
    const user = await store.users.findById(session.userId);
    const membership = user === null ? null : await store.users.membership(user.id);
    if (next === null || user === null) {
      await sessions.revoke(session.id, 'refresh_token_reused');
      metrics.tokenRefreshes.inc({ outcome: 'reuse_detected' });
      await this.#deps.audit.record(
        { userId: session.userId, email: user?.email ?? null, sourceAddress: origin.sourceAddress },
        {
          organisationId: membership?.organisationId ?? null,
          action: 'session.refresh_token_reused',
          target: session.id,
        },
      );
      throw new ProblemError('refresh_token_reused');
    }
    metrics.tokenRefreshes.inc({ outcome: 'refreshed' });
    await this.#deps.audit.record(actorOf(user, origin), {
      organisationId: membership?.organisationId ?? null,
      action: 'session.refresh',
      target: session.id,
    });
    return this.#sessions.tokensFor(user, membership, session.id, session.expiresAt, next);
  }

  /** Ends the cookie's session; without a valid cookie there is nothing to end. */
  async logout(refreshToken: string | null, origin: RequestOrigin): Promise<void> {
    if (refreshToken === null) return;
    const { sessions } = this.#deps.stores;
    const presented = await sessions.findRefreshToken(hashToken(refreshToken));
    if (presented === null) return;
    const session = await sessions.find(presented.sessionId);
    if (session === null || !(await sessions.revoke(session.id, 'logout'))) return;
    const user = await this.#deps.context.store.users.findById(session.userId);
    const membership = user === null ? null : await this.#deps.context.store.users.membership(user.id);
    await this.#deps.audit.record(
      { userId: session.userId, email: user?.email ?? null, sourceAddress: origin.sourceAddress },
      { organisationId: membership?.organisationId ?? null, action: 'auth.logout', target: session.id },
    );
  }

  /**
   * Joins the inviting organisation. A new person is created with the given password and name; an
   * existing one proves who they are with their current password.
   */
  async acceptInvitation(request: AcceptInvitationRequest, origin: RequestOrigin): Promise<IssuedTokens> {
    const { store } = this.#deps.context;
    const { invitations } = this.#deps.stores;
    const invitation = await invitations.findOpenByTokenHash(hashToken(request.token));
    if (invitation === null) throw new ProblemError('invitation_invalid');

    const existing = await store.users.findByEmail(invitation.email);
    if (existing !== null && !(await verifyPassword(request.password, existing.passwordHash))) {
      throw new ProblemError(
        'invalid_credentials',
        'This e-mail address already has an account: give its current password to accept.',
      );
    }
    const passwordHash = existing === null ? await hashPassword(request.password) : null;

    const { user, membership } = await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      if (!(await invitations.markAccepted(invitation.id, tx))) throw new ProblemError('invitation_invalid');
      const user =
        existing ??
        (await store.users
          .create(
            {
              email: invitation.email,
              name: request.name,
              passwordHash: passwordHash as string,
              platformAdmin: false,
            },
            tx,
          )
          .catch((error: unknown) => {
            if (error instanceof EmailTakenError) throw new ProblemError('invitation_invalid');
            throw error;
          }));
      if ((await store.users.membership(user.id, tx)) !== null) {
        throw new ProblemError('already_member', 'You already belong to an organisation.');
      }
      const membership = await store.users.addMembership(
        user.id,
        invitation.organisationId,
        invitation.role,
        tx,
      );
      await this.#deps.audit.record(
        actorOf(user, origin),
        {
          organisationId: invitation.organisationId,
          action: 'invitation.accept',
          target: user.email,
          details: { role: invitation.role, newUser: existing === null },
        },
        tx,
      );
      return { user, membership };
    });
    return this.#sessions.start(user, membership, origin);
  }

  /** Sets a new password with a token from an owner or admin, and ends all of the user's sessions. */
  async resetPassword(request: PasswordResetRequest, origin: RequestOrigin): Promise<void> {
    const { store } = this.#deps.context;
    const { passwordResets, sessions } = this.#deps.stores;
    const reset = await passwordResets.findOpenByTokenHash(hashToken(request.token));
    if (reset === null) throw new ProblemError('reset_token_invalid');
    const user = await store.users.findById(reset.userId);
    if (user === null) throw new ProblemError('reset_token_invalid');
    const passwordHash = await hashPassword(request.newPassword);
    const membership = await store.users.membership(user.id);
    await store.db.sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      if (!(await passwordResets.markUsed(reset.id, tx))) throw new ProblemError('reset_token_invalid');
      await store.users.updatePasswordHash(user.id, passwordHash, tx);
      const ended = await sessions.revokeAllForUser(user.id, 'password_reset', {}, tx);
      await this.#deps.audit.record(
        actorOf(user, origin),
        {
          organisationId: membership?.organisationId ?? null,
          action: 'user.password_reset',
          target: user.id,
          details: { sessionsEnded: ended },
        },
        tx,
      );
    });
  }
}

function actorOf(user: UserRecord, origin: RequestOrigin) {
  return { userId: user.id, email: user.email, sourceAddress: origin.sourceAddress };
}
