import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderS3Error, S3_ERRORS, S3Error, type S3ErrorKey } from '../../../src/protocol/errors.js';
import { escapeXml, parseXml } from '../../../src/protocol/xml.js';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the S3 error catalogue', () => {
  it("holds service-spec §7's refusals with their exact code, status and message", () => {
    // The spec gives some messages word for word and only the gist of others; those are the
    // catalogue's wording as the service answers today, written out so a change to it shows here.
    const spec: [S3ErrorKey, string, number, string][] = [
      [
        'SignatureDoesNotMatch',
        'SignatureDoesNotMatch',
        403,
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      ],
      [
        'InvalidAccessKeyId',
        'InvalidAccessKeyId',
        403,
        'The AWS Access Key Id you provided does not exist in our records.',
      ],
      ['ExpiredAccessKey', 'AccessDenied', 403, 'This access key has expired.'],
      ['BucketAccessDenied', 'AccessDenied', 403, 'Access to this bucket is denied.'],
      ['PresignedUrlExpired', 'AccessDenied', 403, 'The presigned URL has expired.'],
      [
        'AccountProblem',
        'AccountProblem',
        403,
        'There is a problem with your account that prevents the operation from completing successfully.',
      ],
      [
        'RequestTimeTooSkewed',
        'RequestTimeTooSkewed',
        403,
        "The difference between the request time and the server's time is too large.",
      ],
      ['IncompleteSignature', 'AccessDenied', 403, 'The request signature is incomplete.'],
      ['NoSuchBucket', 'NoSuchBucket', 404, 'The specified bucket does not exist.'],
      [
        'MethodNotAllowed',
        'MethodNotAllowed',
        405,
        'The specified method is not allowed against this resource. Buckets and their configuration are managed through the control plane: POST /v1/buckets creates a bucket, PUT /v1/buckets/{bucket}/cors sets its CORS rules.',
      ],
      [
        'SignedStreamingNotImplemented',
        'NotImplemented',
        501,
        'STREAMING-AWS4-HMAC-SHA256-PAYLOAD is not implemented; use UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a signed payload hash.',
      ],
      [
        'StorageClassNotImplemented',
        'NotImplemented',
        501,
        'Only the STANDARD storage class is implemented.',
      ],
      [
        'OperationNotImplemented',
        'NotImplemented',
        501,
        'A header or query you provided implies functionality that is not implemented.',
      ],
      [
        'ConditionalReadRefused',
        'InvalidRequest',
        400,
        'Conditional GET requests (If-Match, If-None-Match, If-Modified-Since) are not supported.',
      ],
      [
        'EntityTooSmall',
        'EntityTooSmall',
        400,
        'Your proposed upload is smaller than the minimum allowed object size.',
      ],
      [
        'BadDigest',
        'BadDigest',
        400,
        'The Content-MD5 or checksum value that you specified did not match what the server received.',
      ],
    ];
    for (const [key, code, status, message] of spec) {
      const entry = S3_ERRORS[key];
      expect({ key, code: entry.code, status: entry.status, message: entry.message }).toEqual({
        key,
        code,
        status,
        message,
      });
    }
  });

  it('has an S3-shaped code, an error status and a message for every entry', () => {
    for (const [key, entry] of Object.entries(S3_ERRORS)) {
      expect(entry.code, key).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(entry.status >= 400 && entry.status <= 599, key).toBe(true);
      expect(entry.message, key).toMatch(/^\S.*\S$/);
    }
  });

  it('renders every entry as a well-formed error document with its request id and resource', () => {
    for (const key of Object.keys(S3_ERRORS) as S3ErrorKey[]) {
      const error = new S3Error(key, { ServerTime: '2026-01-01T00:00:00Z' });
      const xml = renderS3Error(error.definition, { requestId: 'REQ<1>', resource: '/b/a&b' }, error.details);
      const parsed = parseXml(xml)?.Error as Record<string, string> | undefined;
      expect(parsed, key).toEqual({
        Code: error.code,
        // The parser leaves entities as they are: what was escaped shows escaped.
        Message: escapeXml(error.definition.message),
        ServerTime: '2026-01-01T00:00:00Z',
        Resource: '/b/a&amp;b',
        RequestId: 'REQ&lt;1&gt;',
      });
      expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><Error>'), key).toBe(true);
    }
  });

  it('has no entry the endpoint never produces', () => {
    const source = sourceFiles(SRC)
      .filter((file) => !file.endsWith(`${path.sep}errors.ts`))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = Object.keys(S3_ERRORS).filter((key) => !source.includes(`'${key}'`));
    expect(unused).toEqual([]);
  });

  it('names the refusal reason of every edge refusal, and of nothing else', () => {
    const reasonOf = (key: S3ErrorKey) => new S3Error(key).definition.reason;
    expect(reasonOf('SignatureDoesNotMatch')).toBe('signature');
    expect(reasonOf('DotSegmentKey')).toBe('ban');
    expect(new S3Error('DotSegmentKey').code).toBe('SignatureDoesNotMatch');
    expect(reasonOf('ExpiredAccessKey')).toBe('expired');
    expect(reasonOf('BucketAccessDenied')).toBe('scope');
    expect(reasonOf('AccountProblem')).toBe('suspended');
    expect(reasonOf('BadDigest')).toBe('checksum');
    expect(reasonOf('PresignedUrlExpired')).toBe('presign_expired');
    expect(reasonOf('NoSuchBucket')).toBeNull();
    expect(reasonOf('ServiceUnavailable')).toBeNull();
  });
});
