import { describe, expect, it } from 'vitest';
import { parseQuery, resolveAddress } from '../../../src/s3/address.js';
import { backendPath, backendQuery } from '../../../src/s3/forward.js';
import { clientResponseHeaders, forwardedRequestHeaders } from '../../../src/s3/forward-headers.js';

const address = (target: string, host = 's3.local') => resolveAddress(host, target, 's3.local');

describe('backendPath', () => {
  it('is path-style with each key segment SigV4-encoded, so it decodes to exactly the signed key', () => {
    expect(backendPath(address('/b-1/a%20b/c+d~%7E/%E6%97%A5'))).toBe('/b-1/a%20b/c%2Bd~~/%E6%97%A5');
    expect(backendPath(address('/a//b/', 'b-1.s3.local'))).toBe('/b-1/a//b/');
    expect(backendPath(address('/b-1'))).toBe('/b-1');
    expect(backendPath(address('/'))).toBe('/');
  });
});

describe('backendQuery', () => {
  it('drops presigned parameters, hoisted headers and the SDK operation marker, keeps the rest in order', () => {
    const query = parseQuery(
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&uploadId=u1&X-Amz-Signature=s&x-id=UploadPart&partNumber=2&x-amz-meta-a=1',
    );
    expect(backendQuery(query)).toEqual([
      { name: 'uploadId', value: 'u1', bare: false },
      { name: 'partNumber', value: '2', bare: false },
    ]);
  });
});

describe('forwardedRequestHeaders', () => {
  const received = {
    authorization: 'AWS4-HMAC-SHA256 ...',
    'x-amz-date': '20260101T000000Z',
    'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    'x-amz-security-token': 't',
    'x-amz-decoded-content-length': '5',
    'x-amz-trailer': 'x-amz-checksum-crc32',
    'x-amz-sdk-checksum-algorithm': 'CRC32',
    'content-encoding': 'aws-chunked,gzip',
    'content-type': 'text/plain',
    'content-length': '99',
    'transfer-encoding': 'chunked',
    expect: '100-continue',
    connection: 'keep-alive',
    'user-agent': 'sdk',
    'x-amz-meta-colour': 'blue',
    'x-amz-copy-source-range': 'bytes=0-1',
    'x-amz-storage-class': 'STANDARD',
    'x-amz-expected-bucket-owner': '123',
    'x-forwarded-for': '1.2.3.4',
    host: 'gateway',
  };

  it("forwards the allowlist only, applies the body pipeline's changes, and sets the extras", () => {
    const forwarded = forwardedRequestHeaders(
      received,
      {
        remove: [
          'x-amz-decoded-content-length',
          'x-amz-trailer',
          'x-amz-sdk-checksum-algorithm',
          'transfer-encoding',
        ],
        set: {
          'content-length': '5',
          'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
          'content-encoding': 'gzip',
        },
      },
      { 'content-length': '5' },
    );
    expect(forwarded).toEqual({
      'content-encoding': 'gzip',
      'content-type': 'text/plain',
      'content-length': '5',
      'x-amz-meta-colour': 'blue',
      'x-amz-copy-source-range': 'bytes=0-1',
      'x-amz-storage-class': 'STANDARD',
    });
  });
});

describe('clientResponseHeaders', () => {
  it("drops hop-by-hop headers, the backend's ids and CORS, keeps the object's", () => {
    expect(
      clientResponseHeaders({
        etag: '"e"',
        'content-length': '4',
        'last-modified': 'x',
        'x-amz-meta-a': '1',
        'x-amz-request-id': 'backend',
        'x-amz-id-2': 'backend',
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        'access-control-allow-origin': '*',
        server: 'RGW',
        date: 'now',
      }),
    ).toEqual({ etag: '"e"', 'content-length': '4', 'last-modified': 'x', 'x-amz-meta-a': '1' });
  });
});
