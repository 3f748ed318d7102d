/**
 * When a credential stops working, for both planes: the storage endpoint refuses it from that
 * instant ("This access key has expired."), the control plane shows it as expired and will not
 * presign with it.
 */

/** True from the instant of the credential's expiry on; never for a credential without one. */
export function credentialExpired(
  credential: { readonly expiresAt: Date | null },
  now = new Date(),
): boolean {
  return credential.expiresAt !== null && credential.expiresAt.getTime() <= now.getTime();
}
