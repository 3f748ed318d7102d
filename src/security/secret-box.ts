import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Encrypts storage-credential secrets at rest with AES-256-GCM. SigV4 needs the secret itself, so it
 * must be recoverable; the associated data binds each ciphertext to its access key id, so a ciphertext
 * copied onto another credential's row does not decrypt.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError('the master key must be 32 bytes');
    this.#key = Buffer.from(key);
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      body.toString('base64'),
    ].join(':');
  }

  open(sealed: string, associatedData: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new SecretBoxError('unrecognised ciphertext format');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('ciphertext does not decrypt under this master key');
    }
  }
}
