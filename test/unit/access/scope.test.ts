import { describe, expect, it } from 'vitest';
import {
  scopeCoversKey,
  scopeCoversListing,
  scopePrefixes,
  normaliseScope,
  scopeAllowsMethod,
  scopeCoversBucket,
  ScopeValidationError,
} from '../../../src/access/scope.js';

describe('credential scope', () => {
  it('turns a level into its methods', () => {
    expect(normaliseScope({ buckets: ['photos'], level: 'read-only' })).toEqual({
      buckets: ['photos'],
      level: 'read-only',
      methods: ['GET', 'HEAD'],
    });
    expect(normaliseScope({ buckets: ['*'], level: 'read-write' }).methods).toEqual([
      'GET',
      'HEAD',
      'PUT',
      'POST',
      'DELETE',
    ]);
  });

  it('upper-cases and de-duplicates explicit methods', () => {
    expect(normaliseScope({ buckets: ['a', 'a'], methods: ['get', 'PUT', 'put'] })).toEqual({
      buckets: ['a'],
      methods: ['GET', 'PUT'],
    });
  });

  it.each([
    [{ buckets: [], level: 'read-only' }, 'scope.buckets'],
    [{ buckets: ['*', 'a'], level: 'read-only' }, 'scope.buckets'],
    [{ buckets: ['a'] }, 'scope'],
    [{ buckets: ['a'], level: 'read-only', methods: ['GET'] }, 'scope'],
    [{ buckets: ['a'], methods: ['PATCH'] }, 'scope.methods'],
    [{ buckets: ['a'], level: 'admin' }, 'scope.level'],
  ])('refuses %j naming %s', (input, field) => {
    try {
      normaliseScope(input as never);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ScopeValidationError);
      expect((error as ScopeValidationError).field).toBe(field);
    }
  });

  it('decides buckets and methods', () => {
    const readOnly = normaliseScope({ buckets: ['photos'], level: 'read-only' });
    expect(scopeCoversBucket(readOnly, 'photos')).toBe(true);
    expect(scopeCoversBucket(readOnly, 'other')).toBe(false);
    expect(scopeAllowsMethod(readOnly, 'GET')).toBe(true);
    expect(scopeAllowsMethod(readOnly, 'head')).toBe(true);
    expect(scopeAllowsMethod(readOnly, 'PUT')).toBe(false);
    expect(scopeAllowsMethod(readOnly, 'DELETE')).toBe(false);
    const everything = normaliseScope({ buckets: ['*'], methods: ['GET'] });
    expect(scopeCoversBucket(everything, 'anything')).toBe(true);
    expect(scopeAllowsMethod(everything, 'HEAD')).toBe(true);
    expect(scopeAllowsMethod(everything, 'POST')).toBe(false);
  });
});

describe('key prefixes', () => {
  it('keeps the prefixes of buckets in scope, de-duplicated, and leaves other buckets whole', () => {
    const scope = normaliseScope({
      buckets: ['photos', 'docs'],
      prefixes: { photos: ['users/42/', 'users/42/', 'shared/'] },
      level: 'read-only',
    });
    expect(scope.prefixes).toEqual({ photos: ['users/42/', 'shared/'] });
    expect(scopeCoversKey(scope, 'photos', 'users/42/a.jpg')).toBe(true);
    expect(scopeCoversKey(scope, 'photos', 'shared/x')).toBe(true);
    expect(scopeCoversKey(scope, 'photos', 'users/420/a.jpg')).toBe(false);
    expect(scopeCoversKey(scope, 'photos', 'users/42')).toBe(false);
    expect(scopeCoversKey(scope, 'docs', 'anything')).toBe(true);
    expect(scopePrefixes(scope, 'docs')).toBeNull();
  });

  it('lets a listing through only when its prefix parameter lies inside an allowed prefix', () => {
    const scope = normaliseScope({
      buckets: ['photos'],
      prefixes: { photos: ['users/42/'] },
      level: 'read-only',
    });
    expect(scopeCoversListing(scope, 'photos', 'users/42/')).toBe(true);
    expect(scopeCoversListing(scope, 'photos', 'users/42/2026/')).toBe(true);
    for (const prefix of ['', 'users/', 'users/4', 'users/43/'])
      expect(scopeCoversListing(scope, 'photos', prefix)).toBe(false);
  });

  it('stores no prefixes key when none are given', () => {
    expect('prefixes' in normaliseScope({ buckets: ['photos'], level: 'read-only' })).toBe(false);
  });

  it.each([
    [{ buckets: ['docs'], prefixes: { photos: ['a/'] } }, 'scope.prefixes.photos'],
    [{ buckets: ['photos'], prefixes: { photos: [] } }, 'scope.prefixes.photos'],
    [{ buckets: ['photos'], prefixes: { photos: [''] } }, 'scope.prefixes.photos'],
    [{ buckets: ['photos'], prefixes: { photos: ['a\u0000'] } }, 'scope.prefixes.photos'],
    [{ buckets: ['photos'], prefixes: { photos: ['x'.repeat(1025)] } }, 'scope.prefixes.photos'],
    [{ buckets: ['photos'], prefixes: ['a/'] }, 'scope.prefixes'],
  ])('refuses %j naming %s', (input, field) => {
    try {
      normaliseScope({ level: 'read-only', ...(input as object) } as never);
      expect.fail('expected a ScopeValidationError');
    } catch (error) {
      expect(error).toBeInstanceOf(ScopeValidationError);
      expect((error as ScopeValidationError).field).toBe(field);
    }
  });

  it('accepts prefixes for any bucket when the scope covers every bucket', () => {
    expect(
      normaliseScope({ buckets: ['*'], prefixes: { photos: ['a/'] }, level: 'read-only' }).prefixes,
    ).toEqual({
      photos: ['a/'],
    });
  });
});
