import type { DisplayName, EmailAddress, NewPassword, Role } from './common.js';

export interface LoginRequest {
  email: EmailAddress;
  /**
   * @minLength 1
   * @maxLength 1024
   */
  password: string;
}

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  /** The role in the user's organisation; null for a person who belongs to none. */
  role: Role | null;
  platformAdmin: boolean;
}

/** The login, refresh and invitation-accept response; a rotating refresh cookie comes with it. */
export interface TokenResponse {
  /** Send as `Authorization: Bearer <access_token>`. */
  access_token: string;
  token_type: 'Bearer';
  /** Seconds until the access token expires. */
  expires_in: number;
  user: UserSummary;
}

export interface AcceptInvitationRequest {
  /** The invitation token issued by "invite member" or "create organisation". */
  token: string;
  /** For a new user: the password to set. For an existing user: their current password. */
  password: NewPassword;
  /** For a new user: the display name. Ignored for an existing user. */
  name: DisplayName;
}

export interface PasswordResetRequest {
  /** The token issued by "issue password-reset token". */
  token: string;
  newPassword: NewPassword;
}
