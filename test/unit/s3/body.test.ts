import { describe, expect, it } from 'vitest';
import { announcesBody, planBody } from '../../../src/s3/body.js';

describe('announcesBody', () => {
  it('is true for a non-zero length or a chunked transfer', () => {
    expect(announcesBody({ 'content-length': '5' })).toBe(true);
    expect(announcesBody({ 'transfer-encoding': 'chunked' })).toBe(true);
    expect(announcesBody({ 'content-length': '0' })).toBe(false);
    expect(announcesBody({})).toBe(false);
  });
});

describe('planBody', () => {
  it('verifies checksum headers against the body, except the object checksum of a completion', () => {
    const headers = { 'content-length': '10', 'x-amz-checksum-crc32': 'AAAAAA==' };
    expect(planBody(headers, { payloadHash: 'UNSIGNED-PAYLOAD' }).checksum).toEqual({
      algorithm: 'CRC32',
      source: 'header',
    });
    expect(
      planBody(headers, { payloadHash: 'UNSIGNED-PAYLOAD', checksumHeadersDescribeObject: true }).checksum,
    ).toBeUndefined();
  });

  it('throws the refusals that need no body', () => {
    expect(() => planBody({}, { payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' })).toThrow(
      /NotImplemented/,
    );
    expect(() =>
      planBody(
        { 'x-amz-checksum-crc32': 'AAAAAA==', 'x-amz-trailer': 'x-amz-checksum-crc32' },
        { payloadHash: undefined },
      ),
    ).toThrow(/InvalidRequest/);
  });

  it('plans aws-chunked decoding to the decoded length', () => {
    const plan = planBody(
      {
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '7',
        'x-amz-trailer': 'x-amz-checksum-crc32',
      },
      { payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' },
    );
    expect(plan.decodedLength).toBe(7);
    expect(plan.forwardHeaders.set['content-length']).toBe('7');
    expect(plan.forwardHeaders.remove).toContain('content-encoding');
  });
});
