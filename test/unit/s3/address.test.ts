import { describe, expect, it } from 'vitest';
import { thrownCode } from '../../support/thrown-code.js';
import { resolveLocation } from '../../../src/s3/steps/address.js';
import { addressedFor } from '../../support/s3/stages.js';

const DOMAIN = 's3.example.com';

describe('resolveAddress', () => {
  it('reads path-style bucket and key, decoding the key once', () => {
    expect(resolveLocation('s3.example.com:9000', '/photos/a%20b/c%2Bd.txt', DOMAIN)).toEqual({
      style: 'path',
      bucket: 'photos',
      key: 'a b/c+d.txt',
    });
  });

  it('reads virtual-hosted bucket from the Host and the whole path as the key', () => {
    expect(resolveLocation('photos.s3.example.com:9000', '/2024/cat.jpg', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'photos',
      key: '2024/cat.jpg',
    });
    expect(resolveLocation('PHOTOS.S3.EXAMPLE.COM', '/', DOMAIN)).toMatchObject({
      bucket: 'photos',
      key: '',
    });
  });

  it('reads a fully qualified Host (trailing dot) as the same name: never path-style by mistake', () => {
    // Read path-style, this would be bucket "other", key "k": another bucket than the client meant.
    expect(resolveLocation('photos.s3.example.com.:9000', '/other/k', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'photos',
      key: 'other/k',
    });
    expect(resolveLocation('s3.example.com.', '/photos/k', DOMAIN)).toMatchObject({
      style: 'path',
      bucket: 'photos',
      key: 'k',
    });
  });

  it('accepts bucket names with dots path-style, and as a virtual host', () => {
    expect(resolveLocation('127.0.0.1:9000', '/my.dotted.bucket/k', DOMAIN)).toMatchObject({
      style: 'path',
      bucket: 'my.dotted.bucket',
      key: 'k',
    });
    expect(resolveLocation('my.dotted.bucket.s3.example.com', '/k', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'my.dotted.bucket',
    });
  });

  it('treats the bare domain, IP addresses and other hosts as path-style', () => {
    expect(resolveLocation(DOMAIN, '/', DOMAIN)).toMatchObject({ style: 'path', bucket: null, key: '' });
    expect(resolveLocation('[::1]:9000', '/b-1/k', DOMAIN)).toMatchObject({ style: 'path', bucket: 'b-1' });
    expect(resolveLocation('localhost', '/bucket/', DOMAIN)).toMatchObject({ bucket: 'bucket', key: '' });
  });

  it('refuses a request without a Host', () => {
    for (const host of [undefined, '', '  ']) {
      expect(() => resolveLocation(host, '/bucket/key', DOMAIN)).toThrow(
        expect.objectContaining({ key: 'MissingHostHeader' }),
      );
    }
  });

  it('keeps keys exactly: empty segments, dots inside names, a leading slash', () => {
    expect(resolveLocation(DOMAIN, '/b-1/a//b/', DOMAIN).key).toBe('a//b/');
    expect(resolveLocation(DOMAIN, '/b-1//lead', DOMAIN).key).toBe('/lead');
    expect(resolveLocation(DOMAIN, '/b-1/..a/b..', DOMAIN).key).toBe('..a/b..');
    expect(resolveLocation(DOMAIN, '/b-1/a/../b', DOMAIN).key).toBe('a/../b');
  });

  it('refuses malformed escapes and non-UTF-8 keys with InvalidURI', () => {
    expect(thrownCode(() => resolveLocation(DOMAIN, '/b-1/a%zzb', DOMAIN))).toBe('InvalidURI');
    expect(thrownCode(() => resolveLocation(DOMAIN, '/b-1/a%', DOMAIN))).toBe('InvalidURI');
    expect(thrownCode(() => resolveLocation(DOMAIN, '/b-1/%FF%FE', DOMAIN))).toBe('InvalidURI');
    expect(thrownCode(() => resolveLocation(DOMAIN, '*', DOMAIN))).toBe('InvalidURI');
  });

  it('refuses invalid bucket names and over-long keys', () => {
    expect(thrownCode(() => resolveLocation(DOMAIN, '/Upper/k', DOMAIN))).toBe('InvalidBucketName');
    expect(thrownCode(() => resolveLocation(DOMAIN, '/ab/k', DOMAIN))).toBe('InvalidBucketName');
    expect(thrownCode(() => resolveLocation('-bad.s3.example.com', '/k', DOMAIN))).toBe('InvalidBucketName');
    expect(thrownCode(() => resolveLocation(DOMAIN, `/b-1/${'k'.repeat(1025)}`, DOMAIN))).toBe(
      'KeyTooLongError',
    );
    expect(resolveLocation(DOMAIN, `/b-1/${'k'.repeat(1024)}`, DOMAIN).key).toHaveLength(1024);
  });
});

describe('address', () => {
  it('refuses a query that gives one parameter twice, naming it, whichever it is', () => {
    for (const [target, name] of [
      ['/b-1?list-type=2&prefix=users/42/&prefix=', 'prefix'],
      ['/b-1/k?uploadId=a&uploadId=b', 'uploadId'],
      ['/b-1/k?uploads&uploads', 'uploads'],
      ['/b-1/k?x-id=GetObject&x-id=GetObject', 'x-id'],
    ] as const) {
      expect(() => addressedFor('GET', target)).toThrow(
        expect.objectContaining({
          key: 'RepeatedQueryParameter',
          details: { ArgumentName: name },
          text: `The query parameter ${name} is given more than once; give each query parameter once.`,
        }),
      );
    }
    // Names differ by case are different parameters, as S3 reads them.
    expect(addressedFor('GET', '/b-1/k?versionId=a&versionid=b').key).toBe('k');
  });
});
