import { describe, expect, it } from 'vitest';
import { formatAmzDate, parseAmzDate, parseHttpDate } from '../../../src/sigv4/amz-date.js';

describe('SigV4 timestamps', () => {
  it('reads an ISO basic timestamp to its instant, keeping the text as sent', () => {
    const parsed = parseAmzDate('20261128T103015Z');
    expect(parsed?.amzDate).toBe('20261128T103015Z');
    expect(parsed?.instant.toISOString()).toBe('2026-11-28T10:30:15.000Z');
    expect(parseAmzDate('20240229T235959Z')?.instant.toISOString()).toBe('2024-02-29T23:59:59.000Z');
  });

  it.each([
    ['impossible day', '20250229T000000Z'],
    ['month 13', '20261328T000000Z'],
    ['month 0', '20260028T000000Z'],
    ['day 0', '20261100T000000Z'],
    ['hour 24', '20261128T240000Z'],
    ['minute 60', '20261128T106000Z'],
    ['second 60', '20261128T100060Z'],
    ['a year Date.UTC would read as 19xx', '00991128T100000Z'],
    ['no T', '20261128 103015Z'],
    ['no Z', '20261128T103015'],
    ['lower-case t', '20261128t103015Z'],
    ['a letter for a digit', '2026112aT103015Z'],
    ['a sign for a digit', '2026-128T103015Z'],
    ['a space around it', ' 20261128T103015Z'],
    ['extended form', '2026-11-28T10:30:15Z'],
    ['milliseconds', '20261128T103015.000Z'],
    ['non-ASCII digits', '２０２６1128T103015Z'],
    ['empty', ''],
  ])('refuses %s', (_, text) => {
    expect(parseAmzDate(text)).toBeUndefined();
  });

  it('formats what it parses back to the same text, and reads HTTP dates in the same form', () => {
    for (const text of ['20261128T103015Z', '19700101T000000Z', '99991231T235959Z']) {
      const parsed = parseAmzDate(text);
      expect(parsed && formatAmzDate(parsed.instant)).toBe(text);
    }
    expect(parseHttpDate('Sat, 28 Nov 2026 10:30:15 GMT')?.amzDate).toBe('20261128T103015Z');
  });
});
