import { createHash, randomBytes } from 'node:crypto';

/**
 * An opaque bearer secret (refresh, invitation, reset token): 256 random bits, URL-safe base64.
 * One in 64 would start with '-', which every command line (s3gw accept-invitation TOKEN included)
 * reads as an option: those are drawn again.
 */
export function generateOpaqueToken(): string {
  for (;;) {
    const token = randomBytes(32).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}

/** Tokens are stored only as this digest; they are high-entropy, so a fast hash suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
