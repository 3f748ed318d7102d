import type { DisplayName, NewPassword, Role } from './common.js';
import type { UserSummary } from './auth.js';

export interface Me extends UserSummary {
  organisationId: string | null;
  createdAt: Date;
}

export interface UpdateMeRequest {
  name: DisplayName;
}

export interface ChangePasswordRequest {
  /**
   * @minLength 1
   * @maxLength 1024
   */
  currentPassword: string;
  newPassword: NewPassword;
}

export interface MyOrganisation {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  suspensionReason: string | null;
  /** The caller's role in it. */
  role: Role;
}

export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  sourceAddress: string | null;
  /** Whether this is the session of the access token making the request. */
  current: boolean;
}

export interface SessionPage {
  items: SessionView[];
  nextCursor: string | null;
}
