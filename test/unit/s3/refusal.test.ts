import { describe, expect, it } from 'vitest';
import { S3Error } from '../../../src/s3/errors.js';
import { Refusal, refusalReasonOf } from '../../../src/s3/refusal.js';

describe('refusalReasonOf', () => {
  it('maps edge refusals to their metric reason, and nothing else', () => {
    expect(refusalReasonOf(new S3Error('SignatureDoesNotMatch'))).toBe('signature');
    expect(refusalReasonOf(new Refusal('SignatureDoesNotMatch', 'ban'))).toBe('ban');
    expect(refusalReasonOf(new S3Error('ExpiredAccessKey'))).toBe('expired');
    expect(refusalReasonOf(new S3Error('BucketAccessDenied'))).toBe('scope');
    expect(refusalReasonOf(new S3Error('AccountProblem'))).toBe('suspended');
    expect(refusalReasonOf(new S3Error('BadDigest'))).toBe('checksum');
    expect(refusalReasonOf(new S3Error('PresignedUrlExpired'))).toBe('presign_expired');
    expect(refusalReasonOf(new S3Error('NoSuchBucket'))).toBeNull();
    expect(refusalReasonOf(new S3Error('ServiceUnavailable'))).toBeNull();
  });
});
