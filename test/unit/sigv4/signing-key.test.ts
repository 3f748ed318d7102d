import { describe, expect, it } from 'vitest';

import { deriveSigningKey, SigningKeyCache, signaturesEqual } from '../../../src/s3/sigv4/index.js';

const DOC_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';

describe('deriveSigningKey', () => {
  it('matches the AWS "derive a signing key" example', () => {
    const key = deriveSigningKey(DOC_SECRET, { date: '20120215', region: 'us-east-1', service: 'iam' });
    expect(key.toString('hex')).toBe('f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d');
  });

  it('depends on every scope part', () => {
    const base = { date: '20120215', region: 'us-east-1', service: 's3' };
    const keys = new Set(
      [
        base,
        { ...base, date: '20120216' },
        { ...base, region: 'eu-west-1' },
        { ...base, service: 'iam' },
      ].map((scope) => deriveSigningKey(DOC_SECRET, scope).toString('hex')),
    );
    expect(keys.size).toBe(4);
  });
});

describe('SigningKeyCache', () => {
  const scope = { date: '20130524', region: 'us-east-1', service: 's3' };

  it('returns the derived key and reuses it', () => {
    const cache = new SigningKeyCache();
    const first = cache.signingKey(DOC_SECRET, scope);
    expect(first.export().equals(deriveSigningKey(DOC_SECRET, scope))).toBe(true);
    expect(cache.signingKey(DOC_SECRET, scope)).toBe(first);
    expect(cache.size).toBe(1);
  });

  it('keeps keys of different secrets and scopes apart', () => {
    const cache = new SigningKeyCache();
    const a = cache.signingKey('secret-a', scope);
    const b = cache.signingKey('secret-b', scope);
    const c = cache.signingKey('secret-a', { ...scope, region: 'auto' });
    expect(a.equals(b)).toBe(false);
    expect(a.equals(c)).toBe(false);
    expect(cache.size).toBe(3);
  });

  it('is bounded', () => {
    const cache = new SigningKeyCache({ maxEntries: 2 });
    for (const secret of ['one', 'two', 'three', 'four']) cache.signingKey(secret, scope);
    expect(cache.size).toBe(2);
  });

  it('never holds the secret in its keys, nor a plain hash of it', () => {
    const cache = new SigningKeyCache();
    const key = cache.cacheKey(DOC_SECRET, scope);
    expect(key).not.toContain(DOC_SECRET);
    expect(key).not.toContain('K7MDENG');
    expect(key.endsWith('/20130524/us-east-1/s3')).toBe(true);
    // Another process (another fingerprint key) cannot reproduce it.
    expect(new SigningKeyCache().cacheKey(DOC_SECRET, scope)).not.toBe(key);
  });
});

describe('signaturesEqual', () => {
  const signature = 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';

  it('accepts the identical signature', () => {
    expect(signaturesEqual(signature, signature)).toBe(true);
  });

  it('refuses a signature differing in one nibble', () => {
    expect(signaturesEqual(signature, `${signature.slice(0, -1)}5`)).toBe(false);
  });

  it('refuses other lengths and non-hex without throwing', () => {
    expect(signaturesEqual(signature, signature.slice(0, 62))).toBe(false);
    expect(signaturesEqual(signature, `${signature}00`)).toBe(false);
    expect(signaturesEqual(signature, '')).toBe(false);
    expect(signaturesEqual(signature, 'z'.repeat(64))).toBe(false);
  });
});
