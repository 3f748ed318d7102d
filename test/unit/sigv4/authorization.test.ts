import { describe, expect, it } from 'vitest';

import { parseQuery } from '../../../src/protocol/query.js';
import {
  detectAuthForm,
  parseAuthorizationHeader,
  parsePresignedQuery,
} from '../../../src/sigv4/authorization.js';

const SIGNATURE = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
const CREDENTIAL = 'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request';

describe('parseAuthorizationHeader', () => {
  it('parses the canonical layout', () => {
    const parsed = parseAuthorizationHeader(
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host;range;x-amz-date, Signature=${SIGNATURE}`,
    );
    expect(parsed).toEqual({
      ok: true,
      value: {
        form: 'header',
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        scope: { date: '20130524', region: 'us-east-1', service: 's3' },
        signedHeaders: ['host', 'range', 'x-amz-date'],
        signature: SIGNATURE,
      },
    });
  });

  it.each([
    [
      'no spaces after commas',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL},SignedHeaders=host,Signature=${SIGNATURE}`,
    ],
    [
      'extra spaces',
      `  AWS4-HMAC-SHA256   Credential=${CREDENTIAL} ,  SignedHeaders=host ,Signature=${SIGNATURE}  `,
    ],
    [
      'components reordered',
      `AWS4-HMAC-SHA256 Signature=${SIGNATURE}, Credential=${CREDENTIAL}, SignedHeaders=host`,
    ],
    [
      'doubled commas',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL},, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'tabs, a no-break space and a line separator as white space',
      `\tAWS4-HMAC-SHA256\u00a0Credential=${CREDENTIAL},\tSignedHeaders=host\u2028Signature=${SIGNATURE}\t`,
    ],
    [
      'a comma straight after the algorithm, and one at the end',
      `AWS4-HMAC-SHA256,Credential=${CREDENTIAL},SignedHeaders=host,Signature=${SIGNATURE},`,
    ],
    [
      'upper-case hex signature',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE.toUpperCase()}`,
    ],
  ])('tolerates %s', (_label, header) => {
    const parsed = parseAuthorizationHeader(header);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.value.signature).toBe(SIGNATURE);
      expect(parsed.value.accessKeyId).toBe('AKIAIOSFODNN7EXAMPLE');
      expect(parsed.value.signedHeaders).toEqual(['host']);
    }
  });

  it.each([
    [
      'an unknown algorithm',
      `AWS4-HMAC-SHA512 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    ['SigV2', 'AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg='],
    ['a missing Credential', `AWS4-HMAC-SHA256 SignedHeaders=host, Signature=${SIGNATURE}`],
    ['a missing SignedHeaders', `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, Signature=${SIGNATURE}`],
    ['a missing Signature', `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host`],
    ['an empty Signature', `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=`],
    [
      'a non-hex Signature',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${'g'.repeat(64)}`,
    ],
    ['a short Signature', `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=abcd`],
    [
      'a scope with too few parts',
      `AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'a scope with too many parts',
      `AWS4-HMAC-SHA256 Credential=AKID/x/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'a wrong scope terminator',
      `AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws5_request, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'a malformed scope date',
      `AWS4-HMAC-SHA256 Credential=AKID/2013-05-24/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'an empty access key',
      `AWS4-HMAC-SHA256 Credential=/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'an empty signed header name',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host;;x-amz-date, Signature=${SIGNATURE}`,
    ],
    [
      'a repeated component',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'an unknown component',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}, Extra=1`,
    ],
    [
      'a bare word',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}, oops`,
    ],
    [
      'the algorithm with more to its name',
      `AWS4-HMAC-SHA256X Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'a comma before the algorithm',
      `, AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host, Signature=${SIGNATURE}`,
    ],
    [
      'a component named with a prefix of another',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, Signed=host, Signature=${SIGNATURE}`,
    ],
    [
      'a separator inside a value',
      `AWS4-HMAC-SHA256 Credential=${CREDENTIAL}, SignedHeaders=host x-amz-date, Signature=${SIGNATURE}`,
    ],
    ['only the algorithm', 'AWS4-HMAC-SHA256'],
    ['an empty header', ''],
  ])('refuses %s with IncompleteSignature', (_label, header) => {
    expect(parseAuthorizationHeader(header)).toEqual({ ok: false, error: 'IncompleteSignature' });
  });
});

const PRESIGNED_QUERY =
  'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
  '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
  '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';

describe('parsePresignedQuery', () => {
  it('reads the documented example', () => {
    expect(parsePresignedQuery(parseQuery(PRESIGNED_QUERY))).toEqual({
      ok: true,
      value: {
        form: 'presigned',
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        scope: { date: '20130524', region: 'us-east-1', service: 's3' },
        signedHeaders: ['host'],
        signature: 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
        amzDate: '20130524T000000Z',
        expiresSeconds: 86400,
      },
    });
  });

  it('reads the optional security token and content hash', () => {
    const parsed = parsePresignedQuery(
      parseQuery(`${PRESIGNED_QUERY}&X-Amz-Security-Token=tok%2Fen&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD`),
    );
    expect(parsed.ok && parsed.value.securityToken).toBe('tok/en');
    expect(parsed.ok && parsed.value.contentSha256).toBe('UNSIGNED-PAYLOAD');
  });

  it.each([
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
  ])('refuses a URL without %s', (name) => {
    const query = PRESIGNED_QUERY.split('&')
      .filter((pair) => !pair.startsWith(`${name}=`))
      .join('&');
    expect(parsePresignedQuery(parseQuery(query))).toEqual({
      ok: false,
      error: 'AuthorizationQueryParametersMalformed',
    });
  });

  it.each([
    ['an unknown algorithm', PRESIGNED_QUERY.replace('AWS4-HMAC-SHA256', 'AWS4-HMAC-SHA1')],
    ['a negative lifetime', PRESIGNED_QUERY.replace('X-Amz-Expires=86400', 'X-Amz-Expires=-1')],
    ['a non-numeric lifetime', PRESIGNED_QUERY.replace('X-Amz-Expires=86400', 'X-Amz-Expires=1e5')],
    ['a short credential', PRESIGNED_QUERY.replace('%2Fs3%2Faws4_request', '%2Fs3')],
    [
      'a non-hex signature',
      PRESIGNED_QUERY.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'x'.repeat(64)}`),
    ],
    ['a repeated parameter', `${PRESIGNED_QUERY}&X-Amz-Date=20130525T000000Z`],
  ])('refuses %s', (_label, query) => {
    expect(parsePresignedQuery(parseQuery(query))).toEqual({
      ok: false,
      error: 'AuthorizationQueryParametersMalformed',
    });
  });
});

describe('detectAuthForm', () => {
  const form = (headers: Record<string, string>, rawQuery: string) =>
    detectAuthForm(headers, parseQuery(rawQuery));
  it('tells the forms apart', () => {
    expect(form({ authorization: 'AWS4-HMAC-SHA256 x' }, '')).toBe('header');
    expect(form({}, PRESIGNED_QUERY)).toBe('presigned');
    expect(form({}, 'X-Amz-Credential=a')).toBe('presigned');
    expect(form({ authorization: 'AWS4-HMAC-SHA256 x' }, PRESIGNED_QUERY)).toBe('ambiguous');
    expect(form({}, 'prefix=X-Amz-Signature')).toBe('anonymous');
    // Present but blank is a malformed signature (decisions.md), not an anonymous request.
    expect(form({ authorization: '  ' }, '')).toBe('header');
  });
});
