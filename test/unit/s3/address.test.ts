import { describe, expect, it } from 'vitest';
import { hostName, parseQuery, resolveAddress, resourceOf } from '../../../src/s3/address.js';

const DOMAIN = 's3.example.com';

function code(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('resolveAddress', () => {
  it('reads path-style bucket and key, decoding the key once', () => {
    const address = resolveAddress('s3.example.com:9000', '/photos/a%20b/c%2Bd.txt?x-id=GetObject', DOMAIN);
    expect(address).toMatchObject({
      style: 'path',
      bucket: 'photos',
      key: 'a b/c+d.txt',
      rawPath: '/photos/a%20b/c%2Bd.txt',
    });
    expect(address.query).toEqual([{ name: 'x-id', value: 'GetObject', bare: false }]);
  });

  it('reads virtual-hosted bucket from the Host and the whole path as the key', () => {
    expect(resolveAddress('photos.s3.example.com:9000', '/2024/cat.jpg', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'photos',
      key: '2024/cat.jpg',
    });
    expect(resolveAddress('PHOTOS.S3.EXAMPLE.COM', '/', DOMAIN)).toMatchObject({ bucket: 'photos', key: '' });
  });

  it('reads a fully qualified Host (trailing dot) as the same name: never path-style by mistake', () => {
    // Read path-style, this would be bucket "other", key "k": another bucket than the client meant.
    expect(resolveAddress('photos.s3.example.com.:9000', '/other/k', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'photos',
      key: 'other/k',
    });
    expect(resolveAddress('s3.example.com.', '/photos/k', DOMAIN)).toMatchObject({
      style: 'path',
      bucket: 'photos',
      key: 'k',
    });
  });

  it('accepts bucket names with dots path-style, and as a virtual host', () => {
    expect(resolveAddress('127.0.0.1:9000', '/my.dotted.bucket/k', DOMAIN)).toMatchObject({
      style: 'path',
      bucket: 'my.dotted.bucket',
      key: 'k',
    });
    expect(resolveAddress('my.dotted.bucket.s3.example.com', '/k', DOMAIN)).toMatchObject({
      style: 'virtual-hosted',
      bucket: 'my.dotted.bucket',
    });
  });

  it('treats the bare domain, IP addresses and other hosts as path-style', () => {
    expect(resolveAddress(DOMAIN, '/', DOMAIN)).toMatchObject({ style: 'path', bucket: null, key: '' });
    expect(resolveAddress('[::1]:9000', '/b-1/k', DOMAIN)).toMatchObject({ style: 'path', bucket: 'b-1' });
    expect(resolveAddress('localhost', '/bucket/', DOMAIN)).toMatchObject({ bucket: 'bucket', key: '' });
  });

  it('refuses a request without a Host', () => {
    for (const host of [undefined, '', '  ']) {
      expect(() => resolveAddress(host, '/bucket/key', DOMAIN)).toThrow(
        expect.objectContaining({ key: 'MissingHostHeader' }),
      );
    }
  });

  it('keeps keys exactly: empty segments, dots inside names, a leading slash', () => {
    expect(resolveAddress(DOMAIN, '/b-1/a//b/', DOMAIN).key).toBe('a//b/');
    expect(resolveAddress(DOMAIN, '/b-1//lead', DOMAIN).key).toBe('/lead');
    expect(resolveAddress(DOMAIN, '/b-1/..a/b..', DOMAIN).key).toBe('..a/b..');
    expect(resolveAddress(DOMAIN, '/b-1/a/../b', DOMAIN).key).toBe('a/../b');
  });

  it('accepts an absolute-form request target', () => {
    expect(resolveAddress(DOMAIN, 'http://s3.example.com/b-1/k?uploads', DOMAIN)).toMatchObject({
      bucket: 'b-1',
      key: 'k',
      query: [{ name: 'uploads', value: '', bare: true }],
    });
  });

  it('refuses malformed escapes and non-UTF-8 keys with InvalidURI', () => {
    expect(code(() => resolveAddress(DOMAIN, '/b-1/a%zzb', DOMAIN))).toBe('InvalidURI');
    expect(code(() => resolveAddress(DOMAIN, '/b-1/a%', DOMAIN))).toBe('InvalidURI');
    expect(code(() => resolveAddress(DOMAIN, '/b-1/%FF%FE', DOMAIN))).toBe('InvalidURI');
    expect(code(() => resolveAddress(DOMAIN, '/b-1/k?prefix=%G0', DOMAIN))).toBe('InvalidURI');
    expect(code(() => resolveAddress(DOMAIN, '*', DOMAIN))).toBe('InvalidURI');
  });

  it('refuses invalid bucket names and over-long keys', () => {
    expect(code(() => resolveAddress(DOMAIN, '/Upper/k', DOMAIN))).toBe('InvalidBucketName');
    expect(code(() => resolveAddress(DOMAIN, '/ab/k', DOMAIN))).toBe('InvalidBucketName');
    expect(code(() => resolveAddress('-bad.s3.example.com', '/k', DOMAIN))).toBe('InvalidBucketName');
    expect(code(() => resolveAddress(DOMAIN, `/b-1/${'k'.repeat(1025)}`, DOMAIN))).toBe('KeyTooLongError');
    expect(resolveAddress(DOMAIN, `/b-1/${'k'.repeat(1024)}`, DOMAIN).key).toHaveLength(1024);
  });
});

describe('parseQuery', () => {
  it('keeps order, bare names, literal plus signs and repeated names', () => {
    expect(parseQuery('uploads&prefix=a+b%20c&tag=1&tag=2&&')).toEqual([
      { name: 'uploads', value: '', bare: true },
      { name: 'prefix', value: 'a+b c', bare: false },
      { name: 'tag', value: '1', bare: false },
      { name: 'tag', value: '2', bare: false },
    ]);
  });
});

describe('hostName and resourceOf', () => {
  it('strips ports, keeps IPv6 brackets, lower-cases', () => {
    expect(hostName('Bucket.S3.Example.com:443')).toBe('bucket.s3.example.com');
    expect(hostName('[::1]:9000')).toBe('[::1]');
    expect(hostName(undefined)).toBe('');
    expect(hostName('Photos.S3.Example.com.:443')).toBe('photos.s3.example.com');
  });

  it('names the resource as S3 prints it', () => {
    expect(resourceOf(resolveAddress(DOMAIN, '/b-1/a%20b', DOMAIN))).toBe('/b-1/a b');
    expect(resourceOf(resolveAddress(DOMAIN, '/b-1', DOMAIN))).toBe('/b-1');
    expect(resourceOf(resolveAddress(DOMAIN, '/', DOMAIN))).toBeUndefined();
    expect(resourceOf(null)).toBeUndefined();
  });
});
