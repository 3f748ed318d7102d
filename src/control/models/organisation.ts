import type { EmailAddress, OneTimeToken, Role } from './common.js';

/** Free-form organisation settings: flat keys with scalar values. */
export interface OrganisationSettings {
  [key: string]: string | number | boolean;
}

/** A storage quota; null: no limit. */
export interface StorageQuotaView {
  maxBytes: number | null;
  maxObjects: number | null;
}

/**
 * What the organisation is held to; null: no limit. Uploads over a storage quota are refused with
 * QuotaExceeded (403); requests over a rate with SlowDown (503) and Retry-After.
 */
export interface OrganisationLimitsView {
  /** Bytes all its buckets may hold together (set by platform admins). */
  maxBytes: number | null;
  /** Objects all its buckets may hold together (set by platform admins). */
  maxObjects: number | null;
  /** Storage requests per second of the whole organisation, over every gateway instance (platform admins). */
  requestsPerSecond: number | null;
  /** Requests it may send at once above that rate; null: one second's worth. */
  requestBurst: number | null;
  /** Storage requests per second of each of its credentials (owners and admins, within requestsPerSecond). */
  credentialRequestsPerSecond: number | null;
  /** Requests a credential may send at once above its rate; null: one second's worth. */
  credentialRequestBurst: number | null;
}

export interface OrganisationView {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  suspensionReason: string | null;
  suspendedAt: Date | null;
  settings: OrganisationSettings;
  limits: OrganisationLimitsView;
  createdAt: Date;
}

/**
 * Changes to the limits: a field left out stays as it is, null removes the limit. The storage
 * quota and the organisation's request rate are for platform admins; owners and admins set the
 * rate of each credential, at most the organisation's.
 */
export interface OrganisationLimitsUpdate {
  /**
   * @isLong
   * @minimum 0
   * @maximum 9007199254740991
   * @example 107374182400
   */
  maxBytes?: number | null;
  /**
   * @isLong
   * @minimum 0
   * @maximum 9007199254740991
   * @example 1000000
   */
  maxObjects?: number | null;
  /**
   * @minimum 0.001
   * @maximum 1000000
   * @example 500
   */
  requestsPerSecond?: number | null;
  /**
   * @isInt
   * @minimum 1
   * @maximum 1000000
   * @example 1000
   */
  requestBurst?: number | null;
  /**
   * @minimum 0.001
   * @maximum 1000000
   * @example 50
   */
  credentialRequestsPerSecond?: number | null;
  /**
   * @isInt
   * @minimum 1
   * @maximum 1000000
   * @example 100
   */
  credentialRequestBurst?: number | null;
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
  /** @example {"maxBytes": 107374182400, "maxObjects": 1000000, "requestsPerSecond": 500, "credentialRequestsPerSecond": 50} */
  limits?: OrganisationLimitsUpdate;
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

/** What the store holds, as the gateway counts it while a storage quota applies. */
export interface StoredUsage {
  storedBytes: number;
  storedObjects: number;
  /** Room held by uploads under way (counted against the quota until they end). */
  reservedBytes: number;
  reservedObjects: number;
  /** Held in the parts of multipart uploads not yet completed or aborted (counted against maxBytes). */
  partBytes: number;
  /** When counting started from a listing of the store (the first quota, or a recount). */
  countedAt: Date;
}

export interface BucketStorage {
  bucket: string;
  quota: StorageQuotaView;
  /** Absent while no quota applies to the bucket (its own or the organisation's): it is not counted. */
  usage?: StoredUsage;
}

export interface StorageReport {
  /** The organisation's quota over all its buckets. */
  quota: StorageQuotaView;
  /** All its buckets together; absent while the organisation has no quota. */
  usage?: StoredUsage;
  buckets: BucketStorage[];
}

export interface RequestRateView {
  requestsPerSecond: number;
  burst: number;
}

export interface ThrottledCredential {
  /** Empty for anonymous reads of public buckets. */
  accessKeyId: string;
  throttledRequests: number;
}

export interface RequestRateReport {
  /** The organisation's rate over every instance; absent: no limit. */
  organisation?: RequestRateView;
  /** Each credential's rate; absent: no limit. */
  perCredential?: RequestRateView;
  /** Requests refused with SlowDown (503) in the window. */
  throttledRequests: number;
  /** The credentials with requests refused in the window. */
  byCredential: ThrottledCredential[];
}

export interface UsageReport {
  from: Date;
  to: Date;
  totals: UsageFigures;
  byBucket: BucketUsage[];
  byCredential: CredentialUsage[];
  /** Storage held now against the quotas (not limited to the window). */
  storage: StorageReport;
  /** The request rate limits in force, and what they refused in the window. */
  requestRates: RequestRateReport;
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
