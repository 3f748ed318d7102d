import { describe, expect, it } from 'vitest';
import { thrownCode } from '../../support/thrown-code.js';
import { encodeCopySource, parseCopySource } from '../../../src/protocol/copy-source.js';

describe('parseCopySource', () => {
  it('decodes bucket, key and version, with or without a leading slash', () => {
    expect(parseCopySource('photos/a%20b/c%2Bd.jpg')).toEqual({
      bucket: 'photos',
      key: 'a b/c+d.jpg',
      versionId: null,
    });
    expect(parseCopySource('/photos/100%25')).toEqual({ bucket: 'photos', key: '100%', versionId: null });
    expect(parseCopySource('photos%2Fkey')).toEqual({ bucket: 'photos', key: 'key', versionId: null });
    // The whole path is decoded before bucket and key are told apart, a leading slash included.
    expect(parseCopySource('%2Fphotos%2Fa%2Fb')).toEqual({ bucket: 'photos', key: 'a/b', versionId: null });
    expect(parseCopySource('photos/k?versionId=v%2B1')).toEqual({
      bucket: 'photos',
      key: 'k',
      versionId: 'v+1',
    });
    expect(parseCopySource('photos/..a/b..')).toMatchObject({ key: '..a/b..' });
  });

  it('refuses malformed escapes, missing parts, dot segments and other query parameters with InvalidArgument', () => {
    for (const header of [
      'photos/bad%zz',
      'photos/%E9',
      'photos/trailing%',
      'photos',
      'photos/',
      '/photos',
      '/k',
      '',
      'photos/a/../b',
      'photos/%2E%2E/b',
      'photos/./b',
      'photos/k?uploadId=1',
      'photos/k?versionId=',
      'Photos/k',
    ]) {
      expect(
        thrownCode(() => parseCopySource(header)),
        header,
      ).toBe('InvalidArgument');
    }
  });
});

describe('encodeCopySource', () => {
  it('re-encodes every segment one way, so the backend decodes exactly the same key', () => {
    expect(encodeCopySource({ bucket: 'photos', key: 'a b/c+d%/日', versionId: null })).toBe(
      '/photos/a%20b/c%2Bd%25/%E6%97%A5',
    );
    expect(encodeCopySource({ bucket: 'photos', key: 'k', versionId: 'v 1' })).toBe(
      '/photos/k?versionId=v%201',
    );
  });
});
