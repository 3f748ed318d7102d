import type { CredentialScope } from '../../access/scope.js';
import type { AuditEntry } from '../../store/audit-log.js';
import type { BucketRecord, CorsRuleSet, CredentialRecord, OrganisationRecord } from '../../store/records.js';
import type { SessionRecord } from '../../store/sessions.js';
import type { MembershipRecord, UserRecord } from '../../store/users.js';
import type { SessionView } from '../models/account.js';
import type { UserSummary } from '../models/auth.js';
import type { BucketListItem, BucketView } from '../models/buckets.js';
import type { CredentialScopeBody, CredentialView } from '../models/credentials.js';
import type { AuditEntryView, OrganisationSettings, OrganisationView } from '../models/organisation.js';
import { limitsView } from './limit-rules.js';
import { credentialExpired } from '../../access/credential-expiry.js';

/** Record-to-response mappers: the one place that decides what leaves the service. */

export function userSummary(user: UserRecord, membership: MembershipRecord | null): UserSummary {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: membership?.role ?? null,
    platformAdmin: user.platformAdmin,
  };
}

export function organisationView(organisation: OrganisationRecord): OrganisationView {
  return {
    id: organisation.id,
    name: organisation.name,
    status: organisation.status,
    suspensionReason: organisation.suspensionReason,
    suspendedAt: organisation.suspendedAt,
    settings: organisation.settings as OrganisationSettings,
    limits: limitsView(organisation.limits),
    createdAt: organisation.createdAt,
  };
}

export function sessionView(session: SessionRecord, currentSessionId: string): SessionView {
  return {
    id: session.id,
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    expiresAt: session.expiresAt,
    userAgent: session.userAgent,
    sourceAddress: session.sourceAddress,
    current: session.id === currentSessionId,
  };
}

/** The scope as people give it: the level when one was given, else the explicit methods. */
export function scopeView(scope: CredentialScope): CredentialScopeBody {
  const prefixes = scope.prefixes === undefined ? {} : { prefixes: scope.prefixes };
  return scope.level === undefined
    ? { buckets: scope.buckets, methods: scope.methods ?? [], ...prefixes }
    : { buckets: scope.buckets, level: scope.level, ...prefixes };
}

/** Never the secret: it is returned by create and rotate only. */
export function credentialView(credential: CredentialRecord, now = new Date()): CredentialView {
  return {
    accessKeyId: credential.accessKeyId,
    name: credential.name,
    scope: scopeView(credential.scope),
    expiresAt: credential.expiresAt,
    state: credentialExpired(credential, now) ? 'expired' : 'valid',
    createdAt: credential.createdAt,
    createdBy: credential.createdBy,
    lastUsedAt: credential.lastUsedAt,
    previousSecretValidUntil: credential.previousSecretValidUntil,
  };
}

export function bucketListItem(bucket: BucketRecord): BucketListItem {
  return { name: bucket.name, public: bucket.public, createdAt: bucket.createdAt };
}

export function bucketView(bucket: BucketRecord, cors: CorsRuleSet | null): BucketView {
  const rules = cors?.rules ?? [];
  return {
    name: bucket.name,
    public: bucket.public,
    createdAt: bucket.createdAt,
    updatedAt: bucket.updatedAt,
    cors: {
      ruleCount: rules.length,
      allowedOrigins: [...new Set(rules.flatMap((rule) => rule.allowedOrigins))],
    },
    quota: { maxBytes: bucket.quota.maxBytes, maxObjects: bucket.quota.maxObjects },
  };
}

export function auditEntryView(entry: AuditEntry): AuditEntryView {
  return {
    id: entry.id,
    actor: { userId: entry.actorUserId, email: entry.actorEmail },
    action: entry.action,
    target: entry.target,
    time: entry.createdAt,
    sourceAddress: entry.sourceAddress,
    details: entry.details,
  };
}
