import { describe, expect, it } from 'vitest';

import { deriveSigningKey, SigningKeyCache, signaturesEqual } from '../../../src/sigv4/signing-key.js';

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

  it('returns the derived key and reuses it for the same credential', () => {
    const cache = new SigningKeyCache();
    const credential = {};
    const first = cache.signingKey(credential, 0, DOC_SECRET, scope);
    expect(first.export().equals(deriveSigningKey(DOC_SECRET, scope))).toBe(true);
    expect(cache.signingKey(credential, 0, DOC_SECRET, scope)).toBe(first);
  });

  it('keeps keys of different slots, secrets and scopes apart', () => {
    const cache = new SigningKeyCache();
    const credential = {};
    const a = cache.signingKey(credential, 0, 'secret-a', scope);
    const b = cache.signingKey(credential, 1, 'secret-b', scope);
    const c = cache.signingKey(credential, 0, 'secret-a', { ...scope, region: 'auto' });
    expect(a.equals(b)).toBe(false);
    expect(a.equals(c)).toBe(false);
    expect(cache.signingKey(credential, 0, 'secret-a', scope)).toBe(a);
  });

  it('derives again when the secret of a slot changed (a rotation)', () => {
    const cache = new SigningKeyCache();
    const credential = {};
    const before = cache.signingKey(credential, 0, 'old-secret', scope);
    const after = cache.signingKey(credential, 0, 'new-secret', scope);
    expect(after.export().equals(deriveSigningKey('new-secret', scope))).toBe(true);
    expect(after.equals(before)).toBe(false);
  });

  it('keeps the key of each scope while requests alternate between scopes and slots', () => {
    const cache = new SigningKeyCache();
    const credential = {};
    const other = { ...scope, region: 'eu-west-1' };
    const first = cache.signingKey(credential, 0, 'secret-a', scope);
    const second = cache.signingKey(credential, 0, 'secret-a', other);
    const previous = cache.signingKey(credential, 1, 'secret-b', scope);
    expect(cache.signingKey(credential, 0, 'secret-a', { ...scope })).toBe(first);
    expect(cache.signingKey(credential, 0, 'secret-a', other)).toBe(second);
    expect(cache.signingKey(credential, 1, 'secret-b', scope)).toBe(previous);
    expect(second.export().equals(deriveSigningKey('secret-a', other))).toBe(true);
    expect(previous.export().equals(deriveSigningKey('secret-b', scope))).toBe(true);
  });

  it('derives again when the secret of a slot changed after its last use', () => {
    const cache = new SigningKeyCache();
    const credential = {};
    cache.signingKey(credential, 0, 'old-secret', scope);
    cache.signingKey(credential, 0, 'old-secret', scope);
    const after = cache.signingKey(credential, 0, 'new-secret', scope);
    expect(after.export().equals(deriveSigningKey('new-secret', scope))).toBe(true);
  });

  it('holds keys per credential object: another record of the same key derives its own', () => {
    const cache = new SigningKeyCache();
    const first = cache.signingKey({}, 0, DOC_SECRET, scope);
    const second = cache.signingKey({}, 0, DOC_SECRET, scope);
    expect(second).not.toBe(first);
    expect(second.equals(first)).toBe(true);
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
