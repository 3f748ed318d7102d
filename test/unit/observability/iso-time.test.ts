import { describe, expect, it } from 'vitest';
import { IsoClock } from '../../../src/observability/iso-time.js';

describe('IsoClock', () => {
  it('spells every millisecond as Date#toISOString does, within a second and across seconds, days and years', () => {
    const clock = new IsoClock();
    const moments = [
      Date.UTC(2026, 10, 28, 10, 2, 54, 807),
      Date.UTC(2026, 10, 28, 10, 2, 54, 7),
      Date.UTC(2026, 10, 28, 10, 2, 54, 70),
      Date.UTC(2026, 10, 28, 10, 2, 54, 0),
      Date.UTC(2026, 10, 28, 10, 2, 55, 999),
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29, 0, 0, 0, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 500),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      Date.UTC(1969, 11, 31, 23, 59, 59, 123),
      Date.UTC(10_000, 0, 1, 0, 0, 0, 42),
      0,
    ];
    for (const at of moments) expect(clock.text(at), String(at)).toBe(new Date(at).toISOString());
  });

  it('tells a second apart from the one before after going back in time', () => {
    const clock = new IsoClock();
    const later = Date.UTC(2026, 10, 28, 10, 0, 1, 500);
    const earlier = Date.UTC(2026, 10, 28, 10, 0, 0, 500);
    expect(clock.text(later)).toBe('2026-11-28T10:00:01.500Z');
    expect(clock.text(earlier)).toBe('2026-11-28T10:00:00.500Z');
  });

  it('reads the current time when given none', () => {
    const before = Date.now();
    const text = new IsoClock().text();
    const after = Date.now();
    const read = Date.parse(text);
    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(after);
  });
});
