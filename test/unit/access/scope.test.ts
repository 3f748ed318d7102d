import { describe, expect, it } from 'vitest';
import {
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
