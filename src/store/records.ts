import type { CredentialScope } from '../access/scope.js';

export type OrganisationStatus = 'active' | 'suspended';
export type Role = 'owner' | 'admin' | 'member';

/** A storage quota; null: no limit. */
export interface StorageQuota {
  maxBytes: number | null;
  maxObjects: number | null;
}

/** A request rate: requests per second on average, and how many may come at once (null: one second's worth). */
export interface RequestRate {
  requestsPerSecond: number;
  burst: number | null;
}

/** What an organisation is held to; null: no limit. */
export interface OrganisationLimits {
  /** All its buckets together (platform admins set it). */
  storage: StorageQuota;
  /** All its storage requests together, over every instance (platform admins set it). */
  requests: RequestRate | null;
  /** Each of its credentials on its own (owners and admins set it, within `requests`). */
  credentialRequests: RequestRate | null;
}

export interface OrganisationRecord {
  id: string;
  name: string;
  status: OrganisationStatus;
  suspensionReason: string | null;
  suspendedAt: Date | null;
  settings: Record<string, unknown>;
  limits: OrganisationLimits;
  createdAt: Date;
  updatedAt: Date;
}

/** A storage credential with its secrets decrypted (held in memory only, never returned twice). */
export interface CredentialRecord {
  accessKeyId: string;
  organisationId: string;
  name: string;
  secret: string;
  previousSecret: string | null;
  previousSecretValidUntil: Date | null;
  scope: CredentialScope;
  expiresAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
}

export interface BucketRecord {
  name: string;
  organisationId: string;
  public: boolean;
  /** The bucket's own quota, within its organisation's. */
  quota: StorageQuota;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders?: string[];
  exposeHeaders?: string[];
  maxAgeSeconds?: number;
}

export interface CorsRuleSet {
  bucket: string;
  rules: CorsRule[];
  updatedAt: Date;
}
