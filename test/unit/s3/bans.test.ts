import { describe, expect, it } from 'vitest';
import { parseCopySource } from '../../../src/protocol/copy-source.js';
import type { S3Error } from '../../../src/protocol/errors.js';
import type { Authorised } from '../../../src/s3/stages.js';
import { enforceBans } from '../../../src/s3/steps/bans.js';
import { authenticatedFor } from '../../support/s3/stages.js';

function refusal(method: string, target: string, headers: Record<string, string> = {}): S3Error | undefined {
  const stage = authenticatedFor({ kind: 'anonymous' }, method, target, headers);
  const operation = stage.classification.ok ? stage.classification.operation : null;
  if (operation === null) throw new Error('test routes must classify');
  try {
    const source = headers['x-amz-copy-source'];
    const copySource = source === undefined ? null : parseCopySource(source);
    enforceBans({ ...stage, operation, entry: null, copySource } as unknown as Authorised);
    return undefined;
  } catch (error) {
    return error as S3Error;
  }
}

function ban(method: string, target: string, headers: Record<string, string> = {}): string | undefined {
  return refusal(method, target, headers)?.code;
}

describe('enforceBans', () => {
  it('refuses a control character in any value of a header, a repeated one included', () => {
    const stage = authenticatedFor({ kind: 'anonymous' }, 'PUT', '/b-1/k', {});
    const operation = stage.classification.ok ? stage.classification.operation : null;
    const refused = (headers: Record<string, string | string[]>): string | undefined => {
      try {
        enforceBans({
          ...stage,
          headers: { ...stage.headers, ...headers },
          operation,
          entry: null,
          copySource: null,
        } as unknown as Authorised);
        return undefined;
      } catch (error) {
        return (error as S3Error).text;
      }
    };
    expect(refused({ 'x-amz-meta-note': 'tab\tis allowed' })).toBeUndefined();
    expect(refused({ 'x-amz-meta-note': ['fine', 'also fine'] })).toBeUndefined();
    expect(refused({ 'x-amz-meta-note': 'line\nbreak' })).toBe(
      'The value of the header x-amz-meta-note holds a control character.',
    );
    expect(refused({ 'x-amz-meta-note': ['fine', 'delete\u007f'] })).toBe(
      'The value of the header x-amz-meta-note holds a control character.',
    );
  });

  it('refuses conditional GETs with InvalidRequest, but not conditional HEADs or writes', () => {
    for (const header of ['if-none-match', 'if-match', 'if-modified-since']) {
      expect(ban('GET', '/b-1/k', { [header]: 'x' }), header).toBe('InvalidRequest');
      expect(ban('HEAD', '/b-1/k', { [header]: 'x' }), header).toBeUndefined();
    }
    expect(ban('PUT', '/b-1/k', { 'if-none-match': '*' })).toBeUndefined();
    expect(ban('GET', '/b-1/k', { 'if-unmodified-since': 'x' })).toBeUndefined();
    // Hoisted into a presigned query, a header is banned all the same.
    expect(ban('GET', '/b-1/k?x-amz-storage-class=GLACIER')).toBe('NotImplemented');
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
    expect(refusal('GET', '/b-1/a/../b')?.definition.reason).toBe('ban');
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

  it('refuses part copies from keys holding "%", which abort Ceph RGW 16.2, but not whole-object copies', () => {
    const percent = { 'x-amz-copy-source': 'photos/100%25' };
    expect(ban('PUT', '/b-1/k?partNumber=1&uploadId=u', percent)).toBe('NotImplemented');
    expect(ban('PUT', '/b-1/k', percent)).toBeUndefined();
    expect(
      ban('PUT', '/b-1/k?partNumber=1&uploadId=u', { 'x-amz-copy-source': 'photos/a%20b+c' }),
    ).toBeUndefined();
  });
});
