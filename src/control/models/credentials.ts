/**
 * Which buckets of the organisation a credential reaches (optionally only under some key
 * prefixes) and which HTTP methods it may use. Give either `level` or `methods`.
 */
export interface CredentialScopeBody {
  /**
   * Bucket names of the organisation, or ["*"] for all of them.
   * @example ["team-photos"]
   * @minItems 1
   * @maxItems 100
   */
  buckets: string[];
  /**
   * "read-only" = GET and HEAD; "read-write" = every object method.
   * @example "read-write"
   */
  level?: 'read-only' | 'read-write';
  /**
   * Explicit HTTP methods (GET, HEAD, PUT, POST, DELETE).
   * @minItems 1
   * @maxItems 5
   */
  methods?: string[];
  /**
   * Per bucket, the key prefixes the credential is limited to (1 to 100 per bucket); a bucket not
   * named here is reachable whole. Every object operation, copy source, DeleteObjects key and
   * listing `prefix` must lie under one of them, and presigning outside them is refused.
   * @example {"team-photos": ["users/42/"]}
   */
  prefixes?: Record<string, string[]>;
}

/**
 * @minLength 1
 * @maxLength 100
 * @example "ci-uploader"
 */
export type CredentialName = string;

export interface CredentialView {
  accessKeyId: string;
  name: string;
  scope: CredentialScopeBody;
  /** Null: never expires. */
  expiresAt: Date | null;
  state: 'valid' | 'expired';
  createdAt: Date;
  /** The user who created it (members manage only their own). */
  createdBy: string | null;
  lastUsedAt: Date | null;
  /** Until when the secret before the last rotation still verifies; null when it does not. */
  previousSecretValidUntil: Date | null;
}

export interface CredentialPage {
  items: CredentialView[];
  nextCursor: string | null;
}

export interface CreateCredentialRequest {
  name: CredentialName;
  scope: CredentialScopeBody;
  /** Null or absent: never expires. */
  expiresAt?: Date | null;
}

export interface CreatedCredential {
  accessKeyId: string;
  /** The secret access key, shown this once and never again. */
  secret: string;
  name: string;
  scope: CredentialScopeBody;
  expiresAt: Date | null;
  createdAt: Date;
}

export interface UpdateCredentialRequest {
  name?: CredentialName;
  /** Null: never expires. */
  expiresAt?: Date | null;
}

export interface RotateCredentialRequest {
  /**
   * How long the old secret keeps verifying (0 or absent: not at all; at most 7 days).
   * @example 3600
   * @isInt
   * @minimum 0
   * @maximum 604800
   */
  gracePeriodSeconds?: number;
}

export interface RotatedCredential {
  accessKeyId: string;
  /** The new secret access key, shown this once and never again. */
  secret: string;
  previousSecretValidUntil: Date | null;
}
