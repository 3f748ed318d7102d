import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/s3/address.js';
import { effectiveHeaders, headerValue, isPresignAuthParameter } from '../../../src/s3/request-headers.js';
import { hasDotSegment, strictPercentDecode } from '../../../src/s3/percent-decoding.js';

describe('effectiveHeaders', () => {
  it('applies x-amz-* headers hoisted into a presigned query, the query winning', () => {
    const query = parseQuery(
      'X-Amz-Signature=abc&X-Amz-Credential=k&x-amz-acl=public-read&X-Amz-Storage-Class=GLACIER&x-amz-meta-a=1',
    );
    const headers = effectiveHeaders({ 'x-amz-acl': 'private', host: 'h' }, query);
    expect(headers).toEqual({
      host: 'h',
      'x-amz-acl': 'public-read',
      'x-amz-storage-class': 'GLACIER',
      'x-amz-meta-a': '1',
    });
  });

  it('ignores checksum parameters of presigned URLs, as S3 does', () => {
    const query = parseQuery('x-amz-checksum-crc32=AAAAAA%3D%3D&x-amz-sdk-checksum-algorithm=CRC32');
    expect(effectiveHeaders({}, query)).toEqual({});
  });

  it('refuses a hoisted value no header can carry (control characters, beyond Latin-1)', () => {
    for (const value of ['a%0D%0Ab%3A%20c', 'nul%00', 'snow%E2%98%83']) {
      expect(() => effectiveHeaders({}, parseQuery(`x-amz-meta-a=${value}`)), value).toThrow(
        expect.objectContaining({ code: 'InvalidArgument', status: 400 }),
      );
    }
    expect(effectiveHeaders({}, parseQuery('x-amz-meta-a=tab%09caf%C3%A9'))).toEqual({
      'x-amz-meta-a': 'tab\tcafé',
    });
  });

  it('tells the presign authentication parameters apart, whatever their case', () => {
    expect(isPresignAuthParameter('X-Amz-Signature')).toBe(true);
    expect(isPresignAuthParameter('x-amz-content-sha256')).toBe(true);
    expect(isPresignAuthParameter('x-amz-acl')).toBe(false);
  });

  it('joins repeated headers', () => {
    expect(headerValue({ a: ['1', '2'] }, 'a')).toBe('1,2');
    expect(headerValue({}, 'a')).toBeUndefined();
  });
});

describe('strict percent-decoding', () => {
  it('decodes valid UTF-8 escapes and refuses anything ambiguous', () => {
    expect(strictPercentDecode('a%20b%2Fc%E6%97%A5+')).toBe('a b/c日+');
    expect(strictPercentDecode('plain')).toBe('plain');
    for (const text of ['%', '%2', '%zz', '%C3', '%FF', 'é'])
      expect(strictPercentDecode(text), text).toBeNull();
  });

  it('finds dot segments only as whole segments', () => {
    expect(hasDotSegment('a/../b')).toBe(true);
    expect(hasDotSegment('.')).toBe(true);
    expect(hasDotSegment('a/.')).toBe(true);
    expect(hasDotSegment('a.b/..c/d..')).toBe(false);
    expect(hasDotSegment('')).toBe(false);
  });
});
