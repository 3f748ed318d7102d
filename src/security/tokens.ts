import { createHash, randomBytes } from 'node:crypto';

/** An opaque bearer secret (refresh, invitation, reset token): 256 random bits, URL-safe. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as this digest; they are high-entropy, so a fast hash suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
