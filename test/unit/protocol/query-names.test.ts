import { describe, expect, it } from 'vitest';
import {
  isHoistedHeaderParameter,
  isPresignAuthParameter,
  isResponseOverrideParameter,
  parseQuery,
  PRESIGN_PARAMS,
  repeatedName,
} from '../../../src/protocol/query.js';

const AUTH_LOWER = new Set(Object.values(PRESIGN_PARAMS).map((name) => name.toLowerCase()));

/** The rules by their definitions: a name compared in lower case, whatever its spelling. */
const reference = {
  auth: (name: string) => AUTH_LOWER.has(name.toLowerCase()),
  hoisted: (name: string) => name.toLowerCase().startsWith('x-amz-') && !AUTH_LOWER.has(name.toLowerCase()),
  response: (name: string) => name.toLowerCase().startsWith('response-'),
};

/** Every spelling of `name` that changes the case of one letter, and all-upper and all-lower. */
function spellings(name: string): string[] {
  const found = new Set([name, name.toUpperCase(), name.toLowerCase()]);
  for (let index = 0; index < name.length; index += 1) {
    const flipped =
      name[index] === name[index]?.toUpperCase() ? name[index]?.toLowerCase() : name[index]?.toUpperCase();
    found.add(`${name.slice(0, index)}${flipped}${name.slice(index + 1)}`);
  }
  return [...found];
}

const NAMES = [
  ...Object.values(PRESIGN_PARAMS),
  'x-amz-acl',
  'X-Amz-Meta-Owner',
  'x-amz-checksum-crc32',
  'x-amz-',
  'x-amz',
  'x-id',
  'response-content-type',
  'Response-Cache-Control',
  'response-',
  'response',
  'responses',
  'uploads',
  'partNumber',
  'versionId',
  'list-type',
  '',
  'r',
  'x',
  // Letters outside ASCII that lower-case into it, or next to it.
  '\u212Aey',
  '\u0130d',
  'X-Amz-Dat\u212A',
  'ſesponse-x',
];

describe('query parameter names', () => {
  it('are presigned, hoisted headers or answer overrides in any spelling, as their definitions say', () => {
    for (const name of NAMES.flatMap(spellings)) {
      expect(isPresignAuthParameter(name), `auth: ${name}`).toBe(reference.auth(name));
      expect(isHoistedHeaderParameter(name), `hoisted: ${name}`).toBe(
        name.length >= 6 && reference.hoisted(name),
      );
      expect(isResponseOverrideParameter(name), `response: ${name}`).toBe(reference.response(name));
    }
  });

  it('tell the usual names apart', () => {
    expect(isPresignAuthParameter('X-Amz-Signature')).toBe(true);
    expect(isPresignAuthParameter('x-amz-signature')).toBe(true);
    expect(isHoistedHeaderParameter('X-Amz-Signature')).toBe(false);
    expect(isHoistedHeaderParameter('X-Amz-Acl')).toBe(true);
    expect(isResponseOverrideParameter('RESPONSE-content-type')).toBe(true);
    expect(isResponseOverrideParameter('x-amz-response-x')).toBe(false);
  });
});

describe('a repeated query parameter', () => {
  it('is the name whose second occurrence comes first, in short and long queries alike', () => {
    expect(repeatedName(parseQuery('a=1&b=2&c=3&b=4&a=5'))).toBe('b');
    expect(repeatedName(parseQuery('uploads&uploads'))).toBe('uploads');
    expect(repeatedName(parseQuery('a=1&A=2'))).toBeNull();
    expect(repeatedName(parseQuery(''))).toBeNull();
    const many = Array.from({ length: 30 }, (_, index) => `p${index}=1`);
    expect(repeatedName(parseQuery(many.join('&')))).toBeNull();
    expect(repeatedName(parseQuery([...many, 'p29=2', 'p3=2'].join('&')))).toBe('p29');
    expect(repeatedName(parseQuery(['p0=1', ...many.slice(1, 12), 'p0=2', 'x=1'].join('&')))).toBe('p0');
  });
});
