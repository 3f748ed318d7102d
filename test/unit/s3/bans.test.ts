import { describe, expect, it } from 'vitest';
import { resolveAddress } from '../../../src/s3/address.js';
import { enforceBans } from '../../../src/s3/bans.js';
import { Refusal } from '../../../src/s3/refusal.js';

function ban(method: string, target: string, headers: Record<string, string> = {}): string | undefined {
  try {
    enforceBans(method, resolveAddress('s3.local', target, 's3.local'), headers);
    return undefined;
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('enforceBans', () => {
  it('refuses conditional GETs with InvalidRequest, but not conditional HEADs or writes', () => {
    for (const header of ['if-none-match', 'if-match', 'if-modified-since']) {
      expect(ban('GET', '/b-1/k', { [header]: 'x' }), header).toBe('InvalidRequest');
      expect(ban('HEAD', '/b-1/k', { [header]: 'x' }), header).toBeUndefined();
    }
    expect(ban('PUT', '/b-1/k', { 'if-none-match': '*' })).toBeUndefined();
    expect(ban('GET', '/b-1/k', { 'if-unmodified-since': 'x' })).toBeUndefined();
  });

  it('refuses non-STANDARD storage classes with NotImplemented', () => {
    expect(ban('PUT', '/b-1/k', { 'x-amz-storage-class': 'GLACIER' })).toBe('NotImplemented');
    expect(ban('POST', '/b-1/k?uploads', { 'x-amz-storage-class': 'REDUCED_REDUNDANCY' })).toBe(
      'NotImplemented',
    );
    expect(ban('PUT', '/b-1/k', { 'x-amz-storage-class': 'STANDARD' })).toBeUndefined();
  });

  it('refuses dot segments in the key, also percent-encoded, as SignatureDoesNotMatch with the ban reason', () => {
    for (const target of [
      '/b-1/a/../b',
      '/b-1/./a',
      '/b-1/a/%2E%2E/b',
      '/b-1/a/%2e',
      '/b-1/..',
      '/b-1/a%2F..%2Fb',
    ]) {
      expect(ban('GET', target), target).toBe('SignatureDoesNotMatch');
    }
    const refusal = (() => {
      try {
        enforceBans('GET', resolveAddress('s3.local', '/b-1/a/../b', 's3.local'), {});
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).reason).toBe('ban');
    for (const target of ['/b-1/a.txt', '/b-1/..a', '/b-1/a..', '/b-1/.hidden', '/b-1/...']) {
      expect(ban('GET', target), target).toBeUndefined();
    }
  });

  it('allows only owner-only canned ACLs and no grant headers', () => {
    expect(ban('PUT', '/b-1/k', { 'x-amz-acl': 'private' })).toBeUndefined();
    expect(ban('PUT', '/b-1/k', { 'x-amz-acl': 'bucket-owner-full-control' })).toBeUndefined();
    expect(ban('PUT', '/b-1/k', { 'x-amz-acl': 'public-read' })).toBe('NotImplemented');
    expect(
      ban('PUT', '/b-1/k', { 'x-amz-grant-read': 'uri=http://acs.amazonaws.com/groups/global/AllUsers' }),
    ).toBe('NotImplemented');
  });
});
