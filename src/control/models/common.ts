/**
 * How many items a page holds.
 * @isInt
 * @minimum 1
 * @maximum 1000
 */
export type PageSize = number;

/**
 * An e-mail address.
 * @pattern ^[^@\s]+@[^@\s]+$
 * @maxLength 320
 * @example "ada@example.com"
 */
export type EmailAddress = string;

/**
 * A new password: at least 12 characters.
 * @minLength 12
 * @maxLength 1024
 */
export type NewPassword = string;

/**
 * A person's display name.
 * @minLength 1
 * @maxLength 200
 */
export type DisplayName = string;

/** A member's role in their organisation: owners and admins manage it, members use it. */
export type { Role } from '../../store/records.js';

/** A one-time token, shown exactly once. */
export interface OneTimeToken {
  /** The token itself; it is stored only as a hash and never shown again. */
  token: string;
  expiresAt: Date;
}
