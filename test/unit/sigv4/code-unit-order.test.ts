import { describe, expect, it } from 'vitest';
import { compareCodeUnits, sortFew } from '../../../src/sigv4/code-unit-order.js';
import { prng } from '../../support/seeded-random.js';

/** A deterministic shuffle (Fisher-Yates over a seeded sequence), so a failure replays. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  const random = prng(seed);
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

describe('SigV4 code-unit order', () => {
  it('orders by code unit, not by locale: upper case before lower, "-" and "." before letters', () => {
    const names = ['x-id', 'X-Amz-Date', 'uploads', 'X-Amz-Algorithm', 'a.b', 'a-b', 'A', '~', '%2F'];
    expect(sortFew([...names], compareCodeUnits)).toEqual([
      '%2F',
      'A',
      'X-Amz-Algorithm',
      'X-Amz-Date',
      'a-b',
      'a.b',
      'uploads',
      'x-id',
      '~',
    ]);
  });

  it('sorts short and long lists alike, as Array#sort does, keeping equal items in their order', () => {
    for (const length of [0, 1, 2, 3, 15, 16, 17, 40]) {
      for (let seed = 1; seed <= 20; seed += 1) {
        // Few distinct names among many items, so equal names and their order are tested too.
        const items = Array.from({ length }, (_, index) => ({ name: `n${index % 5}`, index }));
        const input = shuffled(items, seed * 7919 + length);
        const byName = (left: { name: string }, right: { name: string }): number =>
          compareCodeUnits(left.name, right.name);
        const expected = [...input].sort(byName);
        const sorted = sortFew(input, byName);
        expect(sorted, `length ${length}, seed ${seed}`).toBe(input);
        expect(sorted.map((item) => item.index)).toEqual(expected.map((item) => item.index));
      }
    }
  });
});
