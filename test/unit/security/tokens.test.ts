import { describe, expect, it } from 'vitest';
import { generateOpaqueToken, hashToken } from '../../../src/security/tokens.js';

describe('opaque tokens (refresh, invitation, password reset)', () => {
  it('carry 256 random bits in URL-safe characters that no command line reads as an option', () => {
    const tokens = Array.from({ length: 2_000 }, generateOpaqueToken);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('are stored as their SHA-256 digest', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
