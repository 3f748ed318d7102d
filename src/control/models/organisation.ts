import type { EmailAddress, OneTimeToken, Role } from './common.js';

/** Free-form organisation settings: flat keys with scalar values. */
export interface OrganisationSettings {
  [key: string]: string | number | boolean;
}

export interface OrganisationView {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  suspensionReason: string | null;
  suspendedAt: Date | null;
  settings: OrganisationSettings;
  createdAt: Date;
}

export interface UpdateOrganisationRequest {
  /**
   * @example "Acme"
   * @minLength 1
   * @maxLength 100
   */
  name?: string;
  /** Merged into the current settings; a key set to null is removed. */
  settings?: { [key: string]: string | number | boolean | null };
}

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

export interface MemberPage {
  items: MemberView[];
  nextCursor: string | null;
}

export interface InviteMemberRequest {
  email: EmailAddress;
  role: Role;
}

export interface InvitationResponse {
  /** Hand the token to the invitee; it is shown only now. */
  invitation: OneTimeToken;
}

export interface ChangeRoleRequest {
  role: Role;
}

export interface UsageFigures {
  requests: number;
  bytesIn: number;
  bytesOut: number;
}

export interface BucketUsage extends UsageFigures {
  bucket: string;
}

export interface CredentialUsage extends UsageFigures {
  /** Empty for anonymous reads of public buckets. */
  accessKeyId: string;
}

export interface UsageReport {
  from: Date;
  to: Date;
  totals: UsageFigures;
  byBucket: BucketUsage[];
  byCredential: CredentialUsage[];
}

export interface AuditEntryView {
  id: string;
  /** Who: the acting person (null for actions without one). */
  actor: { userId: string | null; email: string | null };
  /** What, e.g. "credential.create". */
  action: string;
  /** Which: the bucket name, access key id, user id or e-mail acted on. */
  target: string | null;
  /** When. */
  time: Date;
  /** From where: the client address. */
  sourceAddress: string | null;
  details: { [key: string]: unknown };
}

export interface AuditPage {
  items: AuditEntryView[];
  nextCursor: string | null;
}

export interface OrganisationSummary {
  id: string;
  name: string;
  status: 'active' | 'suspended';
}

export interface OrganisationPage {
  items: OrganisationView[];
  nextCursor: string | null;
}

export interface CreateOrganisationRequest {
  /**
   * @example "Acme"
   * @minLength 1
   * @maxLength 100
   */
  name: string;
  ownerEmail: EmailAddress;
}

export interface CreateOrganisationResponse {
  organisation: OrganisationSummary;
  /** The first owner's invitation; the token is shown only now. */
  invitation: OneTimeToken;
}

export interface SuspendRequest {
  /**
   * Shown to the organisation.
   * @minLength 1
   * @maxLength 500
   */
  reason: string;
}
