import { describe, expect, it } from 'vitest';
import {
  bucketNameProblem,
  objectKeyProblem,
  validateCorsRules,
} from '../../../src/control/services/bucket-rules.js';

describe('bucket names', () => {
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

describe('CORS rules', () => {
  it('upper-case and de-duplicate methods, keeping what was given', () => {
    const { rules, errors } = validateCorsRules([
      {
        allowedOrigins: ['https://a.example', 'http://*.b.example:8080'],
        allowedMethods: ['get', 'GET', 'put'],
      },
    ]);
    expect(errors).toEqual([]);
    expect(rules).toEqual([
      { allowedOrigins: ['https://a.example', 'http://*.b.example:8080'], allowedMethods: ['GET', 'PUT'] },
    ]);
  });

  it('name each bad origin, method and header by its path', () => {
    const { errors } = validateCorsRules([
      { allowedOrigins: ['*'], allowedMethods: ['GET'] },
      {
        allowedOrigins: ['example.com', 'https://*.*.example', 'https://ok.example/path'],
        allowedMethods: ['GET', 'OPTIONS'],
        allowedHeaders: ['x-amz-*', 'two**', 'sp ace'],
        exposeHeaders: ['ETag', 'x-*'],
      },
    ]);
    expect(errors.map((error) => error.field)).toEqual([
      'rules[1].allowedOrigins[0]',
      'rules[1].allowedOrigins[1]',
      'rules[1].allowedOrigins[2]',
      'rules[1].allowedMethods[1]',
      'rules[1].allowedHeaders[1]',
      'rules[1].allowedHeaders[2]',
      'rules[1].exposeHeaders[1]',
    ]);
  });
});

describe('object keys', () => {
  it('refuse empty, over-long and dot-segment keys', () => {
    expect(objectKeyProblem('photos/a.jpg')).toBeNull();
    expect(objectKeyProblem('..a/b..')).toBeNull();
    expect(objectKeyProblem('')).toMatch(/empty/);
    expect(objectKeyProblem('é'.repeat(513))).toMatch(/1024 bytes/);
    for (const key of ['.', '..', 'a/./b', 'a/../b', '../a', 'a/..'])
      expect(objectKeyProblem(key), key).toMatch(/segments/);
  });
});
