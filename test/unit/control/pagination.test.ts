import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, isUuid, toPage } from '../../../src/control/pagination.js';
import { ProblemError } from '../../../src/control/problems.js';

describe('opaque cursors', () => {
  it('round-trip any store position through URL-safe text', () => {
    for (const position of ['bucket-name', 'GWK1ABC', '2026-01-01T00:00:00.000000|id', 'token/with+sl=']) {
      const cursor = encodeCursor(position) as string;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor)).toBe(position);
    }
    expect(encodeCursor(null)).toBeNull();
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });

  it('refuse a cursor that is not one the list handed out, naming the field', () => {
    const digitsOnly = (position: string) => /^\d+$/.test(position);
    for (const cursor of ['not base64!', encodeCursor('abc') as string]) {
      try {
        decodeCursor(cursor, digitsOnly);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        expect((error as ProblemError).errors).toEqual([{ field: 'cursor', message: expect.any(String) }]);
      }
    }
    expect(decodeCursor(encodeCursor('42') as string, digitsOnly)).toBe('42');
  });

  it('wraps a store page', () => {
    expect(toPage({ items: [1, 2], nextCursor: 'b' }, (n) => n * 10)).toEqual({
      items: [10, 20],
      nextCursor: encodeCursor('b'),
    });
  });

  it('recognises UUIDs only', () => {
    expect(isUuid('6b6b94db-bc73-4a41-bff5-2fa076876c06')).toBe(true);
    expect(isUuid('6b6b94db')).toBe(false);
    expect(isUuid("'; DROP TABLE users; --")).toBe(false);
  });
});
