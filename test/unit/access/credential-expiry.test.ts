import { describe, expect, it } from 'vitest';
import { credentialExpired } from '../../../src/access/credential-expiry.js';

describe('credential expiry', () => {
  it('treats a credential as expired from the instant of its expiry, and never without one', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(credentialExpired({ expiresAt: null }, now)).toBe(false);
    expect(credentialExpired({ expiresAt: new Date(now.getTime() + 1) }, now)).toBe(false);
    expect(credentialExpired({ expiresAt: now }, now)).toBe(true);
    expect(credentialExpired({ expiresAt: new Date(now.getTime() - 1) }, now)).toBe(true);
  });
});
