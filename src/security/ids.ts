import { randomBytes, randomUUID } from 'node:crypto';

/** Every access key id this gateway issues starts with this, so keys are recognisable in logs and scans. */
export const ACCESS_KEY_PREFIX = 'GWK1';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 20 characters like AWS ids: the prefix and 16 random base32 characters (80 bits). */
export function generateAccessKeyId(): string {
  const bytes = randomBytes(16);
  let id = ACCESS_KEY_PREFIX;
  for (const byte of bytes) id += BASE32[byte & 31];
  return id;
}

/** 40 characters, as AWS secret access keys are. */
export function generateSecretAccessKey(): string {
  return randomBytes(30).toString('base64');
}

export function newId(): string {
  return randomUUID();
}
