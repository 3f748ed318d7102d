import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, SecretBoxError } from '../../../src/security/secret-box.js';

describe('SecretBox (AES-256-GCM for credential secrets at rest)', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips a secret and never stores it in clear', () => {
    const sealed = box.seal('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'GWK1AAAA');
    expect(sealed).not.toContain('wJalrXUtnFEMI');
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(box.open(sealed, 'GWK1AAAA')).toBe('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal('same', 'id')).not.toBe(box.seal('same', 'id'));
  });

  it('refuses a ciphertext moved to another access key id', () => {
    const sealed = box.seal('secret', 'GWK1AAAA');
    expect(() => box.open(sealed, 'GWK1BBBB')).toThrow(SecretBoxError);
  });

  it('refuses a tampered ciphertext and another master key', () => {
    const sealed = box.seal('secret', 'id');
    const parts = sealed.split(':');
    const body = Buffer.from(parts[3] as string, 'base64');
    body[0] = (body[0] as number) ^ 1;
    const tampered = [parts[0], parts[1], parts[2], body.toString('base64')].join(':');
    expect(() => box.open(tampered, 'id')).toThrow(SecretBoxError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'id')).toThrow(SecretBoxError);
  });

  it('wants a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});
