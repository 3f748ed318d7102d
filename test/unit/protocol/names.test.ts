import { describe, expect, it } from 'vitest';
import {
  bucketNameProblem,
  isAddressableBucketName,
  objectKeyProblem,
} from '../../../src/protocol/limits.js';

describe('bucket names', () => {
  it('are addressable under the looser shape a store may already hold, but not created', () => {
    for (const name of ['a..b', '10.0.0.1', 'xn--abc', 'a.-b']) {
      expect(isAddressableBucketName(name), name).toBe(true);
      expect(bucketNameProblem(name), name).not.toBeNull();
    }
  });

  it('accepts DNS-compatible names', () => {
    for (const name of ['abc', 'my-bucket', 'logs.2024.example', 'a1b2c3', 'x'.repeat(63)]) {
      expect(bucketNameProblem(name), name).toBeNull();
    }
  });

  it('explains what is wrong with the rest', () => {
    const cases: Record<string, RegExp> = {
      ab: /3 to 63/,
      [`${'x'.repeat(64)}`]: /3 to 63/,
      Photos: /lower-case/,
      'a_b-c': /lower-case/,
      '-abc': /begin and end/,
      'abc.': /begin and end/,
      'a..b': /two dots/,
      'a.-b': /dot next to a hyphen/,
      '10.0.0.1': /IP address/,
      'xn--abc': /prefix "xn--"/,
      'sthree-abc': /prefix/,
      'abc-s3alias': /suffix "-s3alias"/,
      'abc--ol-s3': /suffix/,
    };
    for (const [name, problem] of Object.entries(cases))
      expect(bucketNameProblem(name), name).toMatch(problem);
  });
});

describe('object keys', () => {
  it('refuse empty, over-long, NUL and dot-segment keys', () => {
    expect(objectKeyProblem('photos/a.jpg')).toBeNull();
    expect(objectKeyProblem('..a/b..')).toBeNull();
    expect(objectKeyProblem('')).toMatch(/empty/);
    expect(objectKeyProblem('é'.repeat(513))).toBe('must be at most 1024 bytes');
    expect(objectKeyProblem('a\u0000b')).toBe('must not contain a NUL character');
    for (const key of ['.', '..', 'a/./b', 'a/../b', '../a', 'a/..'])
      expect(objectKeyProblem(key), key).toMatch(/segments/);
  });
});
