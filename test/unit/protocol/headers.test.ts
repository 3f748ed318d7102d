import { describe, expect, it } from 'vitest';
import { strictPercentDecode } from '../../../src/protocol/encoding.js';
import { effectiveHeaders, headerValue } from '../../../src/protocol/headers.js';
import { hasDotSegment, isKeyLengthValid, isAddressableBucketName } from '../../../src/protocol/limits.js';
import { errorResource, hostName } from '../../../src/protocol/paths.js';
import { isPresignAuthParameter, parseQuery } from '../../../src/protocol/query.js';

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

describe('parseQuery', () => {
  it('keeps order, bare names, literal plus signs and repeated names, and the raw spelling', () => {
    expect(
      parseQuery('uploads&prefix=a+b%20c&tag=1&tag=2&&').map(({ name, value, bare }) => ({
        name,
        value,
        bare,
      })),
    ).toEqual([
      { name: 'uploads', value: '', bare: true },
      { name: 'prefix', value: 'a+b c', bare: false },
      { name: 'tag', value: '1', bare: false },
      { name: 'tag', value: '2', bare: false },
    ]);
    expect(parseQuery('prefix=a%20b')[0]).toMatchObject({
      rawName: 'prefix',
      rawValue: 'a%20b',
      wellFormed: true,
    });
  });

  it('marks a malformed escape or non-UTF-8 bytes, decoding them leniently', () => {
    expect(parseQuery('prefix=%G0')[0]).toMatchObject({ value: '%G0', wellFormed: false });
    expect(parseQuery('prefix=%FF')[0]).toMatchObject({ wellFormed: false });
  });
});

describe('names and limits', () => {
  it('strips ports, keeps IPv6 brackets, lower-cases host names', () => {
    expect(hostName('Bucket.S3.Example.com:443')).toBe('bucket.s3.example.com');
    expect(hostName('[::1]:9000')).toBe('[::1]');
    expect(hostName(undefined)).toBe('');
    expect(hostName('Photos.S3.Example.com.:443')).toBe('photos.s3.example.com');
  });

  it('names the resource as S3 prints it', () => {
    expect(errorResource('b-1', 'a b')).toBe('/b-1/a b');
    expect(errorResource('b-1', '')).toBe('/b-1');
    expect(errorResource(null, '')).toBeUndefined();
  });

  it("holds S3's bucket-name and key-length rules", () => {
    expect(isAddressableBucketName('my.bucket-1')).toBe(true);
    for (const name of ['ab', 'Upper', '-lead', 'trail-', 'a_b', 'x'.repeat(64)])
      expect(isAddressableBucketName(name), name).toBe(false);
    expect(isKeyLengthValid('k'.repeat(1024))).toBe(true);
    expect(isKeyLengthValid('k'.repeat(1025))).toBe(false);
    expect(isKeyLengthValid('日'.repeat(341))).toBe(true);
    expect(isKeyLengthValid('日'.repeat(342))).toBe(false);
  });
});
