import { describe, expect, it } from 'vitest';

import {
  checksumAlgorithmFromHeader,
  checksumAlgorithmFromName,
  checksumHeaderName,
  createDigest,
  digestOf,
  isChecksumValueHeader,
  isWellFormedDigest,
  validateDigestValue,
  type DigestAlgorithm,
} from '../../../src/sigv4/checksums.js';
import { randomSplits } from './helpers.js';

const CHECK_INPUT = Buffer.from('123456789');

/** Published check values for "123456789" (CRC catalogues, NIST/RFC digests), as big-endian hex. */
const CHECK_VALUES: Record<DigestAlgorithm, string> = {
  CRC32: 'cbf43926',
  CRC32C: 'e3069283',
  CRC64NVME: 'ae8b14860a799888',
  SHA1: 'f7c3bc1d808e04732adf679965ccc34ca7ae3441',
  SHA256: '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225',
  MD5: '25f9e794323b453885f5181f1b624d0b',
};

const EMPTY_VALUES: Record<DigestAlgorithm, string> = {
  CRC32: 'AAAAAA==',
  CRC32C: 'AAAAAA==',
  CRC64NVME: 'AAAAAAAAAAA=',
  SHA1: '2jmj7l5rSw0yVb/vlWAYkK/YBwk=',
  SHA256: '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
  MD5: '1B2M2Y8AsgTpgAmY7PhCfg==',
};

const ALGORITHMS = Object.keys(CHECK_VALUES) as DigestAlgorithm[];

describe('streaming digests', () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm} of "123456789" is the published check value`, async () => {
      const expected = Buffer.from(CHECK_VALUES[algorithm], 'hex').toString('base64');
      expect(await digestOf(algorithm, CHECK_INPUT)).toBe(expected);
    });

    it(`${algorithm} of nothing`, async () => {
      expect(await digestOf(algorithm, Buffer.alloc(0))).toBe(EMPTY_VALUES[algorithm]);
    });

    it(`${algorithm} gives the same value however the input is split`, async () => {
      const data = Buffer.from(Array.from({ length: 10_000 }, (_, index) => (index * 31 + 7) & 0xff));
      const whole = await digestOf(algorithm, data);
      for (const seed of [1, 2, 3]) {
        const digest = createDigest(algorithm);
        for (const piece of randomSplits(data, seed, 97)) digest.update(piece);
        expect(await digest.digestBase64()).toBe(whole);
      }
    });
  }

  it('matches the x-amz-checksum-crc32 the AWS SDK sends for "hello"', async () => {
    // Captured from @aws-sdk/client-s3 PutObject { Body: 'hello' }.
    expect(await digestOf('CRC32', Buffer.from('hello'))).toBe('NhCmhg==');
  });
});

describe('checksum names', () => {
  it('maps headers and trailer names to algorithms', () => {
    expect(checksumAlgorithmFromHeader('x-amz-checksum-crc32')).toBe('CRC32');
    expect(checksumAlgorithmFromHeader('X-Amz-Checksum-CRC32C')).toBe('CRC32C');
    expect(checksumAlgorithmFromHeader(' x-amz-checksum-crc64nvme ')).toBe('CRC64NVME');
    expect(checksumAlgorithmFromHeader('x-amz-checksum-sha1')).toBe('SHA1');
    expect(checksumAlgorithmFromHeader('x-amz-checksum-sha256')).toBe('SHA256');
    expect(checksumAlgorithmFromHeader('x-amz-checksum-sha512')).toBeUndefined();
    expect(checksumAlgorithmFromHeader('x-amz-checksum-algorithm')).toBeUndefined();
    expect(checksumAlgorithmFromHeader('content-md5')).toBeUndefined();
  });

  it('maps algorithm names (x-amz-checksum-algorithm values)', () => {
    expect(checksumAlgorithmFromName('CRC32')).toBe('CRC32');
    expect(checksumAlgorithmFromName('crc64nvme')).toBe('CRC64NVME');
    expect(checksumAlgorithmFromName('MD5')).toBeUndefined();
    expect(checksumAlgorithmFromName('XXHASH64')).toBeUndefined();
  });

  it('names the header of each algorithm', () => {
    expect(checksumHeaderName('CRC64NVME')).toBe('x-amz-checksum-crc64nvme');
  });

  it('tells value headers from descriptive ones', () => {
    expect(isChecksumValueHeader('x-amz-checksum-xxhash64')).toBe(true);
    expect(isChecksumValueHeader('x-amz-checksum-type')).toBe(false);
    expect(isChecksumValueHeader('x-amz-checksum-mode')).toBe(false);
    expect(isChecksumValueHeader('x-amz-checksum-algorithm')).toBe(false);
  });
});

describe('digest value shape', () => {
  it('accepts canonical base64 of the right length', () => {
    for (const algorithm of ALGORITHMS) {
      expect(isWellFormedDigest(algorithm, EMPTY_VALUES[algorithm])).toBe(true);
      expect(validateDigestValue(algorithm, EMPTY_VALUES[algorithm])).toBeUndefined();
    }
  });

  it.each([
    ['CRC32', 'AAAAAAAA'],
    ['CRC32', 'AAAA'],
    ['CRC32', 'AAAAAA'],
    ['CRC32', 'AAAAAB=='],
    ['CRC64NVME', 'AAAAAA=='],
    ['SHA256', '2jmj7l5rSw0yVb/vlWAYkK/YBwk='],
    ['MD5', 'not base64!'],
    ['MD5', ''],
  ] as const)('refuses %s value %j with InvalidDigest', (algorithm, value) => {
    expect(isWellFormedDigest(algorithm, value)).toBe(false);
    expect(validateDigestValue(algorithm, value)).toBe('InvalidDigest');
  });
});
