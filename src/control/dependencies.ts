import type { GatewayContext } from './context.js';
import { AuditLogStore } from '../store/audit-log.js';
import { InvitationStore } from '../store/invitations.js';
import { LoginAttemptStore } from '../store/login-attempts.js';
import { PasswordResetStore } from '../store/password-resets.js';
import { SessionStore } from '../store/sessions.js';
import { AccessTokens } from './auth/access-tokens.js';
import { AuditRecorder } from './services/audit.js';

/** The control plane's own records, beside the shared store. */
export interface ControlStores {
  sessions: SessionStore;
  invitations: InvitationStore;
  passwordResets: PasswordResetStore;
  auditLog: AuditLogStore;
}

/** What the services are built from; one per control app. */
export interface ControlDependencies {
  context: GatewayContext;
  stores: ControlStores;
  tokens: AccessTokens;
  audit: AuditRecorder;
  /** Login attempts per address and per account, counted in the database for every instance. */
  loginLimiter: LoginAttemptStore;
}

export function createDependencies(context: GatewayContext): ControlDependencies {
  const sql = context.store.db.sql;
  const stores: ControlStores = {
    sessions: new SessionStore(sql),
    invitations: new InvitationStore(sql),
    passwordResets: new PasswordResetStore(sql),
    auditLog: new AuditLogStore(sql),
  };
  return {
    context,
    stores,
    tokens: new AccessTokens(context.jwtSecret, context.config.control.accessTokenTtlSeconds),
    audit: new AuditRecorder(stores.auditLog),
    loginLimiter: new LoginAttemptStore(sql, {
      limit: context.config.control.loginRateLimitPerMinute,
      onSweepError: (error) =>
        context.logger.warn(
          { err: error },
          'could not delete expired login attempts; the next sweep retries',
        ),
    }),
  };
}
