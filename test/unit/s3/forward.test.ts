import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/protocol/query.js';
import type { Planned } from '../../../src/s3/stages.js';
import { backendQuery, backendRequestOf, forwardedHeaders } from '../../../src/s3/upstream/forward.js';
import { NO_BODY } from '../../../src/sigv4/body-plan.js';
import { announcesBody } from '../../../src/s3/upstream/body.js';
import { addressedFor } from '../../support/s3/stages.js';

function planned(method: string, target: string, host = 's3.local'): Planned {
  return { ...addressedFor(method, target, { host }), body: NO_BODY } as unknown as Planned;
}

describe('the backend request', () => {
  it('is path-style with each key segment SigV4-encoded, so it decodes to exactly the signed key', () => {
    expect(backendRequestOf(planned('GET', '/b-1/a%20b/c+d~%7E/%E6%97%A5')).path).toBe(
      '/b-1/a%20b/c%2Bd~~/%E6%97%A5',
    );
    expect(backendRequestOf(planned('GET', '/a//b/', 'b-1.s3.local')).path).toBe('/b-1/a//b/');
    expect(backendRequestOf(planned('GET', '/b-1')).path).toBe('/b-1');
    expect(backendRequestOf(planned('GET', '/')).path).toBe('/');
  });
});

describe('backendQuery', () => {
  it('drops presigned parameters, hoisted headers and the SDK operation marker, keeps the rest in order', () => {
    const query = parseQuery(
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&uploadId=u1&X-Amz-Signature=s&x-id=UploadPart&partNumber=2&x-amz-meta-a=1',
    );
    expect(backendQuery(query).map(({ name, value, bare }) => ({ name, value, bare }))).toEqual([
      { name: 'uploadId', value: 'u1', bare: false },
      { name: 'partNumber', value: '2', bare: false },
    ]);
  });
});

describe('forwardedHeaders', () => {
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

  it("forwards the allowlist only (no streaming or framing header), applies the body plan's changes, and sets the extras", () => {
    const forwarded = forwardedHeaders(
      received,
      { remove: ['x-amz-sdk-checksum-algorithm'], set: { 'content-encoding': 'gzip' } },
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

  it('leaves out every header the body plan removes, even one on the allowlist', () => {
    const forwarded = forwardedHeaders(
      { ...received, 'content-encoding': 'aws-chunked' },
      { remove: ['x-amz-sdk-checksum-algorithm', 'content-encoding'], set: {} },
    );
    expect(forwarded).toEqual({
      'content-type': 'text/plain',
      'x-amz-meta-colour': 'blue',
      'x-amz-copy-source-range': 'bytes=0-1',
      'x-amz-storage-class': 'STANDARD',
    });
    expect(Object.keys(forwarded)).not.toContain('content-encoding');
  });
});

describe('announcesBody', () => {
  it('is true for a non-zero length or a chunked transfer', () => {
    expect(announcesBody({ 'content-length': '5' })).toBe(true);
    expect(announcesBody({ 'transfer-encoding': 'chunked' })).toBe(true);
    expect(announcesBody({ 'content-length': '0' })).toBe(false);
    expect(announcesBody({})).toBe(false);
  });
});
