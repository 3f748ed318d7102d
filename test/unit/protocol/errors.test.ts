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
    const spec: [S3ErrorKey, string, number, string | null][] = [
      ['SignatureDoesNotMatch', 'SignatureDoesNotMatch', 403, null],
      ['InvalidAccessKeyId', 'InvalidAccessKeyId', 403, null],
      ['ExpiredAccessKey', 'AccessDenied', 403, 'This access key has expired.'],
      ['BucketAccessDenied', 'AccessDenied', 403, 'Access to this bucket is denied.'],
      ['PresignedUrlExpired', 'AccessDenied', 403, 'The presigned URL has expired.'],
      ['AccountProblem', 'AccountProblem', 403, null],
      ['RequestTimeTooSkewed', 'RequestTimeTooSkewed', 403, null],
      ['IncompleteSignature', 'AccessDenied', 403, 'The request signature is incomplete.'],
      ['NoSuchBucket', 'NoSuchBucket', 404, null],
      ['MethodNotAllowed', 'MethodNotAllowed', 405, null],
      ['SignedStreamingNotImplemented', 'NotImplemented', 501, null],
      ['StorageClassNotImplemented', 'NotImplemented', 501, null],
      ['OperationNotImplemented', 'NotImplemented', 501, null],
      ['ConditionalReadRefused', 'InvalidRequest', 400, null],
      ['EntityTooSmall', 'EntityTooSmall', 400, null],
      ['BadDigest', 'BadDigest', 400, null],
    ];
    for (const [key, code, status, message] of spec) {
      const entry = S3_ERRORS[key];
      expect({ key, code: entry.code, status: entry.status }).toEqual({ key, code, status });
      if (message !== null) expect(entry.message).toBe(message);
    }
    expect(S3_ERRORS.InvalidAccessKeyId.message).toMatch(/does not exist in our records/);
    expect(S3_ERRORS.AccountProblem.message).toMatch(/problem with your account that prevents the operation/);
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
