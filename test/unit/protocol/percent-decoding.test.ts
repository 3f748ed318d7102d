import { describe, expect, it } from 'vitest';
import { strictPercentDecode } from '../../../src/protocol/encoding.js';
import { pick, prng } from '../../support/seeded-random.js';

/** What strict decoding means: ASCII in, escapes of UTF-8 out, anything malformed refused. */
function reference(text: string): string | null {
  if ([...text].some((character) => character.charCodeAt(0) > 0x7f)) return null;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

const PIECES = [
  'a',
  'Z',
  '0',
  '/',
  '+',
  ' ',
  '~',
  '%',
  '%2F',
  '%2f',
  '%20',
  '%41',
  '%7E',
  '%00',
  '%7F',
  '%80',
  '%E6%97%A5',
  '%e6%97%a5',
  '%E6',
  '%E6%97',
  '%C0%AF',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%zz',
  '%4',
  '%4g',
  'é',
  '日',
];

describe('strict percent-decoding', () => {
  it('decodes as decodeURIComponent does for ASCII text, and refuses what it refuses', () => {
    const random = prng(20_261_128);
    for (let round = 0; round < 5000; round += 1) {
      let text = '';
      const pieces = round % 7;
      for (let piece = 0; piece < pieces; piece += 1) text += pick(random, PIECES);
      expect(strictPercentDecode(text), JSON.stringify(text)).toBe(reference(text));
    }
  });

  it('gives back the very text when it holds no escape', () => {
    const text = 'photos/2026/cat.jpg';
    expect(strictPercentDecode(text)).toBe(text);
  });
});
