import type { GatewayContext } from '../context.js';
import { AuditLogStore } from '../store/audit-log.js';
import { InvitationStore } from '../store/invitations.js';
import { PasswordResetStore } from '../store/password-resets.js';
import { SessionStore } from '../store/sessions.js';
import { AccessTokens } from './auth/access-tokens.js';
import { SlidingWindowLimiter } from './auth/login-rate-limiter.js';
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
  loginLimiter: SlidingWindowLimiter;
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
    loginLimiter: new SlidingWindowLimiter(context.config.control.loginRateLimitPerMinute),
  };
}
