import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { percentDecodeToBytes, sigV4Encode } from '../../../src/protocol/encoding.js';
import { splitRequestTarget } from '../../../src/protocol/paths.js';
import { parseQuery } from '../../../src/protocol/query.js';
import { parseAuthorizationHeader } from '../../../src/sigv4/authorization.js';
import {
  buildCanonicalRequest,
  canonicalHeaderValue,
  canonicalQueryString,
  canonicalUri,
  credentialScope,
  sha256Hex,
  stringToSign,
} from '../../../src/sigv4/canonical.js';
import { deriveSigningKey, signStringToSign } from '../../../src/sigv4/signing-key.js';
import { headersFromLines, loadFixture } from './helpers.js';

interface SuiteVector {
  name: string;
  method: string;
  target: string;
  headers: [string, string][];
  body: string;
  authorization: string;
}

interface Suite {
  secretAccessKey: string;
  region: string;
  service: string;
  amzDate: string;
  vectors: SuiteVector[];
}

const suite = loadFixture<Suite>('aws-sigv4-suite.json');

/** The canonical query of a raw query string. */
function canonicalQuery(rawQuery: string, excludeName?: string): string {
  return canonicalQueryString(parseQuery(rawQuery), excludeName);
}

function signatureForVector(vector: SuiteVector): { signature: string; canonicalRequest: string } {
  const parsed = parseAuthorizationHeader(vector.authorization);
  if (!parsed.ok) throw new Error(`fixture ${vector.name} has a malformed Authorization`);
  const { path, query } = splitRequestTarget(vector.target);
  const canonicalRequest = buildCanonicalRequest({
    method: vector.method,
    canonicalUri: canonicalUri(path),
    canonicalQuery: canonicalQueryString(parseQuery(query)),
    headers: headersFromLines(vector.headers),
    signedHeaders: parsed.value.signedHeaders,
    payloadHash: sha256Hex(vector.body),
  });
  const scope = { date: suite.amzDate.slice(0, 8), region: suite.region, service: suite.service };
  const key = deriveSigningKey(suite.secretAccessKey, scope);
  return {
    signature: signStringToSign(key, stringToSign(suite.amzDate, scope, canonicalRequest)),
    canonicalRequest,
  };
}

describe('AWS SigV4 test suite (no path normalisation cases)', () => {
  it('has the vectors it is meant to cover', () => {
    expect(suite.vectors.map((vector) => vector.name)).toEqual(
      expect.arrayContaining([
        'get-vanilla',
        'get-vanilla-query-order-key-case',
        'get-header-value-trim',
        'post-x-www-form-urlencoded',
        'post-vanilla-query-nonunreserved',
        'get-utf8',
      ]),
    );
  });

  for (const vector of suite.vectors) {
    it(`reproduces the published signature of ${vector.name}`, () => {
      const expected = /Signature=([0-9a-f]{64})$/.exec(vector.authorization)?.[1];
      expect(signatureForVector(vector).signature).toBe(expected);
    });
  }

  it('builds the published get-vanilla canonical request and string-to-sign', () => {
    const vector = suite.vectors.find((candidate) => candidate.name === 'get-vanilla');
    if (vector === undefined) throw new Error('get-vanilla missing from fixture');
    const { canonicalRequest } = signatureForVector(vector);
    expect(canonicalRequest).toBe(
      [
        'GET',
        '/',
        '',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'host;x-amz-date',
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      ].join('\n'),
    );
    expect(
      stringToSign(
        '20150830T123600Z',
        { date: '20150830', region: 'us-east-1', service: 'service' },
        canonicalRequest,
      ),
    ).toBe(
      [
        'AWS4-HMAC-SHA256',
        '20150830T123600Z',
        '20150830/us-east-1/service/aws4_request',
        'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
      ].join('\n'),
    );
  });

  it('canonicalises the trimmed and repeated header values as the suite specifies', () => {
    expect(canonicalHeaderValue([' value1'])).toBe('value1');
    expect(canonicalHeaderValue(' "a   b   c" ')).toBe('"a b c"');
    expect(canonicalHeaderValue(['value2', 'value2', 'value1'])).toBe('value2,value2,value1');
    expect(canonicalHeaderValue('a\t \tb')).toBe('a b');
  });
});

describe('SigV4 encoding', () => {
  it('leaves only unreserved characters as they are', () => {
    expect(sigV4Encode('AZaz09-_.~')).toBe('AZaz09-_.~');
    expect(sigV4Encode(" !'()*+,/:;=?@$&%")).toBe('%20%21%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%24%26%25');
    expect(sigV4Encode('é')).toBe('%C3%A9');
    expect(sigV4Encode('😀')).toBe('%F0%9F%98%80');
  });

  it('decodes escapes to bytes and keeps a stray % literal', () => {
    expect([...percentDecodeToBytes('%e1%88%B4')]).toEqual([0xe1, 0x88, 0xb4]);
    expect(percentDecodeToBytes('100%').toString()).toBe('100%');
    expect(percentDecodeToBytes('%zz%4').toString()).toBe('%zz%4');
    expect(percentDecodeToBytes('a+b').toString()).toBe('a+b');
  });
});

describe('canonical URI (S3: as sent, one spelling per escape)', () => {
  it('keeps dot segments and empty segments instead of normalising them', () => {
    expect(canonicalUri('/bucket/a/../b/./c')).toBe('/bucket/a/../b/./c');
    expect(canonicalUri('/bucket//double//slash/')).toBe('/bucket//double//slash/');
  });

  it('does not encode a second time', () => {
    expect(canonicalUri('/bucket/a%20b')).toBe('/bucket/a%20b');
    expect(canonicalUri('/bucket/100%25')).toBe('/bucket/100%25');
  });

  it('normalises escape case and unreserved escapes, and escapes what must be escaped', () => {
    expect(canonicalUri('/bucket/%7euser/%e2%82%ac')).toBe('/bucket/~user/%E2%82%AC');
    expect(canonicalUri('/bucket/a$b=c+d')).toBe('/bucket/a%24b%3Dc%2Bd');
    expect(canonicalUri('/test$file.text')).toBe('/test%24file.text');
  });

  it('keeps an escaped slash escaped so the key keeps its meaning', () => {
    expect(canonicalUri('/bucket/a%2Fb')).toBe('/bucket/a%2Fb');
    expect(canonicalUri('/bucket/a%2fb')).toBe('/bucket/a%2Fb');
  });

  it('treats an empty path as the root', () => {
    expect(canonicalUri('')).toBe('/');
  });
});

describe('request target', () => {
  it('splits at the first question mark only', () => {
    expect(splitRequestTarget('/b/k?x=1?2&y')).toEqual({ path: '/b/k', query: 'x=1?2&y' });
    expect(splitRequestTarget('/b/k')).toEqual({ path: '/b/k', query: '' });
  });

  it('signs an absolute-form target by its path', () => {
    expect(splitRequestTarget('http://bucket.s3.example:9000/k%20y?acl')).toEqual({
      path: '/k%20y',
      query: 'acl',
    });
  });
});

describe('canonical query', () => {
  it('signs empty-valued subresources as name=', () => {
    expect(canonicalQuery('uploads')).toBe('uploads=');
    expect(canonicalQuery('delete')).toBe('delete=');
    expect(canonicalQuery('acl')).toBe('acl=');
    expect(canonicalQuery('uploads=')).toBe('uploads=');
  });

  it('sorts by encoded name, then by value, byte-wise (upper case first)', () => {
    expect(canonicalQuery('b=2&a=2&a=1&B=0')).toBe('B=0&a=1&a=2&b=2');
  });

  it('decodes then re-encodes names and values', () => {
    expect(canonicalQuery('prefix=a+b%2fc&marker=%7e')).toBe('marker=~&prefix=a%2Bb%2Fc');
    expect(canonicalQuery('prefix=a%20b')).toBe('prefix=a%20b');
  });

  it('ignores empty pieces', () => {
    expect(canonicalQuery('&a=1&&b=2&')).toBe('a=1&b=2');
  });

  it('drops the excluded parameter (X-Amz-Signature of a presigned URL)', () => {
    expect(canonicalQuery('X-Amz-Signature=abc&X-Amz-Date=1', 'X-Amz-Signature')).toBe('X-Amz-Date=1');
  });
});

describe('credential scope and string to sign', () => {
  it('formats the scope', () => {
    expect(credentialScope({ date: '20130524', region: 'us-east-1', service: 's3' })).toBe(
      '20130524/us-east-1/s3/aws4_request',
    );
  });

  it('hashes the canonical request into the last line', () => {
    const canonical = 'GET\n/\n\nhost:x\n\nhost\nUNSIGNED-PAYLOAD';
    const result = stringToSign(
      '20130524T000000Z',
      { date: '20130524', region: 'r', service: 's3' },
      canonical,
    );
    expect(result.split('\n')).toEqual([
      'AWS4-HMAC-SHA256',
      '20130524T000000Z',
      '20130524/r/s3/aws4_request',
      createHash('sha256').update(canonical).digest('hex'),
    ]);
  });
});
