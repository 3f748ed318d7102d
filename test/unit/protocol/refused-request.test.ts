import { describe, expect, it } from 'vitest';
import { refusalMayCarryBody } from '../../../src/protocol/refused-request.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('whether the answer to a request the parser refused may carry a body', () => {
  it.each([
    ['a GET whose head arrived in one read', 'GET /x HTTP/1.1\r\nHost: x\r\nbad line\r\n\r\n', true],
    ['a method HTTP does not define', 'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n', true],
    ['a HEAD', `HEAD /${'a'.repeat(100)} HTTP/1.1\r\nHost: x\r\n\r\n`, false],
    [
      'a HEAD pipelined after a GET',
      'GET / HTTP/1.1\r\nHost: x\r\n\r\nHEAD /x HTTP/1.1\r\nbad\r\n\r\n',
      false,
    ],
    ['bytes from the middle of a request (its head spread over reads)', 'aaaaaaaaaaaa HTTP/1.1\r\n', false],
    ['bytes that start with no request line', '\r\n\r\n', false],
    ['a GET cut short by the end of the read', `GET /${'a'.repeat(100)}`, true],
    ['a GET whose target holds a space', 'GET /fuzz/a b/\u00fc HTTP/1.1\r\nHost: x\r\n\r\n', true],
  ])('%s: %s', (_what, packet, expected) => {
    expect(refusalMayCarryBody(bytes(packet))).toBe(expected);
  });

  it('no bytes at all: no body', () => {
    expect(refusalMayCarryBody(undefined)).toBe(false);
  });
});
