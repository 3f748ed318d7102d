import { describe, expect, it } from 'vitest';
import type { ObjectStoreBackend } from '../../../src/backend/object-store.js';
import {
  assertPartCopySupported,
  checkCopySource,
  encodeCopySource,
  parseCopySource,
} from '../../../src/s3/copy-source.js';
import type { AccessCache, BucketEntry } from '../../../src/store/access-cache.js';
import type { CredentialRecord } from '../../../src/store/records.js';

function code(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('parseCopySource', () => {
  it('decodes bucket, key and version, with or without a leading slash', () => {
    expect(parseCopySource('photos/a%20b/c%2Bd.jpg')).toEqual({
      bucket: 'photos',
      key: 'a b/c+d.jpg',
      versionId: null,
    });
    expect(parseCopySource('/photos/100%25')).toEqual({ bucket: 'photos', key: '100%', versionId: null });
    expect(parseCopySource('photos%2Fkey')).toEqual({ bucket: 'photos', key: 'key', versionId: null });
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
        code(() => parseCopySource(header)),
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

describe('assertPartCopySupported', () => {
  it('refuses part copies from keys holding "%", which abort Ceph RGW 16.2', () => {
    expect(() => assertPartCopySupported(parseCopySource('photos/100%25'))).toThrow(/NotImplemented/);
    expect(() => assertPartCopySupported(parseCopySource('photos/a%20b+c'))).not.toThrow();
  });
});

describe('checkCopySource', () => {
  const credential = {
    accessKeyId: 'GWK1',
    organisationId: 'org-1',
    scope: { buckets: ['src', 'dst'], methods: ['GET', 'PUT'] },
  } as unknown as CredentialRecord;
  const buckets: Record<string, BucketEntry> = {
    src: { bucket: { name: 'src', organisationId: 'org-1' }, cors: null } as BucketEntry,
    outside: { bucket: { name: 'outside', organisationId: 'org-1' }, cors: null } as BucketEntry,
    foreign: { bucket: { name: 'foreign', organisationId: 'org-2' }, cors: null } as BucketEntry,
  };
  const cache = { bucket: async (name: string) => buckets[name] ?? null } as unknown as AccessCache;
  const backend = (exists: boolean | Error) =>
    ({
      objectExists: async () => {
        if (exists instanceof Error) throw exists;
        return exists;
      },
    }) as unknown as ObjectStoreBackend;

  async function outcome(source: string, exists: boolean | Error = true): Promise<string> {
    try {
      await checkCopySource(parseCopySource(source), credential, cache, backend(exists));
      return 'ok';
    } catch (error) {
      return `${(error as { code: string }).code}: ${(error as Error).message}`;
    }
  }

  it('passes a readable, existing source', async () => {
    expect(await outcome('src/k')).toBe('ok');
  });

  it('refuses a missing source before forwarding, and sources the credential may not read', async () => {
    expect(await outcome('src/k', false)).toBe('NoSuchKey: NoSuchKey: The specified key does not exist.');
    expect(await outcome('nowhere/k')).toMatch(/^NoSuchBucket/);
    expect(await outcome('foreign/k')).toBe('AccessDenied: AccessDenied: Access to this bucket is denied.');
    expect(await outcome('outside/k')).toBe('AccessDenied: AccessDenied: Access to this bucket is denied.');
    expect(await outcome('src/k', new Error('connection refused'))).toMatch(/^ServiceUnavailable/);
  });
});
