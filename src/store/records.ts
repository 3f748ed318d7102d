import type { CredentialScope } from '../access/scope.js';

export type OrganisationStatus = 'active' | 'suspended';
export type Role = 'owner' | 'admin' | 'member';

export interface OrganisationRecord {
  id: string;
  name: string;
  status: OrganisationStatus;
  suspensionReason: string | null;
  suspendedAt: Date | null;
  settings: Record<string, unknown>;
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
